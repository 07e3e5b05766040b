/** The cron Validate action: checks a load schedule and lists its next runs in the service time zone. */
import type { Caller } from '../identity/caller';
import { nextRuns, normaliseCron, validateCron } from '../schedule/cron';
import { ValidationError } from '../shared/errors';
import type { DataViewDeps } from './types';

export interface CronPreviewInput {
  expression: string;
  count?: number;
  timeZone?: string;
}

export interface CronPreview {
  valid: true;
  expression: string;
  /** The six-field (seconds-first) form the scheduler runs. */
  normalized: string;
  timeZone: string;
  /** The next runs as ISO 8601 instants (UTC). */
  nextRuns: string[];
}

export const DEFAULT_RUNS = 5;
export const MAX_RUNS = 50;

function knownTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** POST /cron/validate: 400 naming `expression` (or `timeZone`, `count`) when the input is not usable. */
export function previewCron(
  deps: Pick<DataViewDeps, 'clock' | 'config'>,
  _caller: Caller,
  input: CronPreviewInput,
): CronPreview {
  const problem = validateCron(input.expression);
  if (problem !== null) throw ValidationError.field('expression', problem);
  const timeZone = input.timeZone ?? deps.config.timeZone;
  if (!knownTimeZone(timeZone)) {
    throw ValidationError.field(
      'timeZone',
      `must be an IANA time zone such as Europe/Prague, got '${timeZone}'`,
    );
  }
  const count = input.count ?? DEFAULT_RUNS;
  if (!Number.isInteger(count) || count < 1 || count > MAX_RUNS) {
    throw ValidationError.field('count', `must be a whole number from 1 to ${MAX_RUNS}`);
  }
  const runs = nextRuns(input.expression, count, deps.clock.now(), timeZone);
  return {
    valid: true,
    expression: input.expression,
    normalized: normaliseCron(input.expression),
    timeZone,
    nextRuns: runs.map((d) => d.toISOString()),
  };
}

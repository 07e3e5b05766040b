/**
 * What the end-to-end bench's cycles would be billed on AWS: `npm start` keeps each worker invocation's
 * billed duration × configured memory in DATA_DIR/usage.json (scripts/local/billing.ts); the bench reads it
 * before and after the first load and each daily cycle, and prints the gigabyte-seconds per function.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Usage, usageBetween, usageTotals } from '../local/billing';

/** The service's usage so far (empty before its first worker invocation). */
export function readUsage(dataDir: string): Usage {
  try {
    return JSON.parse(readFileSync(path.join(dataDir, 'usage.json'), 'utf8')) as Usage;
  } catch {
    return {};
  }
}

const invocations = (u: Usage) => Object.values(u).reduce((n, f) => n + f.invocations, 0);

/**
 * The usage once it stops growing: a job's record says finished a moment before its invocation returns
 * (and the hooks of a process job run after its detection finished), so wait until nothing new is billed
 * for a second (at most 30 s).
 */
export async function settledUsage(dataDir: string): Promise<Usage> {
  let last = readUsage(dataDir);
  for (let i = 0; i < 30; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = readUsage(dataDir);
    if (invocations(now) === invocations(last)) return now;
    last = now;
  }
  return last;
}

/** The usage between two reads, without the schedule's own ticks (they bill whatever the cycle does). */
export function cycleUsage(before: Usage, after: Usage): Usage {
  const u = usageBetween(before, after);
  for (const fn of Object.keys(u)) if (fn.endsWith('-cronLoads')) delete u[fn];
  return u;
}

const short = (fn: string) => fn.replace(/^.*-(local|test)-/, '');

/** One line: GB-s per function (invocations), then the totals. */
export function usageLine(u: Usage | null): string {
  if (!u || Object.keys(u).length === 0) return '–';
  const t = usageTotals(u);
  const parts = Object.entries(u)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([fn, f]) => `${short(fn)} ${f.gbSeconds.toFixed(1)} GB-s (${f.invocations}× ${f.memoryMb} MB)`);
  return `${parts.join(', ')}; total ${t.gbSeconds.toFixed(1)} GB-s, ${t.requests} Lambda requests, ${t.sqsRequests} SQS requests`;
}

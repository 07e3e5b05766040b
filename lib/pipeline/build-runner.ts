/**
 * What runs the statements of a series build, timing them per step: the timing and the step hooks are
 * here; how a statement over many series runs is the runner's. On PostgreSQL every statement runs
 * whole (build-runner-whole.ts: other sessions run beside it); on the embedded PGlite, which runs one
 * statement at a time for every connection, statements are cut into ranges of series ids sized from
 * the time the previous range took (build-runner-chunked.ts), so that status and the other requests
 * run between them.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';

/** How long one statement of a build on PGlite should take (ms): what another query may wait. */
export const CHUNK_TARGET_MS = 25;

/** A build statement this long (ms) is counted and reported (PGlite: what status may have waited for). */
export const LONG_STATEMENT_MS = 100;

export interface RunnerOptions {
  /** Chunked runner: fixed keys per range instead of sizing by time (tests: 1 makes every series a statement). */
  chunkRows?: number;
  /** Chunked runner: target duration of a ranged statement (ms; default CHUNK_TARGET_MS). */
  targetMs?: number;
  /** Checked before every statement. */
  signal?: AbortSignal;
  /** Called at the start of each step (tests observe the build with it). */
  onStep?: (step: string) => Promise<void> | void;
  /** Called after a statement of LONG_STATEMENT_MS or more (its step, duration and text). */
  onLongStatement?: (step: string, ms: number, text: string) => void;
}

/** Statements of a build, timed per step. */
export abstract class BuildRunner {
  readonly steps: Record<string, number> = {};
  step = 'series';
  statements = 0;
  longestMs = 0;
  longestStep = '';
  longStatements = 0;

  constructor(
    readonly db: Database,
    readonly opts: RunnerOptions,
  ) {}

  async enter(step: string): Promise<void> {
    this.step = step;
    this.opts.signal?.throwIfAborted();
    await this.opts.onStep?.(step);
  }

  /** Runs one statement (text, or built with drizzle's sql) and returns its rows. */
  async run<T = Record<string, unknown>>(query: string | ReturnType<typeof sql>): Promise<T[]> {
    return this.time(() => this.db.rows<T>(typeof query === 'string' ? sql.raw(query) : query), query);
  }

  /** Times `work` as one statement of the current step. */
  async time<T>(work: () => Promise<T>, what: string | ReturnType<typeof sql> = ''): Promise<T> {
    this.opts.signal?.throwIfAborted();
    const t0 = Date.now();
    try {
      return await work();
    } finally {
      this.note(Date.now() - t0, typeof what === 'string' ? what : '(statement with parameters)');
    }
  }

  private note(ms: number, text: string): void {
    this.steps[this.step] = (this.steps[this.step] ?? 0) + ms;
    this.statements++;
    if (ms > this.longestMs) {
      this.longestMs = ms;
      this.longestStep = this.step;
    }
    if (ms >= LONG_STATEMENT_MS) {
      this.longStatements++;
      this.opts.onLongStatement?.(this.step, ms, text.replace(/\s+/g, ' ').slice(0, 160));
    }
  }

  /**
   * Whether a build table gets its primary key when created, kept up by each insert (PGlite: one index
   * build at the end would be one long statement), or once its rows are in (one bulk index build).
   */
  abstract readonly keysFirst: boolean;

  /** Rows of cat_map per insert. */
  abstract readonly catMapRows: number;

  /** ANALYZE of a table. */
  abstract analyze(table: string): Promise<void>;

  /**
   * Runs `statement(lo, hi)` over ranges of `keys` (ascending; `budget` keys a range to start with) and
   * returns the rows of every statement.
   */
  abstract ranges<T = Record<string, unknown>>(
    keys: readonly number[],
    budget: number,
    statement: (lo: number, hi: number) => string,
  ): Promise<T[]>;

  /** Makes `column` of `table` quick to look up by the ranged statements that read it. */
  abstract indexForRanges(table: string, column: string): Promise<void>;
}

/**
 * Runs the statements of a series build, timing them per step. On the embedded PGlite, which runs one
 * statement at a time for every connection, a statement over many series is cut into ranges of series
 * ids sized from the time the previous range took (about CHUNK_TARGET_MS each), so that status and the
 * other requests run between them; on PostgreSQL every statement runs whole (other sessions run beside it).
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';

/** How long one statement of a build on PGlite should take (ms): what another query may wait. */
export const CHUNK_TARGET_MS = 25;

/** A build statement this long (ms) is counted and reported (PGlite: what status may have waited for). */
export const LONG_STATEMENT_MS = 100;

/** default_statistics_target of ANALYZE on PGlite (300 × this rows sampled; PostgreSQL's default is 100). */
export const CHUNKED_STATISTICS_TARGET = 10;

export interface RunnerOptions {
  /** Cut statements into ranges (PGlite); otherwise one statement each. */
  chunked: boolean;
  /** Fixed keys per range instead of sizing by time (tests: 1 makes every series a statement). */
  chunkRows?: number;
  /** Target duration of a ranged statement (ms; default CHUNK_TARGET_MS). */
  targetMs?: number;
  /** Checked before every statement. */
  signal?: AbortSignal;
  /** Called at the start of each step (tests observe the build with it). */
  onStep?: (step: string) => Promise<void> | void;
  /** Called after a statement of LONG_STATEMENT_MS or more (its step, duration and text). */
  onLongStatement?: (step: string, ms: number, text: string) => void;
}

/** Statements of a build, timed per step. */
export class BuildRunner {
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

  get chunked(): boolean {
    return this.opts.chunked;
  }

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
   * ANALYZE of a table; on PGlite with a small sample in a short transaction of its own (ANALYZE reads
   * its sample in one statement; SET LOCAL keeps the setting to it: PGlite's one session is everyone's).
   */
  async analyze(table: string): Promise<void> {
    if (!this.chunked) {
      await this.run(`ANALYZE ${table}`);
      return;
    }
    await this.time(
      () =>
        this.db.tx(async (tx) => {
          await tx.rows(sql.raw(`SET LOCAL default_statistics_target = ${CHUNKED_STATISTICS_TARGET}`));
          await tx.rows(sql.raw(`ANALYZE ${table}`));
        }),
      `ANALYZE ${table}`,
    );
  }

  /**
   * Runs `statement(lo, hi)` over ranges of `keys` (ascending): one range of all keys when not chunked;
   * otherwise ranges starting at `budget` keys, then sized so that each takes about the target time.
   * Returns the rows of every statement.
   */
  async ranges<T = Record<string, unknown>>(
    keys: readonly number[],
    budget: number,
    statement: (lo: number, hi: number) => string,
  ): Promise<T[]> {
    if (keys.length === 0) return [];
    if (!this.chunked) return this.run<T>(statement(keys[0], keys[keys.length - 1]));
    const fixed = this.opts.chunkRows;
    let size = fixed ?? budget;
    const floor = fixed ?? Math.max(1, budget / 8);
    const target = this.opts.targetMs ?? CHUNK_TARGET_MS;
    const out: T[] = [];
    for (let i = 0; i < keys.length; ) {
      const j = Math.min(keys.length, i + Math.max(1, Math.round(size)));
      const t0 = Date.now();
      out.push(...(await this.run<T>(statement(keys[i], keys[j - 1]))));
      const ms = Math.max(1, Date.now() - t0);
      if (!fixed) size = Math.min(size * 4, Math.max(size / 4, ((j - i) * target) / ms, floor));
      i = j;
    }
    return out;
  }
}

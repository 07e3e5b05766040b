/**
 * The runner of a series build on the embedded PGlite, which runs one statement at a time for every
 * connection: a statement over many series is cut into ranges of series ids sized from the time the
 * previous range took (about CHUNK_TARGET_MS each), so that status and the other requests run between
 * them; keys are kept up by each insert and ANALYZE samples little, each in a short statement.
 */
import { sql } from 'drizzle-orm';
import { BuildRunner, CHUNK_TARGET_MS } from './build-runner';

/** default_statistics_target of ANALYZE on PGlite (300 × this rows sampled; PostgreSQL's default is 100). */
export const CHUNKED_STATISTICS_TARGET = 10;

/** Rows of cat_map per insert on PGlite (short statements). */
const CAT_MAP_ROWS = 1_000;

export class ChunkedBuildRunner extends BuildRunner {
  readonly keysFirst = true;

  get catMapRows(): number {
    return this.opts.chunkRows ?? CAT_MAP_ROWS;
  }

  /**
   * ANALYZE of a table; on PGlite with a small sample in a short transaction of its own (ANALYZE reads
   * its sample in one statement; SET LOCAL keeps the setting to it: PGlite's one session is everyone's).
   */
  async analyze(table: string): Promise<void> {
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
   * Runs `statement(lo, hi)` over ranges of `keys` (ascending): ranges starting at `budget` keys (or
   * chunkRows), then sized so that each takes about the target time. Returns the rows of every statement.
   */
  async ranges<T = Record<string, unknown>>(
    keys: readonly number[],
    budget: number,
    statement: (lo: number, hi: number) => string,
  ): Promise<T[]> {
    if (keys.length === 0) return [];
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

  /** A unique index, so that each ranged statement finds its series without reading the table. */
  async indexForRanges(table: string, column: string): Promise<void> {
    await this.run(`CREATE UNIQUE INDEX ON ${table} (${column})`);
  }
}

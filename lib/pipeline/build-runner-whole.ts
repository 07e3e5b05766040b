/**
 * The runner of a series build on PostgreSQL: every statement runs whole (other sessions run beside
 * it), keys are built once the rows are in, ANALYZE samples as configured.
 */
import { BuildRunner } from './build-runner';

/** Rows of cat_map per insert on PostgreSQL. */
const CAT_MAP_ROWS = 20_000;

export class WholeBuildRunner extends BuildRunner {
  readonly keysFirst = false;

  get catMapRows(): number {
    return this.opts.chunkRows ?? CAT_MAP_ROWS;
  }

  async analyze(table: string): Promise<void> {
    await this.run(`ANALYZE ${table}`);
  }

  /** One statement over all of `keys`. */
  async ranges<T = Record<string, unknown>>(
    keys: readonly number[],
    _budget: number,
    statement: (lo: number, hi: number) => string,
  ): Promise<T[]> {
    if (keys.length === 0) return [];
    return this.run<T>(statement(keys[0], keys[keys.length - 1]));
  }

  /** Nothing: a whole statement joins without it. */
  async indexForRanges(_table: string, _column: string): Promise<void> {}
}

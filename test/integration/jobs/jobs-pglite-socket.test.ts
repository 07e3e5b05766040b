import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedPglite, servePglite } from '../../../scripts/local/pglite-server';

// npm start serves one PGlite to every function; a load's long transaction runs while the API answers.
describe('PGlite served to several connections', () => {
  let served: ServedPglite;
  let a: postgres.Sql;
  let b: postgres.Sql;

  beforeAll(async () => {
    served = await servePglite('memory://');
    a = postgres(served.url, { max: 2, onnotice: () => {} });
    b = postgres(served.url, { max: 2, onnotice: () => {} });
    await a`CREATE TABLE t (x int)`;
  });
  afterAll(async () => {
    await a.end({ timeout: 1 });
    await b.end({ timeout: 1 });
    await served.close();
  });

  it('answers queries of one connection while another runs many transactions', async () => {
    const writer = (async () => {
      for (let i = 0; i < 30; i++) {
        await a.begin(async (sql) => {
          await sql`INSERT INTO t SELECT generate_series(1, ${10 + i})`;
          await sql`INSERT INTO t SELECT generate_series(1, ${10 + i})`;
        });
      }
    })();
    const failures: string[] = [];
    const reads: number[] = [];
    for (let i = 0; i < 60; i++) {
      try {
        const [r] = await b`SELECT count(*)::int AS n FROM t WHERE x > ${i % 5}`;
        reads.push(r.n);
      } catch (e) {
        failures.push((e as Error).message);
      }
    }
    await writer;
    expect(failures).toEqual([]);
    // A transaction is seen whole or not at all: 2 × (10 + i) rows each, x from 1.
    expect(reads.length).toBe(60);
    const [after] = await b`SELECT count(*)::int AS n FROM t`;
    expect(after.n).toBe(2 * (30 * 10 + 435));
  });
});

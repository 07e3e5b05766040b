import { type SQL, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import type { Database } from '../../../lib/db/database';
import { runViewDetection } from '../../../lib/process-job/run';
import { findView } from '../../../lib/dataviews/repository';
import { logger, type Logger } from '../../../lib/shared/logger';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { loadedDetectionView, storedAnomalies } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';

// 2023-12-18 .. 2024-01-28: two weeks of warm-up before the detectors judge a day, then 2024-01-01 on.
const flat = (v: number) => Array.from({ length: 42 }, () => v);
const spike = (at: number) => flat(100).map((v, t) => (t === at ? 200 : v));

/** The same database with `before(text)` run ahead of every statement, also inside transactions. */
function intercept(db: Database, before: (text: string) => Promise<void> | void): Database {
  const text = (q: SQL) =>
    (db.orm as unknown as { dialect: { sqlToQuery(q: SQL): { sql: string } } }).dialect.sqlToQuery(q).sql;
  const wrap = (inner: Database): Database => ({
    ...inner,
    rows: async (q) => {
      await before(text(q));
      return inner.rows(q);
    },
    tx: (fn) => inner.tx((tx) => fn(wrap(tx))),
  });
  return wrap(db);
}

describe(`atomic replacement of anomalies on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  let viewId: number;
  const deps = (db: Database, extra: { log?: Logger; signal?: AbortSignal } = {}) => ({
    db,
    log: extra.log ?? logger,
    shardSize: 1,
    signal: extra.signal,
  });
  const run = async (db: Database, runId: number, extra: { log?: Logger; signal?: AbortSignal } = {}) =>
    runViewDetection(deps(db, extra), (await findView(t.db, viewId))!, runId);
  const stored = () => storedAnomalies(t.db, viewId, ['country']);
  const stageTables = async () =>
    (
      await t.db.rows<{ table_name: string }>(
        sql`SELECT table_name FROM information_schema.tables WHERE table_schema = ${schemaNameFor(viewId)} AND table_name ~ '^anomalies_(run|next)_'`,
      )
    ).map((r) => r.table_name);

  let indexesBefore: string[];
  const indexNames = async () =>
    (
      await t.db.rows<{ indexname: string }>(
        sql`SELECT indexname FROM pg_indexes WHERE schemaname = ${schemaNameFor(viewId)} AND tablename = 'all_anomalies' ORDER BY 1`,
      )
    ).map((r) => r.indexname);

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
    // Two shards with a shard size of 1: the total, then the group of the two countries.
    viewId = await loadedDetectionView(t.db, source, {
      name: 'atomic',
      categories: [{ name: 'country' }],
      detectors: [{ type: 'dod', params: { percentualChange: 30 } }],
      start: '2023-12-18',
      series: [
        { categories: { country: 'CZ' }, values: spike(33) },
        { categories: { country: 'DE' }, values: flat(100) },
      ],
    });
    indexesBefore = await indexNames();
    await run(t.db, 1);
  });
  afterAll(async () => {
    await source.stop();
    await t.drop();
  });

  it('keeps the previous anomalies when a run stops after its first shard', async () => {
    const before = await stored();
    expect(before).toHaveLength(2);
    const ac = new AbortController();
    const log = { ...logger, debug: () => ac.abort(new Error('the job timed out')) } as Logger;
    await expect(run(t.db, 2, { log, signal: ac.signal })).rejects.toThrow('the job timed out');
    expect(await stored()).toEqual(before);
    expect(await stageTables()).toEqual([]);
  });

  it('keeps the previous anomalies when the swap fails after dropping the old table', async () => {
    const before = await stored();
    const failing = intercept(t.db, (text) => {
      if (text.includes('RENAME TO all_anomalies')) throw new Error('disk full');
    });
    await expect(run(failing, 3)).rejects.toThrow('disk full');
    expect(await stored()).toEqual(before);
    expect(await stageTables()).toEqual([]);
    expect(await indexNames()).toEqual(indexesBefore);
  });

  it('publishes nothing when a load commits during the run', async () => {
    const before = await stored();
    let layoutReads = 0;
    const racing = intercept(t.db, async (text) => {
      if (text.includes("concat_ws(':'") && ++layoutReads === 2) {
        await t.db.rows(sql.raw(`UPDATE ${schemaNameFor(viewId)}.all_series SET days = days + 1`));
      }
    });
    await expect(run(racing, 4)).rejects.toThrow(/data of the view changed during detection/);
    expect(await stored()).toEqual(before);
  });

  it('drops the staging and shadow tables a crashed run left behind', async () => {
    await t.db.rows(sql.raw(`CREATE TABLE ${schemaNameFor(viewId)}.anomalies_run_77 (x integer)`));
    await t.db.rows(sql.raw(`CREATE TABLE ${schemaNameFor(viewId)}.anomalies_next_78 (x integer)`));
    await run(t.db, 5);
    expect(await stageTables()).toEqual([]);
    expect((await stored()).map((r) => `${r.series} ${r.start_date} ${r.type}`)).toEqual([
      '* 2024-01-20 DOD',
      'CZ 2024-01-20 DOD',
    ]);
  });

  it('keeps the ids of kept anomalies, the indexes and the id sequence of all_anomalies across swaps', async () => {
    const before = await stored();
    await run(t.db, 6);
    const after = await stored();
    expect(Math.min(...after.map((r) => r.id))).toBeGreaterThan(Math.max(...before.map((r) => r.id)));
    expect(await indexNames()).toEqual(indexesBefore);
    const [{ seq }] = await t.db.rows<{ seq: string }>(
      sql.raw(`SELECT pg_get_serial_sequence('${schemaNameFor(viewId)}.all_anomalies', 'id') AS seq`),
    );
    expect(seq).toBe(`${schemaNameFor(viewId)}.all_anomalies_id_seq`);
  });
});

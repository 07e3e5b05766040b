import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASET_TABLES, schemaNameFor } from '../../../lib/dataset/ddl';
import { jobFigures } from '../../../lib/jobs/progress';
import { findJob, insertJob, type JobRow, renewLease } from '../../../lib/jobs/repository';
import { type LoadDeps, MAX_DROPPED_DAYS, runLoad } from '../../../lib/pipeline/load';
import type { OpenSource } from '../../../lib/pipeline/source';
import { logger, setLogLevel } from '../../../lib/shared/logger';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { createDeployedView, type ViewOptions } from '../../support/pipeline-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { viewSeries } from '../../support/view-series';

const VIEW: ViewOptions = {
  loadQuery: 'SELECT day, shop, amount FROM sales ORDER BY day, shop',
  categories: [{ name: 'shop' }],
};

describe(`loading a data view on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  const load = (viewId: number, o: { kind?: JobRow['kind']; open?: OpenSource; signal?: AbortSignal } = {}) =>
    runLoad(
      { db: t.db, log: logger, openSource: o.open ?? source.open, batchSize: 2 },
      { id: 1, dataViewId: viewId, kind: o.kind ?? 'Load' } as JobRow,
      o.signal ?? new AbortController().signal,
    );
  /** The total series as day → value, and the rows of int. */
  const snapshot = async (viewId: number) => {
    const s = schemaNameFor(viewId);
    const [root] = await t.db.rows<{ id: number }>(
      sql.raw(`SELECT series_id AS id FROM ${s}.cat_map WHERE level = 0`),
    );
    const series = await viewSeries(t.db, viewId);
    const values = root ? (series.byId.get(Number(root.id))?.values ?? []) : [];
    const [n] = await t.db.rows<{ n: number }>(sql.raw(`SELECT count(*)::int AS n FROM ${s}."int"`));
    return {
      total: Object.fromEntries(
        series.days.flatMap((day, i) =>
          values[i] === null || values[i] === undefined ? [] : [[day, values[i]]],
        ),
      ),
      intRows: Number(n.n),
    };
  };
  const reset = (rows: string) => source.exec(`TRUNCATE sales; INSERT INTO sales VALUES ${rows}`);

  beforeAll(async () => {
    setLogLevel('silent');
    t = await createTestDatabase();
    source = await createTestSource();
    await source.exec('CREATE TABLE sales (day integer, shop text, amount double precision)');
  });
  afterAll(async () => {
    await source.stop();
    await t.drop();
  });

  it('replaces everything in full mode', async () => {
    const id = await createDeployedView(t.db, { ...VIEW, name: 'full' });
    await reset(`(20240101, 'a', 1), (20240102, 'a', 2), (20240103, 'b', 3)`);
    await load(id);
    await reset(`(20240102, 'a', 20), (20240103, 'a', 30)`);
    const { result } = await load(id);
    expect(result).toMatchObject({ mode: 'full', rows: 2 });
    expect(await snapshot(id)).toEqual({ total: { 20240102: 20, 20240103: 30 }, intRows: 2 });
    // The next int comes with its index on day and its statistics (on PostgreSQL built beside the series).
    const s = schemaNameFor(id);
    const [int] = await t.db.rows<{ indexed: boolean; tuples: number }>(
      sql.raw(`SELECT to_regclass('${s}.int_day') IS NOT NULL AS indexed, reltuples::float8 AS tuples
        FROM pg_class WHERE oid = '${s}."int"'::regclass`),
    );
    expect(int).toEqual({ indexed: true, tuples: 2 });
  });

  it('replaces the days from the minimum day of the batch in incremental mode', async () => {
    const id = await createDeployedView(t.db, { ...VIEW, name: 'incremental', loadMode: 'incremental' });
    await reset(`(20240101, 'a', 1), (20240102, 'a', 2), (20240103, 'a', 3), (20240104, 'a', 4)`);
    await load(id);
    // The new batch starts on the 3rd: the 1st and 2nd stay as loaded, the 4th disappears with the 3rd's replacement.
    await reset(`(20240101, 'a', 100), (20240103, 'a', 30), (20240105, 'a', 50)`);
    await source.exec('DELETE FROM sales WHERE day < 20240103');
    const { result } = await load(id);
    expect(result).toMatchObject({ mode: 'incremental', rows: 2, fromDate: '2024-01-03' });
    expect((await snapshot(id)).total).toEqual({
      20240101: 1,
      20240102: 2,
      20240103: 30,
      20240104: 0,
      20240105: 50,
    });
  });

  it('replaces exactly the days a custom load returns', async () => {
    const id = await createDeployedView(t.db, {
      ...VIEW,
      name: 'custom',
      customLoadQuery: 'SELECT day, shop, amount * 10 AS amount FROM sales WHERE day = 20240102',
    });
    await reset(`(20240101, 'a', 1), (20240102, 'a', 2), (20240103, 'a', 3)`);
    await load(id);
    const { result } = await load(id, { kind: 'CustomLoad' });
    expect(result).toMatchObject({ mode: 'days', rows: 1, replacedDays: 1 });
    expect((await snapshot(id)).total).toEqual({ 20240101: 1, 20240102: 20, 20240103: 3 });
  });

  describe('a load that fails leaves the previous data untouched', () => {
    let id: number;
    let before: Awaited<ReturnType<typeof snapshot>>;
    beforeAll(async () => {
      id = await createDeployedView(t.db, { ...VIEW, name: 'atomic' });
      await reset(`(20240101, 'a', 1), (20240102, 'b', 2)`);
      await load(id);
      before = await snapshot(id);
    });

    it('when the source fails in the middle of the stream', async () => {
      await reset(
        `(20240101, 'a', 1), (20240102, 'a', 2), (20240103, 'a', 3), (20240104, 'a', 0), (20240105, 'a', 5)`,
      );
      const failing: OpenSource = async (name) => {
        const real = await source.open(name);
        return {
          ...real,
          stream: (_sql, opts) =>
            real.stream('SELECT day, shop, 1 / amount AS amount FROM sales ORDER BY day', opts),
          streamColumns: (_sql, opts) =>
            real.streamColumns!('SELECT day, shop, 1 / amount AS amount FROM sales ORDER BY day', opts),
        };
      };
      await expect(load(id, { open: failing })).rejects.toThrow(/division by zero/);
      expect(await snapshot(id)).toEqual(before);
    });

    it('when the index of the next int cannot be built (on PostgreSQL it is built beside the series)', async () => {
      const s = schemaNameFor(id);
      // A relation of the index's name makes its CREATE INDEX fail.
      await t.db.rows(sql.raw(`CREATE TABLE ${s}.int_stage_day (x int)`));
      try {
        await reset(`(20240101, 'a', 10), (20240103, 'c', 30)`);
        await expect(load(id)).rejects.toThrow(/int_stage_day/);
        expect(await snapshot(id)).toEqual(before);
      } finally {
        await t.db.rows(sql.raw(`DROP TABLE ${s}.int_stage_day`));
      }
    });

    it('when a row breaks the source query rules, naming the row and the problem', async () => {
      await source.exec(
        `CREATE OR REPLACE VIEW bad_dates AS SELECT to_char(to_date(day::text, 'YYYYMMDD'), 'DD.MM.YYYY') AS day, shop, amount FROM sales`,
      );
      await reset(`(20240101, 'a', 1), (20240102, 'a', 2), (20240103, 'a', 3)`);
      const open: OpenSource = async (name) => {
        const real = await source.open(name);
        const bad = 'SELECT * FROM bad_dates ORDER BY day';
        return {
          ...real,
          stream: (_sql, opts) => real.stream(bad, opts),
          streamColumns: (_sql, opts) => real.streamColumns!(bad, opts),
        };
      };
      await expect(load(id, { open })).rejects.toThrow(
        "row 1 of the load query: the date column day must be a date: a DATE or TIMESTAMP, ISO text (YYYY-MM-DD, a time after it ignored) or an integer YYYYMMDD, got '01.01.2024' (text); convert it to a date in the SELECT, e.g. CAST(day AS date) or to_date(day, 'DD.MM.YYYY')",
      );
      expect(await snapshot(id)).toEqual(before);
    });

    it('when the series build fails inside the transaction', async () => {
      const s = schemaNameFor(id);
      await reset(`(20240107, 'z', 70)`);
      await t.db.rows(sql.raw(`ALTER TABLE ${s}.all_series RENAME TO all_series_away`));
      try {
        await expect(load(id)).rejects.toThrow(/all_series/);
      } finally {
        await t.db.rows(sql.raw(`ALTER TABLE ${s}.all_series_away RENAME TO all_series`));
      }
      expect(await snapshot(id)).toEqual(before);
      expect(await t.db.rows(sql.raw(`SELECT 1 FROM ${s}.dict WHERE value = 'z'`))).toEqual([]);
    });

    it('when a full load returns no rows (empty sources never erase history)', async () => {
      await source.exec('TRUNCATE sales');
      await expect(load(id)).rejects.toThrow(
        /load query of retail\/atomic returned no rows; the previous data and anomalies are kept.*allowEmptyLoad/,
      );
      expect(await snapshot(id)).toEqual(before);
    });

    it('when the job runs out of time', async () => {
      await reset(`(20240101, 'a', 1), (20240102, 'a', 2), (20240103, 'a', 3)`);
      const ac = new AbortController();
      ac.abort(new Error('the job timed out after 1 s'));
      await expect(load(id, { signal: ac.signal })).rejects.toThrow('the job timed out after 1 s');
      expect(await snapshot(id)).toEqual(before);
    });
  });

  describe('the series build beside other queries', () => {
    let id: number;
    const buildTables = async () =>
      (
        await t.db.rows<{ t: string }>(
          sql`SELECT tablename AS t FROM pg_tables WHERE schemaname = ${schemaNameFor(id)} AND tablename LIKE 'build\_%'`,
        )
      ).map((r) => r.t);
    const loadWith = (deps: Partial<LoadDeps>, job: Partial<JobRow> = {}) =>
      runLoad(
        { db: t.db, log: logger, openSource: source.open, batchSize: 2, ...deps },
        { id: 1, dataViewId: id, kind: 'Load', ...job } as JobRow,
        new AbortController().signal,
      );
    beforeAll(async () => {
      id = await createDeployedView(t.db, { ...VIEW, name: 'beside' });
      await reset(`(20240101, 'a', 1), (20240102, 'b', 2), (20240103, 'a', 3)`);
      await load(id);
      await reset(`(20240101, 'a', 10), (20240102, 'z', 20), (20240104, 'a', 40)`);
    });

    // The data of the first load (a, b, a on the 1st to 3rd), which every failing load must leave as it is.
    const first = { total: { 20240101: 1, 20240102: 2, 20240103: 3 }, intRows: 3 };

    /** The order in which a query issued when the build starts its data step, the swap and the load's end happen. */
    const order = async (deps: Partial<LoadDeps>) => {
      const events: string[] = [];
      let query: Promise<unknown> | undefined;
      await loadWith({
        ...deps,
        onBuildStep: (step) => {
          if (step === 'data')
            query = t.db.rows(sql`SELECT count(*) FROM jobs`).then(() => events.push('query'));
          if (step === 'swap') events.push('swap');
        },
      });
      events.push('loaded');
      await query;
      return events;
    };

    for (const buildChunked of [false, true]) {
      for (const step of [
        'int',
        'series',
        'cat_map',
        'data',
        'days',
        'all_series',
        'analyze',
        'int_wait',
        'swap',
      ]) {
        it(`keeps the previous data and dictionary when the build fails at its ${step} step (${buildChunked ? 'short statements' : 'whole statements'})`, async () => {
          await expect(
            loadWith({
              buildChunked,
              buildChunkRows: 1,
              onBuildStep: (at) => {
                if (at === step) throw new Error(`injected failure at ${step}`);
              },
            }),
          ).rejects.toThrow(`injected failure at ${step}`);
          expect(await snapshot(id)).toEqual(first);
          expect(
            await t.db.rows(sql.raw(`SELECT 1 FROM ${schemaNameFor(id)}.dict WHERE value = 'z'`)),
          ).toEqual([]);
          expect(await buildTables()).toEqual([]);
        });
      }
    }

    it('does not swap in the build of an attempt whose job has been taken over', async () => {
      const job = (await insertJob(t.db, {
        dataViewId: id,
        kind: 'Load',
        trigger: 'manual',
        createdAt: new Date(),
      }))!;
      // The cron took the job for lost and a second attempt claimed it while the first still built.
      await t.db.rows(sql`UPDATE jobs SET status = 'running', attempts = 2 WHERE id = ${job.id}`);
      await expect(loadWith({}, { ...job, status: 'running', attempts: 1 })).rejects.toThrow(
        `Load job ${job.id} no longer runs attempt 1`,
      );
      expect(await snapshot(id)).toEqual(first);
      expect(await buildTables()).toEqual([]);
      await t.db.rows(sql`UPDATE jobs SET status = 'failed' WHERE id = ${job.id}`);
    });

    it('does not swap in the build of a load whose job row clean or undeploy removed', async () => {
      const job = (await insertJob(t.db, {
        dataViewId: id,
        kind: 'Load',
        trigger: 'manual',
        createdAt: new Date(),
      }))!;
      await t.db.rows(sql`DELETE FROM jobs WHERE id = ${job.id}`);
      await expect(loadWith({}, { ...job, status: 'running', attempts: 1 })).rejects.toThrow(
        `Load job ${job.id} was removed (the view was cleaned or undeployed)`,
      );
      expect(await snapshot(id)).toEqual(first);
      expect(await buildTables()).toEqual([]);
    });

    it('answers a query issued during the build before the build is swapped in', async () => {
      // The build runs no transaction but the swap's: the query runs between two of its statements.
      expect(await order({})).toEqual(['query', 'swap', 'loaded']);
      expect(await order({ buildChunked: true, buildChunkRows: 1 })).toEqual(['query', 'swap', 'loaded']);
    });

    it('drops the build tables an earlier attempt left, and loads', async () => {
      const s = schemaNameFor(id);
      await t.db.rows(sql.raw(`CREATE TABLE ${s}.build_77_1_data (series_id integer)`));
      expect(await buildTables()).toEqual(['build_77_1_data']);
      const { result } = await loadWith({});
      expect(result.rows).toBe(3);
      expect(await buildTables()).toEqual([]);
      expect((await snapshot(id)).total).toEqual({ 20240101: 10, 20240102: 20, 20240103: 0, 20240104: 40 });
      // Nothing else is left: the dataset's tables.
      const left = await t.db.rows<{ t: string }>(
        sql`SELECT tablename AS t FROM pg_tables WHERE schemaname = ${s} ORDER BY 1`,
      );
      expect(left.map((r) => r.t)).toEqual([...DATASET_TABLES].sort());
    });
  });

  it('applies an empty full load only when the definition allows it', async () => {
    const id = await createDeployedView(t.db, { ...VIEW, name: 'may-empty' });
    await reset(`(20240101, 'a', 1)`);
    await load(id);
    await t.db.rows(
      sql.raw(
        `UPDATE data_views SET definition = jsonb_set(definition, '{source,allowEmptyLoad}', 'true') WHERE id = ${id}`,
      ),
    );
    await source.exec('TRUNCATE sales');
    const { result } = await load(id);
    expect(result).toMatchObject({ mode: 'full', rows: 0 });
    expect((await snapshot(id)).intRows).toBe(0);
  });

  it(`refuses an incremental batch that drops more than ${MAX_DROPPED_DAYS} loaded days, and takes one that drops fewer`, async () => {
    const id = await createDeployedView(t.db, { ...VIEW, name: 'shrinking', loadMode: 'incremental' });
    const days = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, i) => `(${20240101 + from + i}, 'a', ${from + i})`).join(
        ', ',
      );
    await reset(days(0, 19)); // the 1st to the 20th
    await load(id);
    const before = await snapshot(id);
    // The source now answers only the 2nd: 18 loaded days from the 2nd on would vanish.
    await reset(`(20240102, 'a', 99)`);
    await expect(load(id)).rejects.toThrow(
      /would remove 18 loaded days it does not bring back \(at most 7 allowed\)/,
    );
    expect(await snapshot(id)).toEqual(before);
    // From the 13th: the 13th..20th are loaded (8 days), the batch brings the 13th only → 7 dropped, within the bound.
    await reset(`(20240113, 'a', 99)`);
    const { result } = await load(id);
    expect(result).toMatchObject({ mode: 'incremental', fromDate: '2024-01-13' });
  });

  it('names the columns the query lacks', async () => {
    const id = await createDeployedView(t.db, {
      ...VIEW,
      name: 'missing',
      loadQuery: 'SELECT day, amount FROM sales',
    });
    await reset(`(20240101, 'a', 1)`);
    await expect(load(id)).rejects.toThrow(
      'The load query returns no column shop (category); it returns day, amount.',
    );
  });

  it('writes the rows read so far into its job record while it reads, then the building phase', async () => {
    const id = await createDeployedView(t.db, { ...VIEW, name: 'progress' });
    const rows = Array.from({ length: 10 }, (_, i) => `(${20240101 + i}, 'a', ${i + 1})`).join(', ');
    await reset(rows);
    const job = (await insertJob(t.db, {
      dataViewId: id,
      kind: 'Load',
      trigger: 'manual',
      createdAt: new Date(),
    }))!;
    await t.db.rows(sql`UPDATE jobs SET status = 'running' WHERE id = ${job.id}`);
    // What the job record says each time the load asks the source for its next batch (of 2 rows).
    const seen: Array<ReturnType<typeof jobFigures>['progress']> = [];
    const watching: OpenSource = async (name) => {
      const real = await source.open(name);
      return {
        ...real,
        async *stream(text, opts) {
          for await (const batch of real.stream(text, opts)) {
            yield batch;
            seen.push(jobFigures((await findJob(t.db, job.id))!).progress);
          }
        },
        async *streamColumns(text, opts) {
          for await (const batch of real.streamColumns!(text, opts)) {
            yield batch;
            seen.push(jobFigures((await findJob(t.db, job.id))!).progress);
          }
        },
      };
    };
    const building: Array<ReturnType<typeof jobFigures>> = [];
    const { result } = await runLoad(
      { db: t.db, log: logger, openSource: watching, batchSize: 2, progressEveryMs: 0 },
      { ...job, status: 'running' },
      new AbortController().signal,
    );
    expect(result.rows).toBe(10);
    // After the third batch was handed over, at least the first batch's rows are recorded as read.
    const reading = seen.filter((p) => p?.phase === 'reading');
    expect(reading.length).toBeGreaterThanOrEqual(3);
    expect(reading.at(-1)).toMatchObject({ unit: 'rows', phase: 'reading' });
    expect(reading.at(-1)!.done).toBeGreaterThanOrEqual(6);
    const after = (await findJob(t.db, job.id))!;
    expect(after.detail).toMatchObject({ progress: { phase: 'building', done: 10, total: 10 } });
    building.push(jobFigures(after));
    expect(building[0].message).toBe('building the series from 10 rows');
    // Once the job has ended, the rows progress is no longer reported.
    expect(jobFigures({ ...after, status: 'finished' }).progress).toBeNull();
  });

  it('keeps its lease as it is over the build (no long lease: renewals run between the build statements)', async () => {
    const id = await createDeployedView(t.db, { ...VIEW, name: 'lease' });
    await reset(`(20240101, 'a', 1), (20240102, 'a', 2)`);
    const job = (await insertJob(t.db, {
      dataViewId: id,
      kind: 'Load',
      trigger: 'manual',
      createdAt: new Date(),
    }))!;
    const lease = new Date(Date.now() + 60_000);
    await t.db.rows(
      sql`UPDATE jobs SET status = 'running', attempts = 1, lease_until = ${lease.toISOString()}::timestamptz WHERE id = ${job.id}`,
    );
    await runLoad(
      { db: t.db, log: logger, openSource: source.open, batchSize: 2 },
      { ...job, status: 'running', attempts: 1 },
      new AbortController().signal,
    );
    expect((await findJob(t.db, job.id))!.leaseUntil!.getTime()).toBe(lease.getTime());
    expect(await renewLease(t.db, job.id, 1, new Date())).toBe(true);
  });
});

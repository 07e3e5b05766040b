import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../lib/config/config';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import { jobs } from '../../../lib/db/tables/jobs';
import { findJob, type JobRow } from '../../../lib/jobs/repository';
import { type RunnerDeps, runJobAttempt } from '../../../lib/jobs/runner';
import { loadJob, type LoadJobDeps, loadParts } from '../../../lib/pipeline/load-job';
import { combineSplitLoad, runLoadPart, type SplitDetail } from '../../../lib/pipeline/load-split';
import { readDeployedView } from '../../../lib/dataviews/scope';
import { systemCaller } from '../../../lib/identity/caller';
import type { OpenSource } from '../../../lib/pipeline/source';
import type { JobMessage, JobQueue } from '../../../lib/queue/port';
import { fixedClock } from '../../../lib/shared/clock';
import { logger, setLogLevel } from '../../../lib/shared/logger';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { createDeployedView, type ViewOptions } from '../../support/pipeline-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';

const VIEW: ViewOptions = {
  loadQuery: 'SELECT day, shop, channel, amount FROM sales ORDER BY day, shop, channel',
  categories: [{ name: 'shop' }, { name: 'channel' }],
  enabled: false,
};

/** 400 days from 2024-01-01 (4 chunks of 112 days), 3 shops × 2 channels, some combinations missing. */
const ROWS = `SELECT (to_char(DATE '2024-01-01' + d, 'YYYYMMDD'))::int, s, c, (d * 7 + length(s) * 3 + length(c)) % 50 + 1
  FROM generate_series(0, 399) d, unnest(ARRAY['north', 'south', 'east']) s, unnest(ARRAY['web', 'store']) c
  WHERE NOT (s = 'east' AND c = 'store' AND d < 200) AND (d + length(s)) % 17 <> 0`;

describe(`a full load split into parts on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  const clock = fixedClock('2024-05-01T10:00:00Z');
  const signal = new AbortController().signal;
  let sent: Array<{ queue: string; message: JobMessage }> = [];
  const queue = {
    backend: 'local',
    send: async (q: string, message: JobMessage) => {
      sent.push({ queue: q, message });
    },
    redeliver: async () => {},
  } as unknown as JobQueue;
  const deps = (splitRows: number, open?: OpenSource): LoadJobDeps => ({
    db: t.db,
    queue,
    clock,
    openSource: open ?? source.open,
    config: { jobs: { loadBatchSize: 50, loadSplitRows: splitRows, loadPartChunks: 1 } } as unknown as Config,
  });
  const runner = (): RunnerDeps => ({ db: t.db, clock, log: logger, maxAttempts: 1, timeoutSeconds: 600 });

  /** A load job through its worker's steps: the job's own message, then every part message sent. */
  const load = async (
    viewId: number,
    splitRows: number,
    open?: OpenSource,
    beforeParts?: (job: JobRow) => Promise<void>,
  ) => {
    sent = [];
    const [job] = await t.db.orm
      .insert(jobs)
      .values({ dataViewId: viewId, kind: 'Load', status: 'pending' })
      .returning();
    const c = deps(splitRows, open);
    const message = { jobId: job.id, dataViewId: viewId, kind: 'Load' as const };
    await runJobAttempt(runner(), message, (j, s) => loadJob(c, j, s), signal);
    const parts = sent.filter((m) => m.queue === 'load');
    if (beforeParts) await beforeParts((await findJob(t.db, job.id)) as JobRow);
    for (const { message: m } of parts) {
      if (!m.shard) throw new Error('not a part message');
      await loadParts(c)(runner(), { ...m, shard: m.shard }, 1, signal);
    }
    const [row] = await t.db.orm.select().from(jobs).where(eq(jobs.id, job.id));
    return { job: row, parts: parts.length };
  };

  /** What readers see of a view: data, days, all_series, cat_map (without codes) and int (by values). */
  const snapshot = async (viewId: number) => {
    const s = schemaNameFor(viewId);
    const q = (text: string) => t.db.rows(sql.raw(text));
    return {
      data: await q(`SELECT * FROM ${s}.data ORDER BY series_id, chunk`),
      days: await q(`SELECT * FROM ${s}.days ORDER BY day`),
      allSeries: await q(`SELECT * FROM ${s}.all_series ORDER BY series_id`),
      catMap: await q(
        `SELECT series_id, level, series_key, parent_series_id FROM ${s}.cat_map ORDER BY series_id`,
      ),
      int: await q(`SELECT i.day, ds.value AS shop, dc.value AS channel, i.value FROM ${s}."int" i
        JOIN ${s}.dict ds ON ds.category = 'shop' AND ds.code = i.k_shop
        JOIN ${s}.dict dc ON dc.category = 'channel' AND dc.code = i.k_channel
        ORDER BY 1, 2, 3`),
    };
  };

  beforeAll(async () => {
    setLogLevel('silent');
    t = await createTestDatabase();
    source = await createTestSource();
    await source.exec('CREATE TABLE sales (day integer, shop text, channel text, amount double precision)');
    await source.exec(`INSERT INTO sales ${ROWS}`);
  });
  afterAll(async () => {
    await source.stop();
    await t.drop();
  });

  it('gives the same series, days and rows as the load in one piece', async () => {
    const whole = await createDeployedView(t.db, { ...VIEW, name: 'whole' });
    const split = await createDeployedView(t.db, { ...VIEW, name: 'split' });
    const w = await load(whole, 0);
    expect(w).toMatchObject({ parts: 0, job: { status: 'finished' } });
    const p = await load(split, 1);
    expect(p.parts).toBe(4);
    expect(p.job).toMatchObject({ status: 'finished' });
    expect(p.job.detail).toMatchObject({ mode: 'full', series: (w.job.detail as { series: number }).series });
    const a = await snapshot(whole);
    const b = await snapshot(split);
    expect(a.data.length).toBeGreaterThan(0);
    expect(b).toEqual(a);
    // A second split load keeps every series id and gives the same again.
    await load(split, 1);
    expect(await snapshot(split)).toEqual(a);
  });

  it('a part delivered again (it wrote, then its worker stopped before counting) writes its rows once', async () => {
    const whole = await createDeployedView(t.db, { ...VIEW, name: 'whole2' });
    const again = await createDeployedView(t.db, { ...VIEW, name: 'again' });
    await load(whole, 0);
    const r = await load(again, 1, undefined, async (job) => {
      const view = await readDeployedView(systemCaller(), t.db, again);
      const split = (job.detail as { split: SplitDetail }).split;
      const d = { db: t.db, log: logger, openSource: source.open, batchSize: 50 };
      await runLoadPart(d, view, split, 1, signal);
      await runLoadPart(d, view, split, 2, signal);
    });
    expect(r.job.status).toBe('finished');
    expect(await snapshot(again)).toEqual(await snapshot(whole));
  });

  it('a combine delivered again (its worker stopped before the swap) builds and swaps once', async () => {
    const whole = await createDeployedView(t.db, { ...VIEW, name: 'whole3' });
    const again = await createDeployedView(t.db, { ...VIEW, name: 'combine-again' });
    await load(whole, 0);
    const r = await load(again, 1, undefined, async (job) => {
      const view = await readDeployedView(systemCaller(), t.db, again);
      const split = (job.detail as { split: SplitDetail }).split;
      const d = { db: t.db, log: logger, openSource: source.open, batchSize: 50 };
      for (let i = 0; i < split.parts.length; i++) await runLoadPart(d, view, split, i, signal);
      const stop = (step: string) => {
        if (step === 'swap') throw new Error('worker stopped');
      };
      await expect(combineSplitLoad({ ...d, onBuildStep: stop }, job, view, split, signal)).rejects.toThrow(
        'worker stopped',
      );
    });
    expect(r.job.status).toBe('finished');
    expect(await snapshot(again)).toEqual(await snapshot(whole));
  });

  it('stays one piece below the threshold', async () => {
    const id = await createDeployedView(t.db, { ...VIEW, name: 'small' });
    expect(await load(id, 1_000_000)).toMatchObject({ parts: 0, job: { status: 'finished' } });
  });

  it('a part that fails fails the load and leaves the previous data', async () => {
    const id = await createDeployedView(t.db, { ...VIEW, name: 'failing' });
    await load(id, 1);
    const before = await snapshot(id);
    // The third part's read fails at the source (the parts read their days with a predicate).
    let partReads = 0;
    const failing: OpenSource = async (name) => {
      const real = await source.open(name);
      return {
        ...real,
        stream: (text, opts) =>
          text.includes('WHERE q.') && ++partReads === 3
            ? real.stream('SELECT 1 / 0 AS day', opts)
            : real.stream(text, opts),
        streamColumns: (text, opts) =>
          text.includes('WHERE q.') && ++partReads === 3
            ? real.streamColumns!('SELECT 1 / 0 AS day', opts)
            : real.streamColumns!(text, opts),
      };
    };
    await source.exec('UPDATE sales SET amount = amount + 1000');
    const r = await load(id, 1, failing);
    expect(r.parts).toBe(4);
    expect(r.job.status).toBe('failed');
    expect(await snapshot(id)).toEqual(before);
    const left = await t.db.rows<{ n: number }>(
      sql.raw(
        `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = '${schemaNameFor(id)}' AND tablename LIKE 'build_%'`,
      ),
    );
    expect(Number(left[0].n)).toBe(0);
    await source.exec('UPDATE sales SET amount = amount - 1000');
  });
});

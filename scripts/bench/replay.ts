/**
 * A replay of the hotel view beside one detection cycle of the same view, on PostgreSQL: the hotel cube
 * of the contributions bench (3,978 series × 3 years, value and count), with every detector type at its
 * defaults (as scripts/eval.ts --hotel defines it). It copies bench_contributions_hotel (`npm run bench --
 * contributions` creates it) into bench_replay_hotel once, then runs in one process, unfanned
 * (DETECTION_FAN_OUT=off, one worker as a replay runs):
 *   1. a detection cycle as the process worker runs it (lib/app/workers.ts processCycle: detection,
 *      publish, then incidents, summaries and alerts), timed per phase;
 *   2. a replay of the same definition with DOD at 20 % instead of its default 30 % (lib/app/workers.ts replayCycle:
 *      detection in memory, the difference, the incidents of both sides).
 * `DATABASE_URL=postgres://… npm run bench -- replay [--runs N] [--no-write]`
 */
import { execSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { buildContainer } from '../../lib/app/container';
import { processCycle, replayCycle } from '../../lib/app/workers';
import { loadConfig } from '../../lib/config/config';
import { connectDatabase } from '../../lib/db/connect';
import { DETECTOR_TYPES } from '../../lib/dataviews/definition/detector-params';
import type { DataViewDefinition } from '../../lib/dataviews/definition/index';
import { finishJob, insertJob, type JobRow } from '../../lib/jobs/repository';
import { insertReplay, readReplayRow } from '../../lib/replay/store';
import type { ReplayResult } from '../../lib/replay/types';
import { generateMasterKey } from '../../lib/secrets/index';
import { setLogLevel } from '../../lib/shared/logger';
import { writeSection } from './report';

const TEMPLATE = 'bench_contributions_hotel';
const DB_NAME = 'bench_replay_hotel';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export async function benchReplay(args: string[]): Promise<void> {
  setLogLevel('warn');
  const serverUrl = loadConfig().databaseUrl;
  if (!serverUrl) throw new Error(`the replay benchmark needs DATABASE_URL (it creates ${DB_NAME} there)`);
  const runs = Number(args[args.indexOf('--runs') + 1]) || 2;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const has = async (name: string) =>
    (await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`).length > 0;
  if (!(await has(DB_NAME))) {
    if (!(await has(TEMPLATE)))
      throw new Error(
        `no ${TEMPLATE}: run \`npm run bench -- contributions\` first (it loads the hotel cube)`,
      );
    await admin.unsafe(`CREATE DATABASE ${DB_NAME} TEMPLATE ${TEMPLATE}`);
  }
  const server = (await admin`SHOW server_version`)[0].server_version as string;
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${DB_NAME}`;
  const db = await connectDatabase({ databaseUrl: url.toString(), migrate: true, maxConnections: 5 });
  const [view] = await db.rows<{ id: number; definition: DataViewDefinition }>(
    sql`SELECT id, definition FROM data_views ORDER BY id LIMIT 1`,
  );
  const id = Number(view.id);
  const definition: DataViewDefinition = {
    ...view.definition,
    analysis: {
      ...view.definition.analysis,
      detectors: DETECTOR_TYPES.map((type) => ({ type, params: {} })),
    } as DataViewDefinition['analysis'],
  };
  await db.rows(
    sql`UPDATE data_views SET definition = ${JSON.stringify(definition)}::jsonb WHERE id = ${id}`,
  );
  const container = await buildContainer(
    loadConfig({
      DATABASE_URL: url.toString(),
      JWT_SECRET: 'bench-secret-that-is-long-enough-for-hs256',
      MASTER_KEY: generateMasterKey(),
      LOG_LEVEL: 'silent',
      DETECTION_FAN_OUT: 'off',
    }),
    { db, queue: { backend: 'local', send: async () => {}, redeliver: async () => {} } },
  );
  const job = async (kind: 'Process' | 'Replay') => {
    const row = await insertJob(db, {
      dataViewId: id,
      kind,
      trigger: 'api',
      requestedBy: 'bench',
      createdAt: new Date(),
    });
    if (!row) throw new Error(`a ${kind} job of view ${id} is still active: finish it first`);
    return row as JobRow;
  };
  const signal = new AbortController().signal;
  const loadBefore = loadavg()[0];
  const cycles: Array<Record<string, number>> = [];
  const replays: Array<{ ms: number; result: ReplayResult }> = [];
  const changed = structuredClone(definition);
  const dod = changed.analysis.detectors.find((d) => d.type === 'dod') as unknown as {
    params: Record<string, unknown>;
  };
  dod.params = { ...dod.params, percentualChange: 20 };
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const p = await job('Process');
    const detail = (await processCycle(container, p, signal)) as Record<string, unknown>;
    const ms = performance.now() - t0;
    await finishJob(db, p.id, new Date(), detail);
    const hook = (name: string) => Number((detail[name] as { ms?: number } | undefined)?.ms ?? 0);
    const cycle = {
      ms,
      readMs: Number(detail.readMs ?? 0),
      detectMs: Number(detail.detectMs ?? 0),
      writeMs: Number(detail.writeMs ?? 0),
      publishMs: Number(detail.publishMs ?? 0),
      incidentsMs: hook('incidents'),
      anomalies: Number(detail.anomalies ?? 0),
    };
    cycles.push(cycle);
    console.log(`cycle ${i + 1}: ${s(ms)} ${JSON.stringify(cycle)}`);

    const r = await job('Replay');
    await insertReplay(db, r.id, id, changed);
    const t1 = performance.now();
    const rdetail = await replayCycle(container, r, signal);
    const rms = performance.now() - t1;
    await finishJob(db, r.id, new Date(), rdetail);
    const result = (await readReplayRow(db, r.id))?.result as ReplayResult;
    replays.push({ ms: rms, result });
    const c = result.counts;
    const ic = result.incidents.counts;
    console.log(
      `replay ${i + 1}: ${s(rms)} (read ${s(result.run.readMs)}, detect ${s(result.run.detectMs)}); ` +
        `${c.added} added, ${c.removed} removed, ${c.changed} changed of ${c.before}; ` +
        `incidents ${ic.added} added, ${ic.removed} removed, ${ic.changed} changed of ${ic.before}`,
    );
  }
  const load = `${loadBefore.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`;
  await db.close();
  if (args.includes('--no-write')) return;

  const machine = `${execSync('nproc').toString().trim()} cores, ${execSync("lscpu | grep 'Model name' | sed 's/.*: *//'").toString().trim()}`;
  const m = (k: string) => median(cycles.map((c) => c[k]));
  const last = replays[replays.length - 1].result;
  const run = last.run;
  const rm = median(replays.map((r) => r.ms));
  const rRead = median(replays.map((r) => r.result.run.readMs));
  const rDetect = median(replays.map((r) => r.result.run.detectMs));
  const rDiff = median(replays.map((r) => r.ms - r.result.run.ms));
  const lines = [
    `Hotel view on PostgreSQL ${server} (\`npm run bench -- replay\`, scripts/bench/replay.ts; ${machine}; load average ${load};`,
    `median of ${runs}): ${run.series.toLocaleString('en')} series × ${run.days} days, value and count, the ${definition.analysis.detectors.length} detector types at their`,
    'defaults, unfanned (`DETECTION_FAN_OUT=off`: one worker, as a replay runs). The replay changes DOD from 30 % (its default) to 20 %.',
    '',
    '| | read | detect | write | publish | incidents (a cycle: grouped, explained, stored) | total |',
    '|---|---|---|---|---|---|---|',
    `| a detection cycle (${m('anomalies')} anomalies) | ${s(m('readMs'))} | ${s(m('detectMs'))} | ${s(m('writeMs'))} | ${s(m('publishMs'))} | ${s(m('incidentsMs'))} | ${s(m('ms'))} |`,
    `| its replay (${last.counts.added} added, ${last.counts.removed} removed, ${last.counts.changed} changed; incidents ${last.incidents.counts.added} added, ${last.incidents.counts.removed} removed, ${last.incidents.counts.changed} changed of ${last.incidents.counts.before}) | ${s(rRead)} | ${s(rDetect)} | — | — | ${s(rDiff)} (difference and regrouping) | ${s(rm)} |`,
  ];
  const block = lines.join('\n');
  writeSection('bench-replay-hotel', block);
  console.log(block);
}

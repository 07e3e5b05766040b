/**
 * The daily cycle of the end-to-end bench (issue 45): after the first load and detection, the view's
 * custom load brings the last DAILY_DAYS days again (`POST …/jobs/custom-load`), and the detection it
 * queues runs; measured from the request to detection finished, split by the job records' times into
 * the queue hop before the load, the load, the wait of the process job after it, and the process job.
 */
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import type { Usage } from '../local/billing';
import { cycleUsage, readUsage, settledUsage, usageLine } from './e2e-usage';

/** Days the daily cycle's custom load brings again. */
export const DAILY_DAYS = 3;

type Reply = { status: number; body: any; ms: number };
type Call = (method: string, p: string, body?: unknown) => Promise<Reply>;

export interface DailyCycle {
  /** Milliseconds from POST custom-load to detection finished (null when it did not finish). */
  totalMs: number | null;
  /** POST → the load job started (the queue hop). */
  toLoadMs: number | null;
  /** The load job, started → finished. */
  loadMs: number | null;
  /** The load finished → the process job first seen running (polled every 50 ms; a free worker should take it at once). */
  waitMs: number | null;
  /** The process job, started → finished (detection, publish, the after-cycle hooks). */
  processMs: number | null;
  load: Record<string, unknown> | null;
  process: Record<string, unknown> | null;
  loadAvg: [string, string];
  /** The cycle as AWS would bill the workers (GB-s per function). */
  usage: Usage | null;
}

/** When job `id` was first seen running (polled every 50 ms; null when it ended unseen or took 30 minutes). */
async function firstRun(call: Call, id: number): Promise<string | null> {
  const until = Date.now() + 1_800_000;
  while (Date.now() < until) {
    const r = await call('GET', `/api/v1/jobs/${id}`).catch(() => undefined);
    const status = r?.status === 200 ? r.body?.status : undefined;
    if (status === 'running') return new Date().toISOString();
    if (status === 'finished' || status === 'failed') return null;
    await new Promise((res) => setTimeout(res, 50));
  }
  return null;
}

const ms = (a: string | null | undefined, b: string | null | undefined) =>
  a && b ? Date.parse(b) - Date.parse(a) : null;

/** Runs `runs` daily cycles on view `id` one after the other; failures are appended to `failures`. */
export async function dailyCycles(
  call: Call,
  id: number,
  waitJob: (jobId: number) => Promise<any>,
  failures: string[],
  runs: number,
  dataDir: string,
): Promise<DailyCycle[]> {
  const out: DailyCycle[] = [];
  for (let i = 0; i < runs; i++) {
    const la0 = os.loadavg()[0].toFixed(1);
    const t0 = performance.now();
    const usage0 = readUsage(dataDir);
    const posted = new Date().toISOString();
    const r = await call('POST', `/api/v1/dataviews/${id}/jobs/custom-load`);
    if (r.status >= 300) {
      failures.push(`daily custom load: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      break;
    }
    const loaded = await waitJob(r.body.id);
    let processed: any = null;
    let firstRunning: string | null = null;
    if (loaded.status !== 'finished') failures.push(`daily load ${loaded.status}: ${loaded.error ?? ''}`);
    else if (typeof loaded.detail?.processJobId === 'number') {
      // A fanned-out job's startedAt moves with each finished shard: its first start is seen by polling.
      firstRunning = await firstRun(call, loaded.detail.processJobId);
      processed = await waitJob(loaded.detail.processJobId);
      if (processed.status !== 'finished')
        failures.push(`daily detection ${processed.status}: ${processed.error ?? ''}`);
    }
    const done = processed?.status === 'finished';
    const usage = done ? cycleUsage(usage0, await settledUsage(dataDir)) : null;
    out.push({
      usage,
      totalMs: done ? performance.now() - t0 : null,
      toLoadMs: ms(posted, loaded.startedAt),
      loadMs: ms(loaded.startedAt, loaded.finishedAt),
      waitMs: processed ? ms(loaded.finishedAt, firstRunning) : null,
      processMs: processed ? ms(firstRunning, processed.finishedAt) : null,
      load: loaded.detail ?? null,
      process: processed?.detail ?? null,
      loadAvg: [la0, os.loadavg()[0].toFixed(1)],
    });
    if (!done) break;
  }
  return out;
}

const s2 = (v: number | null) => (v === null ? '–' : (v / 1000).toFixed(2));

/** What the process detail says of where the time went: read, detect, publish, each hook. */
function processParts(d: Record<string, unknown> | null): string {
  if (!d) return '–';
  const part = (k: string) => (typeof d[k] === 'number' ? `${k.replace(/Ms$/, '')} ${d[k]}` : null);
  const hook = (k: string) => {
    const h = d[k] as Record<string, unknown> | undefined;
    return h && typeof h.ms === 'number' ? `${k} ${h.ms}` : h && 'error' in h ? `${k} failed` : null;
  };
  return [
    ...['readMs', 'detectMs', 'writeMs', 'publishMs'].map(part),
    ...['incidents', 'summaries', 'alerts'].map(hook),
  ]
    .filter((x) => x !== null)
    .join(', ');
}

/** The daily cycles' table rows for the report (label: the run's service database and settings). */
export function dailyRows(label: string, cycles: readonly DailyCycle[]): string[] {
  return cycles.map(
    (c, i) =>
      `| ${label} | ${i + 1} | **${s2(c.totalMs)}** | ${s2(c.toLoadMs)} | ${s2(c.loadMs)} | ${s2(c.waitMs)} | ${s2(c.processMs)} | ${JSON.stringify(c.load?.buildSteps ?? null)} | ${processParts(c.process)} | ${c.loadAvg.join(' / ')} |`,
  );
}

export const DAILY_HEADER = [
  `Daily cycle: \`POST …/jobs/custom-load\` of the last ${DAILY_DAYS} days again → detection finished (target ≤ 2 s on PostgreSQL, ≤ 4 s embedded; times in seconds, from the job records; process parts in ms).`,
  '',
  '| service database | cycle | request → detection finished | request → load started | load | load finished → process seen running | process job (shards, publish, hooks) | load build steps (ms) | process parts (ms) | load avg start / end |',
  '|---|---:|---:|---:|---:|---:|---:|---|---|---|',
];

/** The daily cycles' billed usage, a line each. */
export function dailyUsageLines(label: string, cycles: readonly DailyCycle[]): string[] {
  return cycles.map((c, i) => `- ${label}, daily cycle ${i + 1}: ${usageLine(c.usage)}`);
}

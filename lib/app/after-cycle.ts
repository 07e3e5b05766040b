/**
 * What runs after a detection cycle published its anomalies: the hooks that lib/app/workers.ts lists
 * (summaries, alerts, …), run by one wrapper. The process job publishes and returns; it never knows who
 * reads what it published. The wrapper reads the view once for every hook, runs the hooks in list order
 * (a hook sees what the earlier ones produced), gives them what is left of the job's time, logs, and keeps
 * each failure to its hook: the detection is published already, so nothing here may fail the job.
 */
import type { DataViewRecord } from '../dataviews/views';
import type { JobRow } from '../jobs/repository';
import { errorText } from '../jobs/runner';
import type { Logger } from '../shared/logger';

export interface AfterCycleContext {
  /** The view the cycle published anomalies of, read once for all hooks. */
  view: DataViewRecord;
  job: JobRow;
  /** Fires when the job's time is spent (or the job is cancelled): a hook stops its work there. */
  signal: AbortSignal;
  log: Logger;
  /** What each earlier hook of the list returned, by hook name (absent when it failed or was skipped). */
  earlier: Readonly<Record<string, unknown>>;
}

export interface AfterCycleHook {
  /** The key of the hook's outcome in the job detail and in `earlier`. */
  name: string;
  run(ctx: AfterCycleContext): Promise<unknown>;
}

export interface AfterCycleDeps {
  /** The view by id as the system reads it; undefined when it was deleted meanwhile. */
  readView(id: number): Promise<DataViewRecord | undefined>;
  log: Logger;
}

/** A hook's outcome in the job detail when it failed or did not run: the job itself still finished. */
export interface HookFailure {
  error: string;
}

/** Rejects when `signal` fires, with the reason the job gives (its time bound, a cancel). */
function whenAborted(signal: AbortSignal): { promise: Promise<never>; dispose: () => void } {
  let dispose = () => {};
  const promise = new Promise<never>((_, reject) => {
    const onAbort = () => reject(signal.reason ?? new Error('the job was stopped'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    dispose = () => signal.removeEventListener('abort', onAbort);
  });
  promise.catch(() => {});
  return { promise, dispose };
}

/**
 * Runs `hooks` in order after `job` published, and answers their outcomes by name for the job detail.
 * A hook that throws, or is still running when the job's time runs out, is reported as `{error}` and
 * the next hook runs (or is reported as not run when no time is left).
 */
export async function runAfterCycle(
  deps: AfterCycleDeps,
  hooks: readonly AfterCycleHook[],
  job: JobRow,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const log = deps.log.child({ jobId: job.id, dataViewId: job.dataViewId });
  const outcomes: Record<string, unknown> = {};
  if (hooks.length === 0) return outcomes;
  let view: DataViewRecord | undefined;
  try {
    view = await deps.readView(job.dataViewId);
  } catch (e) {
    log.error('after-cycle hooks not run: the view could not be read', { error: e });
    for (const hook of hooks) outcomes[hook.name] = { error: errorText(e) } satisfies HookFailure;
    return outcomes;
  }
  // A view deleted since it was published has no one left to tell.
  if (!view) return outcomes;
  const earlier: Record<string, unknown> = {};
  for (const hook of hooks) {
    if (signal.aborted) {
      const error = `not run: ${errorText(signal.reason ?? 'the job was stopped')}`;
      log.warn('after-cycle hook not run: no time left', { hook: hook.name });
      outcomes[hook.name] = { error } satisfies HookFailure;
      continue;
    }
    const started = Date.now();
    const stop = whenAborted(signal);
    try {
      const ctx = { view, job, signal, log: log.child({ hook: hook.name }), earlier: { ...earlier } };
      const result = await Promise.race([hook.run(ctx), stop.promise]);
      earlier[hook.name] = result;
      outcomes[hook.name] = result;
      log.info('after-cycle hook done', { hook: hook.name, ms: Date.now() - started });
    } catch (e) {
      log.error('after-cycle hook failed', { hook: hook.name, ms: Date.now() - started, error: e });
      outcomes[hook.name] = { error: errorText(e) } satisfies HookFailure;
    } finally {
      stop.dispose();
    }
  }
  return outcomes;
}

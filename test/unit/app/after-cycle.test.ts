import { describe, expect, it } from 'vitest';
import { type AfterCycleHook, runAfterCycle } from '../../../lib/app/after-cycle';
import type { DataViewRecord } from '../../../lib/dataviews/views';
import type { JobRow } from '../../../lib/jobs/repository';
import { logger } from '../../../lib/shared/logger';

const VIEW = { id: 7, domain: 'retail', name: 'shop', title: 'retail / shop' } as DataViewRecord;
const JOB = { id: 41, dataViewId: 7, kind: 'Process', status: 'running' } as unknown as JobRow;

/** A reader of the one view that counts how often it is asked. */
function reader(view: DataViewRecord | undefined) {
  const asked: number[] = [];
  return {
    asked,
    deps: {
      log: logger,
      readView: async (id: number) => {
        asked.push(id);
        return view;
      },
    },
  };
}

const never = () => new Promise<never>(() => {});

describe('the after-cycle hooks of a published detection cycle', () => {
  it('run in list order, each seeing what the earlier ones returned, over one read of the view', async () => {
    // Prepare
    const { deps, asked } = reader(VIEW);
    const seen: string[] = [];
    const hooks: AfterCycleHook[] = [
      { name: 'incidents', run: async ({ view }) => [`incident of ${view.title}`] },
      {
        name: 'alerts',
        run: async ({ earlier }) => {
          seen.push(...(earlier.incidents as string[]));
          return { sent: 1 };
        },
      },
      { name: 'summaries', run: async ({ earlier }) => Object.keys(earlier) },
    ];
    // Act
    const outcomes = await runAfterCycle(deps, hooks, JOB, new AbortController().signal);
    // Assess
    expect(asked).toEqual([7]);
    expect(seen).toEqual(['incident of retail / shop']);
    expect(outcomes).toEqual({
      incidents: ['incident of retail / shop'],
      alerts: { sent: 1 },
      summaries: ['incidents', 'alerts'],
    });
  });

  it('keep a failing hook to itself: the next hooks run and the failure is its outcome', async () => {
    const { deps } = reader(VIEW);
    const hooks: AfterCycleHook[] = [
      {
        name: 'summaries',
        run: async () => {
          throw new Error('model endpoint down');
        },
      },
      { name: 'alerts', run: async ({ earlier }) => ({ earlierSummaries: 'summaries' in earlier }) },
    ];
    const outcomes = await runAfterCycle(deps, hooks, JOB, new AbortController().signal);
    expect(outcomes).toEqual({
      summaries: { error: 'model endpoint down' },
      alerts: { earlierSummaries: false },
    });
  });

  it('stop waiting for a hook when the job runs out of time, and report the hooks left as not run', async () => {
    const { deps } = reader(VIEW);
    const budget = new AbortController();
    let signalled = false;
    const hooks: AfterCycleHook[] = [
      {
        name: 'alerts',
        run: ({ signal }) => {
          signal.addEventListener('abort', () => {
            signalled = true;
          });
          setTimeout(() => budget.abort(new Error('the job timed out after 900 s')), 5);
          return never();
        },
      },
      { name: 'summaries', run: async () => 'ran' },
    ];
    const outcomes = await runAfterCycle(deps, hooks, JOB, budget.signal);
    expect(signalled).toBe(true);
    expect(outcomes).toEqual({
      alerts: { error: 'the job timed out after 900 s' },
      summaries: { error: 'not run: the job timed out after 900 s' },
    });
  });

  it('run nothing for a view deleted since it was published', async () => {
    const { deps } = reader(undefined);
    let ran = false;
    const hooks: AfterCycleHook[] = [
      {
        name: 'alerts',
        run: async () => {
          ran = true;
        },
      },
    ];
    expect(await runAfterCycle(deps, hooks, JOB, new AbortController().signal)).toEqual({});
    expect(ran).toBe(false);
  });

  it('report every hook as failed when the view cannot be read, and never throw', async () => {
    const deps = {
      log: logger,
      readView: async () => {
        throw new Error('connection refused');
      },
    };
    const hooks: AfterCycleHook[] = [
      { name: 'summaries', run: async () => 'ran' },
      { name: 'alerts', run: async () => 'ran' },
    ];
    expect(await runAfterCycle(deps, hooks, JOB, new AbortController().signal)).toEqual({
      summaries: { error: 'connection refused' },
      alerts: { error: 'connection refused' },
    });
  });
});

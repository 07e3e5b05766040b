import { describe, expect, it } from 'vitest';
import { deadline } from '../../../lib/shared/deadline';

const aborted = (s: AbortSignal) =>
  new Promise<unknown>((r) => s.addEventListener('abort', () => r(s.reason)));

describe('deadline', () => {
  it('aborts with a TimeoutError when its time is up', async () => {
    const d = deadline(20);
    expect(d.signal.aborted).toBe(false);
    const reason = (await aborted(d.signal)) as DOMException;
    expect(reason.name).toBe('TimeoutError');
  });

  it('aborts at once with the reason of the outer signal', async () => {
    const outer = new AbortController();
    const d = deadline(60_000, outer.signal);
    outer.abort(new Error('job time is up'));
    expect(d.signal.aborted).toBe(true);
    expect((d.signal.reason as Error).message).toBe('job time is up');
    d.clear();
    const already = deadline(60_000, outer.signal);
    expect(already.signal.aborted).toBe(true);
  });

  it('never aborts once cleared, and lets go of the outer signal', async () => {
    const outer = new AbortController();
    const d = deadline(10, outer.signal);
    d.clear();
    await new Promise((r) => setTimeout(r, 40));
    outer.abort();
    expect(d.signal.aborted).toBe(false);
  });
});

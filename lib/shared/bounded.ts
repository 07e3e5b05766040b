/** Running many independent calls a few at a time, stopping when a signal ends the time they were given. */

/**
 * Calls `fn` on every item with at most `limit` calls at once, in the items' order; once `signal` is aborted
 * no further call starts and the items not started get `skipped(item)` instead. Never rejects: `fn` handles
 * its own failures.
 */
export async function forEachBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
  skipped: (item: T) => R,
  signal?: AbortSignal,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = signal?.aborted ? skipped(items[i]) : await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return out;
}

/** Items taken one per key in turn (a, b, c, a, b, a …): no key's many items wait ahead of another key's first. */
export function roundRobin<T>(items: readonly T[], key: (item: T) => unknown): T[] {
  const groups = new Map<unknown, T[]>();
  for (const item of items) {
    const k = key(item);
    const g = groups.get(k);
    if (g) g.push(item);
    else groups.set(k, [item]);
  }
  const queues = [...groups.values()];
  const out: T[] = [];
  for (let round = 0; out.length < items.length; round++)
    for (const q of queues) if (round < q.length) out.push(q[round]);
  return out;
}

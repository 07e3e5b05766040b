/**
 * A signal that aborts after `ms` or when `outer` aborts, whichever comes first.
 *
 * Not `AbortSignal.any([AbortSignal.timeout(ms), outer])`: on Node 20 and 22 a timeout signal that only
 * a composite refers to can be garbage-collected before it fires (nodejs/node#57736), and the composite
 * then never aborts on time (a webhook that never answered held the alerts of a cycle for their whole
 * budget). Here the timer holds the controller; `clear` stops the timer and lets go of `outer`.
 */
export interface Deadline {
  signal: AbortSignal;
  clear(): void;
}

export function deadline(ms: number, outer?: AbortSignal): Deadline {
  const own = new AbortController();
  if (outer?.aborted) {
    own.abort(outer.reason);
    return { signal: own.signal, clear() {} };
  }
  const onOuter = () => own.abort(outer?.reason);
  outer?.addEventListener('abort', onOuter, { once: true });
  const timer = setTimeout(
    () => own.abort(new DOMException(`The operation timed out after ${ms} ms.`, 'TimeoutError')),
    ms,
  );
  return {
    signal: own.signal,
    clear() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    },
  };
}

/**
 * The deadline of one HTTP request: an AbortSignal that fires DEADLINE_MARGIN_MS before the Lambda
 * function's own timeout (its context's remaining time), so that work a route started on another system
 * (a source query) is cancelled while there is still time to answer with a problem. No deadline without
 * a Lambda context (tests, the local gateway): the work's own bounds apply.
 */

interface LambdaContextLike {
  getRemainingTimeInMillis?: () => number;
}

/** Time kept back from the function's timeout to cancel the work and answer. */
export const DEADLINE_MARGIN_MS = 3_000;

export function requestDeadline(context: unknown): { signal?: AbortSignal; clear: () => void } {
  const remaining = (context as LambdaContextLike | undefined)?.getRemainingTimeInMillis?.();
  if (typeof remaining !== 'number' || !Number.isFinite(remaining)) return { clear: () => {} };
  const ac = new AbortController();
  const timer = setTimeout(
    () => ac.abort(new Error('the request ran out of time')),
    Math.max(0, remaining - DEADLINE_MARGIN_MS),
  );
  return { signal: ac.signal, clear: () => clearTimeout(timer) };
}

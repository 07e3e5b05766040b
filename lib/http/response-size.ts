/**
 * The 6 MB bound of a Lambda response: a synchronous invocation answers at most 6 MB (6,291,456 bytes) of
 * payload, the JSON of the whole result, and API Gateway turns a larger one into a bare 502. An answer
 * past MAX_RESPONSE_BYTES is refused here instead, as a 413 problem that tells the caller how to ask for less.
 */
import { HttpStatusError } from './problem';

/** Below the 6,291,456 bytes of the Lambda limit, with room for what the middlewares add (headers). */
export const MAX_RESPONSE_BYTES = 6_000_000;

/** JSON escapes at most six bytes for one (a control character as \u00XX). */
const WORST_ESCAPE = 6;

/** A Lambda HTTP result: status, headers and a string body. */
interface Sized {
  body?: string;
}

/** The size of the payload the Lambda runtime sends for `result`. */
export function payloadBytes(result: Sized): number {
  return Buffer.byteLength(JSON.stringify(result));
}

/** Throws a 413 when `result` would not fit in a Lambda response. */
export function assertFitsResponse(result: Sized): void {
  if (result.body === undefined) return;
  const bodyBytes = Buffer.byteLength(result.body);
  if (bodyBytes * WORST_ESCAPE < MAX_RESPONSE_BYTES - 64 * 1024) return;
  const bytes = payloadBytes(result);
  if (bytes <= MAX_RESPONSE_BYTES) return;
  const mb = (n: number) => `${(n / 1_000_000).toFixed(1)} MB`;
  throw new HttpStatusError(
    413,
    `The answer would be ${mb(bytes)}, more than the ${mb(MAX_RESPONSE_BYTES)} one response can carry. Ask for less: a page (offset= and pageSize=, where the route has them), a shorter time range or fewer data views, or without members.`,
  );
}

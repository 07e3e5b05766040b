/**
 * A `fetch` for outbound calls over node:http(s). The connection resolves the host itself and refuses any
 * address the policy refuses, so the address checked is the address connected to (no DNS rebinding between
 * the check and the connection); redirects are never followed. The answer is read up to `maxBytes` only: past
 * it the connection is dropped and the call fails (or, with `truncate`, answers the bytes read), so an endless
 * or huge answer costs at most that much memory; the signal bounds the whole call, the body included.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { addressRefusal, type EndpointPolicy, type Resolve, systemResolve } from './endpoint-guard';

export interface FetchLimits {
  /** The most bytes of an answer read (default 1 MiB). */
  maxBytes?: number;
  /** Past `maxBytes`, answer what was read instead of failing (the caller needs the status only). */
  truncate?: boolean;
  resolve?: Resolve;
}

/** An answer longer than the limit. */
export class AnswerTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes`);
    this.name = 'AnswerTooLargeError';
  }
}

type LookupCallback = (
  err: Error | null,
  address?: string | Array<{ address: string; family: number }>,
  family?: number,
) => void;

export function pinnedFetch(policy: EndpointPolicy, limits: FetchLimits = {}): typeof fetch {
  const resolve = limits.resolve ?? systemResolve;
  const maxBytes = limits.maxBytes ?? 1024 * 1024;
  const lookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
    resolve(hostname).then(
      (addresses) => {
        for (const a of addresses) {
          const why = addressRefusal(a, policy);
          if (why) return callback(new Error(`the endpoint ${why}`));
        }
        if (addresses.length === 0) return callback(new Error(`${hostname} does not resolve`));
        if (options.all)
          callback(
            null,
            addresses.map((address) => ({ address, family: isIP(address) })),
          );
        else callback(null, addresses[0], isIP(addresses[0]));
      },
      (e: Error) => callback(e),
    );
  };
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const client = url.protocol === 'https:' ? https : http;
    // An IP literal is connected to without a lookup: it is checked here.
    const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const refused = isIP(literal) ? addressRefusal(literal, policy) : undefined;
    if (refused) throw new Error(`the endpoint ${refused}`);
    const signal = init.signal ?? undefined;
    return new Promise<Response>((done, fail) => {
      let settled = false;
      const settle = (f: () => void) => {
        if (settled) return;
        settled = true;
        f();
      };
      // An aborted call fails with the signal's reason (a TimeoutError for AbortSignal.timeout).
      const failWith = (e: unknown) => settle(() => fail(signal?.aborted ? signal.reason : e));
      const req = client.request(
        url,
        {
          method: init.method ?? 'GET',
          headers: init.headers as Record<string, string> | undefined,
          lookup: lookup as never,
          signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const answer = () => {
            const headers = new Headers();
            for (const [k, v] of Object.entries(res.headers))
              if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
            const status = res.statusCode ?? 502;
            const empty = [204, 205, 304].includes(status);
            settle(() => done(new Response(empty ? null : Buffer.concat(chunks), { status, headers })));
          };
          res.on('data', (c: Buffer) => {
            if (settled) return;
            if (size + c.length > maxBytes) {
              chunks.push(c.subarray(0, maxBytes - size));
              size = maxBytes;
              if (limits.truncate) answer();
              else failWith(new AnswerTooLargeError(maxBytes));
              req.destroy();
              return;
            }
            chunks.push(c);
            size += c.length;
          });
          res.on('end', answer);
          res.on('error', failWith);
          res.on('close', () => {
            if (!res.complete) failWith(new Error('the connection closed before the answer ended'));
          });
        },
      );
      req.on('error', failWith);
      if (typeof init.body === 'string') req.write(init.body);
      req.end();
    });
  }) as typeof fetch;
}

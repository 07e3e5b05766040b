/**
 * The local event source of `npm start` (scripts/local/event-source.ts) refuses what it was not made for,
 * started for real on 127.0.0.1 in front of an upstream that holds every invocation: a function name that
 * is not valid percent-encoding is a 400 (it used to throw an uncaught URIError that ended the process),
 * an unknown function a 404, a body past the cap a 413, and past the queue cap a 503 with Retry-After.
 * After each refusal the source still accepts and delivers a valid invocation.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type LocalEventSource,
  MAX_INVOCATION_BYTES,
  MAX_QUEUED_PER_FUNCTION,
  startLocalEventSource,
} from '../../../scripts/local/event-source';

/** An upstream that counts invocations and never answers them (so the source's queue fills). */
async function holdingUpstream(): Promise<{ url: string; received: string[]; close(): Promise<void> }> {
  const received: string[] = [];
  const server = http.createServer((req) => {
    received.push(req.url ?? '');
    req.resume();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** One raw POST (the path as written, no client-side normalising); resolves to the status and headers. */
function post(
  base: string,
  path: string,
  body: Buffer | string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const invoke = (fn: string) => `/2015-03-31/functions/${fn}/invocations`;

describe('the local event source refuses bad invocations and stays up', () => {
  let source: LocalEventSource | undefined;
  let up: Awaited<ReturnType<typeof holdingUpstream>> | undefined;
  afterEach(async () => {
    await source?.close();
    await up?.close();
  });

  it('answers 400 for a name that is not percent-encoding, 404 for an unknown function, then still works', async () => {
    up = await holdingUpstream();
    source = await startLocalEventSource({ upstream: up.url, concurrency: 1, functions: ['loadWorker'] });
    const bad = await post(source.url, invoke('%E0'), '{}');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text).message).toContain('percent-encoding');
    const unknown = await post(source.url, invoke('someoneElsesFunction'), '{}');
    expect(unknown.status).toBe(404);
    const traversal = await post(source.url, invoke('..%2F..%2Fadmin'), '{}');
    expect(traversal.status).toBe(404);
    expect(source.pending()).toEqual({});

    const ok = await post(source.url, invoke('loadWorker'), '{"part":1}');
    expect(ok.status).toBe(202);
    for (let i = 0; i < 200 && up.received.length === 0; i += 1) await new Promise((r) => setTimeout(r, 10));
    expect(up.received).toEqual([invoke('loadWorker')]);
  });

  it('answers 413 past the body cap and keeps nothing of it', async () => {
    expect(MAX_INVOCATION_BYTES).toBe(1024 * 1024);
    up = await holdingUpstream();
    source = await startLocalEventSource({
      upstream: up.url,
      concurrency: 1,
      functions: ['loadWorker'],
      maxBodyBytes: 1000,
    });
    const big = await post(source.url, invoke('loadWorker'), Buffer.alloc(5000, 0x20));
    expect(big.status).toBe(413);
    expect(source.pending()).toEqual({});
    const fits = await post(source.url, invoke('loadWorker'), Buffer.alloc(1000, 0x20));
    expect(fits.status).toBe(202);
  });

  it('answers 503 with Retry-After once a function has the most invocations waiting', async () => {
    expect(MAX_QUEUED_PER_FUNCTION).toBe(10_000);
    up = await holdingUpstream();
    source = await startLocalEventSource({
      upstream: up.url,
      concurrency: 1,
      functions: ['processWorker', 'loadWorker'],
      maxQueued: 3,
    });
    // One runs upstream (held), three wait: the fifth is refused.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1)
      statuses.push((await post(source.url, invoke('processWorker'), '{}')).status);
    const full = await post(source.url, invoke('processWorker'), '{}');
    expect(statuses).toEqual([202, 202, 202, 202]);
    expect(full.status).toBe(503);
    expect(full.headers['retry-after']).toBe('1');
    expect(source.pending()).toEqual({ processWorker: 4 });
    // The cap is per function: another function is still accepted.
    expect((await post(source.url, invoke('loadWorker'), '{}')).status).toBe(202);
  });
});

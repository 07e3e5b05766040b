/** The outbound fetch against real HTTP servers on 127.0.0.1: bounded answers, a time limit over the body, checked literals. */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerTooLargeError, pinnedFetch } from '../../../lib/outbound/pinned-fetch';

/** A server whose answer to each path is chosen by the test; it counts the bytes it managed to write. */
async function server(routes: Record<string, (res: ServerResponse) => void>) {
  const srv: Server = createServer((req, res) => {
    req.resume();
    const route = routes[req.url ?? '/'];
    if (route) route(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    port,
    close: () =>
      new Promise<void>((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  };
}

/** Writes 64 KiB chunks until the client goes away; records how much it wrote. */
function endless(res: ServerResponse, written: { bytes: number; closed: boolean }, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const pump = () => {
    while (!res.destroyed && written.bytes < 2 * 1024 ** 3) {
      written.bytes += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
  };
  res.on('close', () => {
    written.closed = true;
  });
  pump();
}

describe('the outbound fetch', () => {
  let s: Awaited<ReturnType<typeof server>>;
  const big = { bytes: 0, closed: false };
  const bigTruncated = { bytes: 0, closed: false };
  beforeAll(async () => {
    s = await server({
      '/endless': (res) => endless(res, big),
      '/endless-truncated': (res) => endless(res, bigTruncated),
      '/trickle': (res) => {
        res.writeHead(200);
        const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 50);
      },
      '/small': (res) => res.writeHead(200).end('{"ok":true}'),
    });
  });
  afterAll(() => s?.close());

  it('fails an endless answer at the byte limit and drops the connection', async () => {
    const f = pinnedFetch({}, { maxBytes: 256 * 1024 });
    const e = await f(s.url('/endless'), { signal: AbortSignal.timeout(60_000) }).catch((x) => x);
    expect(e).toBeInstanceOf(AnswerTooLargeError);
    expect(e.message).toBe('the answer is larger than 262144 bytes');
    await expect.poll(() => big.closed).toBe(true);
    // The server stopped well short of its 2 GiB: socket buffers hold a few MiB at most.
    expect(big.bytes).toBeLessThan(64 * 1024 ** 2);
  });

  it('answers the first bytes of an endless answer when asked to truncate', async () => {
    const f = pinnedFetch({}, { maxBytes: 64 * 1024, truncate: true });
    const res = await f(s.url('/endless-truncated'), {
      method: 'POST',
      body: '{}',
      signal: AbortSignal.timeout(60_000),
    });
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(64 * 1024);
    await expect.poll(() => bigTruncated.closed).toBe(true);
  });

  it('ends a body that never ends at the signal, with the signal reason', async () => {
    const f = pinnedFetch({});
    const e = await f(s.url('/trickle'), { signal: AbortSignal.timeout(300) }).catch((x) => x);
    expect((e as Error).name).toBe('TimeoutError');
  });

  it('reads a small answer whole', async () => {
    const res = await pinnedFetch({})(s.url('/small'));
    expect(await res.json()).toEqual({ ok: true });
  });

  it('checks an IP literal itself (no lookup happens for it)', async () => {
    const f = pinnedFetch({ allowLoopback: false });
    await expect(f(`http://[::ffff:7f00:1]:${s.port}/small`)).rejects.toThrow(
      /loopback address \(::ffff:7f00:1\)/,
    );
    await expect(f(`http://127.0.0.1:${s.port}/small`)).rejects.toThrow(/loopback address/);
  });
});

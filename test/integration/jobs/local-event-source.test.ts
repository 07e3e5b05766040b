/**
 * The local event source of `npm start` (scripts/local/event-source.ts) against a real HTTP server on
 * 127.0.0.1 standing where serverless-offline's Lambda endpoint stands: every invocation is accepted at
 * once and delivered, at most `concurrency` of one function at a time, synchronously upstream.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalEventSource, startLocalEventSource } from '../../../scripts/local/event-source';
import { invokeLocalLambda } from '../../../lib/queue/local';

interface Upstream {
  url: string;
  received: { fn: string; type: string | undefined; body: unknown }[];
  maxRunning: Record<string, number>;
  /** Lets every held invocation return. */
  release(): void;
  running: Record<string, number>;
  close(): Promise<void>;
}

/** An upstream that holds each invocation until released (or answers 500 for a function named "fails"). */
async function upstream(): Promise<Upstream> {
  const held: (() => void)[] = [];
  let open = false;
  const u = {
    received: [] as Upstream['received'],
    maxRunning: {} as Record<string, number>,
    running: {} as Record<string, number>,
  };
  const server = http.createServer((req, res) => {
    const fn = /functions\/([^/]+)\/invocations/.exec(req.url ?? '')![1]!;
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      u.received.push({
        fn,
        type: req.headers['x-amz-invocation-type'] as string | undefined,
        body: JSON.parse(body),
      });
      u.running[fn] = (u.running[fn] ?? 0) + 1;
      u.maxRunning[fn] = Math.max(u.maxRunning[fn] ?? 0, u.running[fn]!);
      const done = () => {
        u.running[fn]! -= 1;
        res.writeHead(fn === 'fails' ? 500 : 200, { 'content-type': 'application/json' });
        res.end('null');
      };
      if (open) done();
      else held.push(done);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    ...u,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    release: () => {
      open = true;
      for (const done of held.splice(0)) done();
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i += 1) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

describe('the local event source', () => {
  let up: Upstream | undefined;
  let source: LocalEventSource | undefined;
  afterEach(async () => {
    up?.release();
    await source?.close();
    await up?.close();
  });

  it('accepts each invocation at once and runs at most `concurrency` of one function upstream', async () => {
    up = await upstream();
    const errors: string[] = [];
    source = await startLocalEventSource({
      upstream: up.url,
      concurrency: 2,
      functions: ['processWorker', 'loadWorker'],
      onError: (fn) => errors.push(fn),
    });
    // Six shard messages and one load message: every send returns while upstream holds the first ones.
    for (let i = 0; i < 6; i += 1) await invokeLocalLambda(source.url, 'processWorker', { shard: i });
    await invokeLocalLambda(source.url, 'loadWorker', { part: 1 });
    await until(() => up!.received.length === 3);
    expect(up.running).toEqual({ processWorker: 2, loadWorker: 1 });
    expect(source.pending()).toEqual({ processWorker: 6, loadWorker: 1 });

    up.release();
    await until(() => up!.received.length === 7 && Object.values(source!.pending()).every((n) => n === 0));
    expect(up.maxRunning).toEqual({ processWorker: 2, loadWorker: 1 });
    expect(up.received.filter((r) => r.fn === 'processWorker').map((r) => r.body)).toEqual(
      [0, 1, 2, 3, 4, 5].map((shard) => ({ shard })),
    );
    // Upstream the invocation is synchronous: the source knows when it has finished.
    expect(new Set(up.received.map((r) => r.type))).toEqual(new Set(['RequestResponse']));
    expect(errors).toEqual([]);
  });

  it('goes on after an invocation that fails upstream, and says which function failed', async () => {
    up = await upstream();
    up.release();
    const errors: string[] = [];
    source = await startLocalEventSource({
      upstream: up.url,
      concurrency: 1,
      functions: ['fails'],
      onError: (fn) => errors.push(fn),
    });
    await invokeLocalLambda(source.url, 'fails', { n: 1 });
    await invokeLocalLambda(source.url, 'fails', { n: 2 });
    await until(() => up!.received.length === 2 && (source!.pending().fails ?? 0) === 0);
    expect(errors).toEqual(['fails', 'fails']);
  });

  it('reports each finished invocation with how long it ran, as Lambda bills it', async () => {
    up = await upstream();
    const finished: { fn: string; ms: number }[] = [];
    source = await startLocalEventSource({
      upstream: up.url,
      concurrency: 1,
      functions: ['processWorker'],
      onFinished: (fn, ms) => finished.push({ fn, ms }),
    });
    await invokeLocalLambda(source.url, 'processWorker', { shard: 1 });
    await until(() => up!.received.length === 1);
    const heldFor = 50;
    await new Promise((r) => setTimeout(r, heldFor));
    expect(finished).toEqual([]);
    up.release();
    await until(() => finished.length === 1);
    expect(finished[0]!.fn).toBe('processWorker');
    // It ran at least as long as upstream held it.
    expect(finished[0]!.ms).toBeGreaterThanOrEqual(heldFor - 1);
  });

  it('answers 404 for anything but an invocation', async () => {
    up = await upstream();
    source = await startLocalEventSource({ upstream: up.url, concurrency: 1, functions: ['fails'] });
    const res = await fetch(`${source.url}/2015-03-31/functions`, { method: 'GET' });
    expect(res.status).toBe(404);
    expect(up.received).toEqual([]);
  });
});

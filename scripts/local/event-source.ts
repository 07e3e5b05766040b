/**
 * The local event source of `npm start`: what SQS's event source mapping does on AWS, run in front of
 * serverless-offline. Workers and the schedule timer send their asynchronous invocations here (it is
 * LOCAL_LAMBDA_ENDPOINT); each is accepted at once (202, as an `Event` invocation is) and queued per
 * function, then handed to serverless-offline's Lambda endpoint synchronously with at most
 * `concurrency` invocations of one function running at a time, as `maximumConcurrency` caps the
 * workers of a queue. Without it serverless-offline starts every message in a worker thread of its own
 * at once: a view of 100 shards would run 100 threads on 2 cores, each far slower than one Lambda.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalEventSource {
  /** Where to send invocations (the same path as the Lambda invoke API). */
  url: string;
  /** Invocations queued or running, per function. */
  pending(): Record<string, number>;
  close(): Promise<void>;
}

export interface EventSourceOptions {
  /** serverless-offline's Lambda endpoint, e.g. http://127.0.0.1:3002. */
  upstream: string;
  /** Invocations of one function at once. */
  concurrency: number;
  /** Called when an invocation fails upstream (it is not retried here: the workers' queue redelivers). */
  onError?: (functionName: string, error: Error) => void;
}

const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

/** One synchronous invocation upstream; resolves when the function has returned (no client timeout). */
function invokeUpstream(upstream: URL, functionName: string, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: 'POST',
        path: `/2015-03-31/functions/${functionName}/invocations`,
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          'x-amz-invocation-type': 'RequestResponse',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          (res.statusCode ?? 500) >= 300
            ? reject(new Error(`${functionName} answered ${res.statusCode}`))
            : resolve(),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function startLocalEventSource(options: EventSourceOptions): Promise<LocalEventSource> {
  const upstream = new URL(options.upstream);
  const limit = Math.max(1, Math.floor(options.concurrency));
  const queues = new Map<string, Buffer[]>();
  const running = new Map<string, number>();

  const pump = (fn: string): void => {
    const queue = queues.get(fn) ?? [];
    while (queue.length > 0 && (running.get(fn) ?? 0) < limit) {
      const body = queue.shift()!;
      running.set(fn, (running.get(fn) ?? 0) + 1);
      invokeUpstream(upstream, fn, body)
        .catch((e: Error) => options.onError?.(fn, e))
        .finally(() => {
          running.set(fn, (running.get(fn) ?? 1) - 1);
          pump(fn);
        });
    }
  };

  const server = http.createServer((req, res) => {
    const match = req.method === 'POST' ? INVOKE_PATH.exec(req.url ?? '') : null;
    if (!match) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'only POST /2015-03-31/functions/{name}/invocations' }));
      return;
    }
    const fn = decodeURIComponent(match[1]!);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!queues.has(fn)) queues.set(fn, []);
      queues.get(fn)!.push(Buffer.concat(chunks));
      res.writeHead(202);
      res.end();
      pump(fn);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pending: () => {
      const out: Record<string, number> = {};
      for (const fn of new Set([...queues.keys(), ...running.keys()]))
        out[fn] = (queues.get(fn)?.length ?? 0) + (running.get(fn) ?? 0);
      return out;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

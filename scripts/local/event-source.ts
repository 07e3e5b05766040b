/**
 * The local event source of `npm start`: what SQS's event source mapping does on AWS, run in front of
 * serverless-offline. Workers and the schedule timer send their asynchronous invocations here (it is
 * LOCAL_LAMBDA_ENDPOINT); each is accepted at once (202, as an `Event` invocation is) and queued per
 * function, then handed to serverless-offline's Lambda endpoint synchronously with at most
 * `concurrency` invocations of one function running at a time, as `maximumConcurrency` caps the
 * workers of a queue. Without it serverless-offline starts every message in a worker thread of its own
 * at once: a view of 100 shards would run 100 threads on 2 cores, each far slower than one Lambda.
 *
 * It trusts nothing it is sent (docs/security.md): only the functions it is told of are invoked (404
 * for another name, 400 for a name that is not valid percent-encoding), a body past `maxBodyBytes` is
 * a 413, and past `maxQueued` invocations waiting for one function it answers 503 with Retry-After.
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
  /** Called when an invocation has returned (or failed), with how long it ran: what Lambda bills. */
  onFinished?: (functionName: string, ms: number) => void;
  /** The function names it invokes (serverless-offline's service-stage-function names); others get 404. */
  functions: readonly string[];
  /** The largest body accepted (default MAX_INVOCATION_BYTES); past it 413. */
  maxBodyBytes?: number;
  /** Invocations waiting per function (default MAX_QUEUED_PER_FUNCTION); past it 503. */
  maxQueued?: number;
}

/** 1 MiB: Lambda's own limit for an asynchronous invocation's payload. */
export const MAX_INVOCATION_BYTES = 1024 * 1024;
/** Waiting invocations of one function: far above a detection's shard messages, far below memory trouble. */
export const MAX_QUEUED_PER_FUNCTION = 10_000;

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

/** A JSON problem answer, once (a later call for the same request is ignored). */
function answer(
  res: http.ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ message }));
}

/** The function an invocation names, or the status that refuses it. */
function invocationTarget(
  req: http.IncomingMessage,
  known: ReadonlySet<string>,
): { fn: string } | { status: number; message: string } {
  const match = req.method === 'POST' ? INVOKE_PATH.exec(req.url ?? '') : null;
  if (!match) return { status: 404, message: 'only POST /2015-03-31/functions/{name}/invocations' };
  let fn: string;
  try {
    fn = decodeURIComponent(match[1]!);
  } catch {
    return { status: 400, message: 'the function name is not valid percent-encoding' };
  }
  if (!known.has(fn)) return { status: 404, message: 'no such function' };
  return { fn };
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
      const began = performance.now();
      invokeUpstream(upstream, fn, body)
        .catch((e: Error) => options.onError?.(fn, e))
        .finally(() => {
          options.onFinished?.(fn, performance.now() - began);
          running.set(fn, (running.get(fn) ?? 1) - 1);
          pump(fn);
        });
    }
  };

  const known = new Set(options.functions);
  const maxBody = options.maxBodyBytes ?? MAX_INVOCATION_BYTES;
  const maxQueued = options.maxQueued ?? MAX_QUEUED_PER_FUNCTION;
  const accept = (fn: string, body: Buffer, res: http.ServerResponse): void => {
    const queue = queues.get(fn) ?? [];
    queues.set(fn, queue);
    if (queue.length >= maxQueued) {
      answer(res, 503, `${queue.length} invocations of ${fn} are waiting (at most ${maxQueued})`, {
        'retry-after': '1',
      });
      return;
    }
    queue.push(body);
    res.writeHead(202);
    res.end();
    pump(fn);
  };

  const server = http.createServer((req, res) => {
    const target = invocationTarget(req, known);
    if ('status' in target) {
      answer(res, target.status, target.message);
      req.on('error', () => undefined);
      req.resume();
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > maxBody) {
      // Answered at once; what is still sent is read and dropped, never kept.
      answer(res, 413, `the body holds ${declared} bytes; at most ${maxBody}`, { connection: 'close' });
      req.on('error', () => undefined);
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBody) {
        chunks.length = 0;
        answer(res, 413, `the body passes ${maxBody} bytes`, { connection: 'close' });
        return;
      }
      chunks.push(c);
    });
    req.on('error', () => undefined);
    req.on('end', () => {
      if (size <= maxBody) accept(target.fn, Buffer.concat(chunks), res);
    });
  });
  server.on('clientError', (_e, socket) => socket.destroy());
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

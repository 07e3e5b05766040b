import { describe, expect, it } from 'vitest';
import type { Driver, DriverCursor, DriverSession, Row } from '../../../lib/connectors/sources/driver';
import { createSource } from '../../../lib/connectors/sources/runner';
import { UpstreamError } from '../../../lib/shared/errors';

const never = <T>() => new Promise<T>(() => {});

/** A scripted driver that records what the runner asked of it. */
function fakeDriver(script: {
  connect?: (signal: AbortSignal) => Promise<void>;
  batches?: Row[][];
  next?: (i: number, signal: AbortSignal) => Promise<Row[] | undefined> | undefined;
  queryError?: unknown;
}) {
  const log = { connects: 0, closes: 0, cancels: 0, aborted: [] as string[], queries: [] as string[] };
  const driver: Driver = {
    testSql: 'select 1',
    async connect(_ms, signal) {
      log.connects++;
      signal.addEventListener('abort', () => log.aborted.push('connect'));
      await script.connect?.(signal);
      const session: DriverSession = {
        async query(sql, batchSize, qsignal) {
          log.queries.push(`${sql}|${batchSize}`);
          qsignal.addEventListener('abort', () => log.aborted.push('query'));
          if (script.queryError) throw script.queryError;
          let i = 0;
          const cursor: DriverCursor = {
            async next() {
              const scripted = script.next?.(i, qsignal);
              if (scripted) {
                i++;
                return scripted;
              }
              return script.batches?.[i++];
            },
            async columns() {
              return [{ name: 'a', type: 'int' }];
            },
            async cancel() {
              log.cancels++;
            },
          };
          return cursor;
        },
        async close() {
          log.closes++;
        },
      };
      return session;
    },
  };
  return { driver, log };
}

const ctx = {
  target: 'db.example.com:5432',
  secrets: ['hunter2-secret'],
  timeoutMs: 200,
  queryTimeoutMs: 300,
};

describe('the connector runner', () => {
  it('gives up connecting after timeoutMs with a clear message and aborts the attempt', async () => {
    const { driver, log } = fakeDriver({ connect: () => never() });
    const started = Date.now();
    await expect(createSource(driver, ctx).test()).rejects.toThrow(
      'could not connect to db.example.com:5432: timed out after 200 ms',
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(log.aborted).toContain('connect');
  });

  it('closes a connection that arrives after the caller gave up', async () => {
    const { driver, log } = fakeDriver({ connect: () => new Promise((r) => setTimeout(r, 300)) });
    await expect(createSource(driver, ctx).test()).rejects.toThrow(UpstreamError);
    await new Promise((r) => setTimeout(r, 200));
    expect(log.closes).toBe(1);
  });

  it('bounds a query that never answers, cancels it, and reconnects for the next call', async () => {
    let hang = true;
    const { driver, log } = fakeDriver({ next: () => (hang ? never() : Promise.resolve(undefined)) });
    const src = createSource(driver, ctx);
    await expect(src.preview('select slow()')).rejects.toThrow('preview query timed out after 300 ms');
    expect(log.aborted).toContain('query');
    expect(log.cancels).toBe(1);
    expect(log.closes).toBe(1);
    hang = false;
    await expect(src.preview('select 1')).resolves.toEqual({
      columns: [{ name: 'a', type: 'int' }],
      rows: [],
    });
    expect(log.connects).toBe(2);
  });

  it('streams every batch the driver yields, in order, with the requested batch size', async () => {
    const { driver, log } = fakeDriver({ batches: [[{ a: 1 }, { a: 2 }], [{ a: 3 }]] });
    const seen: Row[][] = [];
    for await (const batch of createSource(driver, ctx).stream('select a', { batchSize: 2 }))
      seen.push(batch);
    expect(seen).toEqual([[{ a: 1 }, { a: 2 }], [{ a: 3 }]]);
    expect(log.queries).toEqual(['select a|2']);
    expect(log.cancels).toBe(0);
  });

  it('cancels the rest of the query when the consumer stops early, keeping the connection', async () => {
    const { driver, log } = fakeDriver({ batches: [[{ a: 1 }], [{ a: 2 }], [{ a: 3 }]] });
    const src = createSource(driver, ctx);
    for await (const _ of src.stream('select a', { batchSize: 1 })) break;
    expect(log.cancels).toBe(1);
    expect(log.closes).toBe(0);
    await src.close();
    expect(log.closes).toBe(1);
  });

  it('stops a stream at once when its signal aborts, cancelling the query', async () => {
    const ac = new AbortController();
    const { driver, log } = fakeDriver({ next: (i) => (i === 0 ? Promise.resolve([{ a: 1 }]) : never()) });
    const got: Row[][] = [];
    const run = (async () => {
      for await (const b of createSource(driver, ctx).stream('select a', {
        batchSize: 1,
        signal: ac.signal,
      })) {
        got.push(b);
        setTimeout(() => ac.abort(), 10);
      }
    })();
    await expect(run).rejects.toThrow('query cancelled');
    expect(got).toHaveLength(1);
    expect(log.aborted).toContain('query');
    expect(log.cancels).toBe(1);
  });

  it('refuses to start with a signal that is already aborted', async () => {
    const { driver, log } = fakeDriver({ batches: [] });
    const iter = createSource(driver, ctx).stream('select a', { batchSize: 1, signal: AbortSignal.abort() });
    await expect(iter[Symbol.asyncIterator]().next()).rejects.toThrow('query cancelled');
    expect(log.connects).toBe(0);
  });

  it('turns a driver error into an UpstreamError without the password in it', async () => {
    const err = Object.assign(new Error('syntax error near "hunter2-secret" password=abc'), {
      code: '42601',
    });
    const { driver } = fakeDriver({ queryError: err });
    const failure = await createSource(driver, ctx)
      .preview('select')
      .catch((e) => e);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect(failure.message).toBe('syntax error near "*****" password=*****');
    expect(String((failure.cause as Error).message)).not.toContain('hunter2-secret');
  });

  it('reports a refused connection as such', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const { driver } = fakeDriver({ connect: () => Promise.reject(refused) });
    await expect(createSource(driver, ctx).test()).rejects.toThrow(
      'could not connect to db.example.com:5432: connection refused',
    );
  });

  it('previews at most the limit, with the columns, and bigints as text', async () => {
    const rows = Array.from({ length: 12 }, (_, i) => ({ a: BigInt(i) }));
    const { driver, log } = fakeDriver({ batches: [rows] });
    const result = await createSource(driver, ctx).preview('select a');
    expect(result.rows).toHaveLength(10);
    expect(result.rows[3]).toEqual({ a: '3' });
    expect(result.columns).toEqual([{ name: 'a', type: 'int' }]);
    expect(log.queries).toEqual(['select a|10']);
    expect(log.cancels).toBe(1);
  });

  it('refuses work after close', async () => {
    const { driver } = fakeDriver({ batches: [] });
    const src = createSource(driver, ctx);
    await src.close();
    await expect(src.test()).rejects.toThrow('the connector is closed');
  });
});

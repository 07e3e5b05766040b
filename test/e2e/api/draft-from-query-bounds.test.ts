/**
 * "New view from a query" is an API request in a function that stops at 28 s: its sample's query runs
 * under the short bound of API paths (API_QUERY_TIMEOUT_MS), is cancelled at the function's deadline (the
 * Lambda context's remaining time), and keeps at most SAMPLE_BYTES of rows (documented truncation).
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as dataviews from '../../../functions/http/dataviews';
import { SAMPLE_BYTES } from '../../../lib/pipeline/draft-from-query';
import { startGateway, type Gateway } from '../../../scripts/local/gateway';
import { backendName, serverUrl } from '../../support/db';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { startTestService, type TestService } from '../../support/service';

/**
 * A TCP proxy in front of the source that, once a client sends a query with the comment `stall`, forwards
 * nothing more from the server to that client: a query that never answers, without blocking this process
 * (PGlite runs in it). On PostgreSQL the marked query also sleeps on the server, to see it cancelled.
 */
async function stallingProxy(port: number): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    let stalled = false;
    client.on('data', (d) => {
      if (d.includes('/*stall*/')) stalled = true;
      upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!stalled) client.write(d);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const sock of sockets) sock.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

const STALLED = `/*stall*/ SELECT DATE '2024-01-01' AS day, 'a' AS shop, 1 AS amount${serverUrl ? ' FROM (SELECT pg_sleep(20)) s' : ''}`;

describe(`the bounds of a new view from a query on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let proxy: Awaited<ReturnType<typeof stallingProxy>>;
  const draft = (body: unknown) =>
    s.call('POST', '/api/v1/dataviews/draft-from-query', { auth: s.adminToken, body });

  /** Whether the source still runs a pg_sleep of ours (PostgreSQL: pg_stat_activity). */
  const sleeping = async () => {
    const probe = await source.open('probe');
    try {
      for await (const rows of probe.stream(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%pg_sleep(20)%' AND query NOT LIKE '%pg_stat_activity%' AND state = 'active'",
        { batchSize: 1 },
      ))
        return Number(rows[0].n) > 0;
      return false;
    } finally {
      await probe.close();
    }
  };

  beforeAll(async () => {
    s = await startTestService({ CONNECTOR_TIMEOUT_MS: '5000', API_QUERY_TIMEOUT_MS: '1500' });
    source = await createTestSource();
    const c = await s.call('POST', '/api/v1/connectors', {
      auth: s.adminToken,
      body: { name: 'src', type: 'pgsql', configuration: { conn_string: source.connString } },
    });
    if (c.status !== 201) throw new Error(c.text);
    const url = new URL(source.connString.startsWith('postgres') ? source.connString : 'postgres://x@h/d');
    const upstreamPort = source.connString.startsWith('postgres')
      ? Number(url.port || 5432)
      : Number(/Port=(\d+)/.exec(source.connString)![1]);
    proxy = await stallingProxy(upstreamPort);
    const slow = source.connString.startsWith('postgres')
      ? Object.assign(url, { port: String(proxy.port) }).toString()
      : source.connString.replace(/Port=\d+/, `Port=${proxy.port}`);
    const d = await s.call('POST', '/api/v1/connectors', {
      auth: s.adminToken,
      body: { name: 'slow', type: 'pgsql', configuration: { conn_string: slow } },
    });
    if (d.status !== 201) throw new Error(d.text);
  }, 120_000);
  afterAll(async () => {
    await s.stop();
    await proxy.close();
    await source.stop();
  });

  /** Waits until the source runs no pg_sleep of ours (PostgreSQL only; PGlite ignores cancel requests). */
  const cancelledOnServer = async () => {
    if (!serverUrl) return true;
    for (let i = 0; i < 50; i++) {
      if (!(await sleeping())) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  };

  it('stops the sample at its byte bound and says so', async () => {
    // 100 rows of about 200 kB each: 20 MB, more than the 16 MB a sample keeps.
    const query = `SELECT DATE '2024-01-01' + (g % 30) AS day, 'shop' || (g % 3) AS shop, g AS amount,
      repeat('x', 200000) AS note FROM generate_series(0, 99) g`;
    const r = await draft({ connector: 'src', query });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ complete: false, stoppedBy: 'bytes' });
    expect(r.body.sampled).toBeLessThan(100);
    expect(r.body.sampled * 200_000).toBeGreaterThanOrEqual(SAMPLE_BYTES);
  });

  it('ends a query that runs past API_QUERY_TIMEOUT_MS with a clear 502, and cancels it on the source', async () => {
    const r = await draft({ connector: 'slow', query: STALLED });
    expect(r.status, r.text).toBe(502);
    expect(r.body.detail).toMatch(/timed out after 1\.5 s/);
    expect(await cancelledOnServer()).toBe(true);
  });

  describe('inside a Lambda function whose time runs out', () => {
    let gateway: Gateway;
    beforeAll(async () => {
      // The dataviews function as Lambda runs it: 4.5 s left when the request arrives; the query bound is
      // longer (60 s), so only the function's deadline can stop the sample's query.
      s.container.config = { ...s.container.config, apiQueryTimeoutMs: 60_000 };
      gateway = await startGateway([
        {
          name: 'dataviews',
          prefixes: ['/api/v1/dataviews'],
          handler: (event) =>
            (dataviews.handler as unknown as (e: unknown, c: unknown) => Promise<unknown>)(event, {
              getRemainingTimeInMillis: () => 4_500,
              callbackWaitsForEmptyEventLoop: false,
            }),
        },
      ]);
    });
    afterAll(async () => {
      await gateway.close();
    });

    it('cancels the query at the deadline and answers before the function stops', async () => {
      const res = await fetch(`${gateway.url}/api/v1/dataviews/draft-from-query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ connector: 'slow', query: STALLED }),
      });
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).toBe(502);
      expect(body.detail).toMatch(/did not finish within the time of this request: it was cancelled/);
      expect(await cancelledOnServer()).toBe(true);
    });
  });
});

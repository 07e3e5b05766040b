import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectorType, openSource } from '../../../lib/connectors/index';
import { UpstreamError } from '../../../lib/shared/errors';

const PASSWORD = 'Unreachable-S3cret;pw';

/** A configuration of each type pointing at 127.0.0.1:port, with PASSWORD as its secret. */
function configFor(type: ConnectorType, port: number): Record<string, string> {
  const quoted = `"${PASSWORD}"`;
  switch (type) {
    case 'mssql':
      return {
        conn_string: `Server=127.0.0.1,${port};Database=x;User Id=sa;Password=${quoted};TrustServerCertificate=true`,
      };
    case 'pgsql':
      return { conn_string: `postgres://loader:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}/db` };
    case 'oracle':
      return { conn_string: `Data Source=127.0.0.1:${port}/FREEPDB1;User Id=scott;Password=${quoted}` };
    case 'snowflake':
      // The account host is pointed at the local port; plain http so nothing waits on TLS.
      return {
        conn_string: `account=acme;user=loader;password=${quoted};host=127.0.0.1;port=${port};scheme=http`,
      };
    case 'fabric':
      return {
        server: `127.0.0.1,${port}`,
        database: 'wh',
        tenant_id: 't',
        client_id: 'c',
        client_secret: PASSWORD,
      };
  }
}

const TYPES: ConnectorType[] = ['pgsql', 'mssql', 'oracle', 'snowflake', 'fabric'];

/** Runs test() and returns the error and how long it took. */
async function failTest(type: ConnectorType, port: number, timeoutMs: number) {
  const src = openSource(type, configFor(type, port), { timeoutMs });
  const started = Date.now();
  const err = await src.test().then(
    () => undefined,
    (e) => e,
  );
  const elapsed = Date.now() - started;
  await src.close();
  return { err, elapsed };
}

describe('a connector whose port is closed', () => {
  let closedPort: number;

  beforeAll(async () => {
    // Take a free port and give it back: nothing listens there now.
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    closedPort = (probe.address() as net.AddressInfo).port;
    await new Promise((r) => probe.close(r));
  });

  it.each(TYPES)('of type %s fails fast with "connection refused" and no password', async (type) => {
    // A refused connection is named as such, before the bound (15 s) would name a timeout: the driver
    // does not retry a closed port (snowflake-sdk would for minutes, unbounded).
    const { err } = await failTest(type, closedPort, 15_000);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toBe(`could not connect to 127.0.0.1:${closedPort}: connection refused`);
    expect(JSON.stringify({ m: err.message, c: String(err.cause) })).not.toContain('S3cret');
  });
});

describe.concurrent('a connector whose server accepts but never answers', () => {
  let server: net.Server;
  let silentPort: number;
  const sockets = new Set<net.Socket>();

  beforeAll(async () => {
    server = net.createServer((s) => {
      sockets.add(s);
      s.on('error', () => {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    silentPort = (server.address() as net.AddressInfo).port;
  });

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  it.each(TYPES)('of type %s gives up within the configured timeout', async (type) => {
    const { err, elapsed } = await failTest(type, silentPort, 1_500);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toBe(`could not connect to 127.0.0.1:${silentPort}: timed out after 1.5 s`);
    // The runner's own timer ends the wait (the message names it), never before the bound.
    expect(elapsed).toBeGreaterThanOrEqual(1_400);
    expect(err.message).not.toContain('S3cret');
  });
});

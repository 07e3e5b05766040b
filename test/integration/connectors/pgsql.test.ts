import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { openSource } from '../../../lib/connectors/index';
import { pgsqlContract } from './pgsql-contract';
import { skippedBecause } from '../../support/skip';

pgsqlContract('PGlite behind pglite-socket', async () => {
  const db = new PGlite();
  // More than one connection, or a second client is reset by the socket server.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 4 });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  return {
    connString: `Host=127.0.0.1;Port=${port};Database=postgres;Username=postgres;Password=pw;SSL Mode=disable`,
    exec: async (sql) => {
      const results = await db.exec(sql);
      return (results.at(-1)?.rows ?? []) as Record<string, unknown>[];
    },
    realServer: false,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
});

const databaseUrl = process.env.DATABASE_URL;

if (databaseUrl) {
  pgsqlContract('PostgreSQL at DATABASE_URL', async () => {
    const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    return {
      connString: databaseUrl,
      exec: async (sql) => (await admin.unsafe(sql)) as unknown as Record<string, unknown>[],
      realServer: true,
      stop: () => admin.end({ timeout: 1 }),
    };
  });

  describe('the pgsql connector with a wrong password on PostgreSQL', () => {
    it('fails with the server message and without the password', async (ctx) => {
      // CI gives a role that must authenticate (TEST_PG_PASSWORD_URL); elsewhere DATABASE_URL is tried.
      const url = new URL(process.env.TEST_PG_PASSWORD_URL ?? databaseUrl);
      url.password = 'Wrong-Pa55word-xyz';
      const err = await openSource('pgsql', { conn_string: url.toString() }, { timeoutMs: 5_000 })
        .test()
        .catch((e) => e);
      // A cluster with trust authentication (as CI's) accepts any password: nothing to check there.
      if (err === undefined) ctx.skip('the server at DATABASE_URL trusts every password (pg_hba trust)');
      expect(err.message).toMatch(/password authentication failed/);
      expect(err.message).not.toContain('Wrong-Pa55word-xyz');
    });
  });
} else {
  skippedBecause(
    'runs only when DATABASE_URL points at a PostgreSQL server (postgres://…)',
    'the pgsql connector on PostgreSQL',
  );
}

/** A source database for load tests: PGlite behind pglite-socket, or a fresh database on the PostgreSQL server of DATABASE_URL. */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { openSource } from '../../lib/connectors/index';
import type { OpenSource } from '../../lib/pipeline/source';
import { servePglite } from '../../scripts/local/pglite-server';
import { serverUrl } from './db';

export interface TestSource {
  connString: string;
  /** Runs SQL on the source (several statements allowed). */
  exec(sql: string): Promise<void>;
  /** Opens any connector name as this source, through the real pgsql connector. */
  open: OpenSource;
  stop(): Promise<void>;
}

export async function createTestSource(): Promise<TestSource> {
  let connString: string;
  let exec: (sql: string) => Promise<void>;
  let stop: () => Promise<void>;
  if (serverUrl) {
    const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
    const name = `src_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    connString = url.toString();
    const client = postgres(connString, { max: 1, onnotice: () => {} });
    exec = async (text) => void (await client.unsafe(text));
    stop = async () => {
      await client.end({ timeout: 1 });
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end({ timeout: 1 });
    };
  } else {
    const served = await servePglite('memory://');
    connString = `Host=127.0.0.1;Port=${served.port};Database=postgres;Username=postgres;Password=pw;SSL Mode=disable`;
    exec = async (text) => void (await served.db.exec(text));
    stop = () => served.close();
  }
  return {
    connString,
    exec,
    open: async () => openSource('pgsql', { conn_string: connString }, { timeoutMs: 10_000 }),
    stop,
  };
}

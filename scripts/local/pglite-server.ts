/** Opens one PGlite data folder in this process and serves it on 127.0.0.1, so that every function reaches it through postgres.js. */
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { keepExtendedQueriesTogether } from './pglite-sequence-lock';
import { freePort } from './ports';

export interface ServedPglite {
  db: PGlite;
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function servePglite(dataDir: string, port?: number): Promise<ServedPglite> {
  const db = await PGlite.create(dataDir);
  const bound = port ?? (await freePort());
  const server = new PGLiteSocketServer({ db, port: bound, host: '127.0.0.1', maxConnections: 32 });
  keepExtendedQueriesTogether(server);
  await server.start();
  return {
    db,
    port: bound,
    url: `postgres://postgres@127.0.0.1:${bound}/postgres`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}

/**
 * `COPY … FROM STDIN (FORMAT binary)` into a PostgreSQL service database: the fastest way to write
 * many rows (a third of the server's work of an insert from arrays). PGlite takes no COPY from a
 * client stream; callers insert there instead (copyClient answers undefined).
 */
import type { Database } from './database';

/** What COPY FROM STDIN needs of postgres.js (the client under drizzle, `orm.$client`). */
export interface CopyClient {
  unsafe(query: string): Promise<unknown> & { writable(): Promise<NodeJS.WritableStream> };
}

/** The postgres.js client of a PostgreSQL service database, when it is one (not PGlite, not a transaction). */
export function copyClient(db: Database): CopyClient | undefined {
  if (db.kind !== 'postgres') return undefined;
  const client = (db.orm as unknown as { $client?: { unsafe?: unknown } }).$client;
  return typeof client?.unsafe === 'function' ? (client as unknown as CopyClient) : undefined;
}

// PGCOPY binary format: signature, flags, header extension length; each row a field count and
// length-prefixed big-endian values; -1 ends the data.
const COPY_HEADER = Buffer.from('PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0', 'latin1');

/** A whole COPY binary stream of row parts: header, the rows, the end marker. */
export function binaryCopyData(parts: Buffer[]): Buffer[] {
  const end = Buffer.alloc(2);
  end.writeInt16BE(-1, 0);
  return [COPY_HEADER, ...parts, end];
}

/**
 * `COPY <target> (<cols>) FROM STDIN (FORMAT binary)` of row parts (each a run of encoded rows).
 * postgres.js settles the statement's own promise when it hands out the stream, and a server error
 * after the data (or a lost connection) reaches neither the stream nor a promise anyone holds; so the
 * statement's resolve and reject are followed: the second resolve (ReadyForQuery) is the end, a reject
 * is the failure.
 */
export async function copyBinaryIn(
  client: CopyClient,
  target: string,
  cols: string,
  parts: Buffer[],
): Promise<void> {
  const q = client.unsafe(`COPY ${target} (${cols}) FROM STDIN (FORMAT binary)`);
  const hooks = q as unknown as { resolve: (x: unknown) => void; reject: (e: unknown) => void };
  let settle: (error?: unknown) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    settle = (error) => (error === undefined ? resolve() : reject(error));
  });
  done.catch(() => {}); // awaited below; never an unhandled rejection when writable() fails first
  const resolve = hooks.resolve;
  const reject = hooks.reject;
  let handedOut = false;
  hooks.resolve = (x) => {
    if (handedOut) settle();
    handedOut = true;
    resolve(x);
  };
  hooks.reject = (e) => {
    settle(e);
    reject(e);
  };
  const stream = await q.writable();
  stream.on('error', (e) => settle(e));
  const data = binaryCopyData(parts);
  for (let i = 0; i < data.length - 1; i++) stream.write(data[i]);
  stream.end(data[data.length - 1]);
  await done;
}

/**
 * `COPY … FROM STDIN (FORMAT binary)` into a PostgreSQL service database: the fastest way to write
 * many rows (a third of the server's work of an insert from arrays); `COPY (query) TO STDOUT (FORMAT
 * binary)` to read rows whose `bytea` would otherwise travel as hex text. PGlite takes no COPY to or from
 * a client stream; callers use statements there instead (copyClient answers undefined).
 */
import type { Database } from './database';

/** What COPY FROM STDIN needs of postgres.js (the client under drizzle, `orm.$client`). */
export interface CopyClient {
  unsafe(query: string): Promise<unknown> & {
    writable(): Promise<NodeJS.WritableStream>;
    readable(): Promise<NodeJS.ReadableStream>;
  };
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

/** A row of a binary COPY out: each field's bytes (a view into the answer), null for NULL. */
export type BinaryRow = Array<Buffer | null>;

const SIGNATURE_BYTES = 11;

/**
 * Splits a `COPY … TO STDOUT (FORMAT binary)` answer into rows of fields (views into the pieces, no copy),
 * fed in pieces as they arrive: the server sends a row per message, so a row rarely spans two pieces (then
 * only those are joined). `end` throws on a malformed answer (no signature, no end marker).
 */
export function binaryCopyParser() {
  let carry: Buffer | undefined;
  let headerDone = false;
  let ended = false;
  const rows: BinaryRow[] = [];
  /** One row at `o` of `data`, or undefined when it runs past the end of the piece. */
  const row = (data: Buffer, o: number, fields: number): [BinaryRow, number] | undefined => {
    const out: BinaryRow = new Array(fields);
    for (let i = 0; i < fields; i++) {
      if (o + 4 > data.length) return undefined;
      const len = data.readInt32BE(o);
      o += 4;
      if (len < 0) out[i] = null;
      else {
        if (o + len > data.length) return undefined;
        out[i] = data.subarray(o, o + len);
        o += len;
      }
    }
    return [out, o];
  };
  const push = (piece: Buffer): void => {
    const data = carry ? Buffer.concat([carry, piece]) : piece;
    carry = undefined;
    let o = 0;
    if (!headerDone) {
      if (data.length < SIGNATURE_BYTES + 8) {
        carry = data;
        return;
      }
      if (!data.subarray(0, SIGNATURE_BYTES).equals(COPY_HEADER.subarray(0, SIGNATURE_BYTES)))
        throw new Error('binary COPY: no PGCOPY signature');
      o = SIGNATURE_BYTES + 8 + data.readInt32BE(SIGNATURE_BYTES + 4); // flags, header extension
      headerDone = true;
    }
    while (!ended && o + 2 <= data.length) {
      const fields = data.readInt16BE(o);
      if (fields === -1) {
        ended = true;
        return;
      }
      const r = row(data, o + 2, fields);
      if (!r) break;
      rows.push(r[0]);
      o = r[1];
    }
    if (!ended && o < data.length) carry = data.subarray(o);
  };
  return {
    push,
    /** Every row; throws when the answer was cut short or had no signature. */
    end(): BinaryRow[] {
      if (!headerDone) throw new Error('binary COPY: no PGCOPY signature');
      if (!ended) throw new Error('binary COPY: no end marker');
      return rows;
    },
  };
}

/** The rows of a whole binary COPY answer (see binaryCopyParser). */
export function parseBinaryCopy(data: Buffer): BinaryRow[] {
  const parser = binaryCopyParser();
  parser.push(data);
  return parser.end();
}

/**
 * postgres.js pauses the socket when a COPY stream's buffer is full and resumes it only from the stream's
 * `read()`; when CopyDone arrives in the same socket chunk the stream ends with the socket still paused and
 * the connection never reads another answer (porsager/postgres#499, #917): the stream's `_read` resumes it.
 */
function resumeSocket(stream: unknown): void {
  const read = (stream as { _read?: (size: number) => void } | undefined)?._read;
  if (typeof read === 'function') read.call(stream, 0);
}

/**
 * The rows of `query` (one SELECT of the service's own, built from trusted text) through
 * `COPY (query) TO STDOUT (FORMAT binary)`: `bytea` arrives as its bytes, not as hex text.
 */
export async function copyBinaryOut(client: CopyClient, query: string): Promise<BinaryRow[]> {
  const q = client.unsafe(`COPY (${query}) TO STDOUT (FORMAT binary)`);
  // postgres.js destroys the stream with the statement's error on the next tick, possibly before this
  // code holds it: the listener goes on as the stream is handed out (the iteration still sees the error).
  const hooks = q as unknown as { resolve: (x: unknown) => void };
  const resolve = hooks.resolve;
  hooks.resolve = (x) => {
    if (x && typeof (x as NodeJS.ReadableStream).on === 'function')
      (x as NodeJS.ReadableStream).on('error', () => {});
    resolve(x);
  };
  const stream = await q.readable();
  const parser = binaryCopyParser();
  // Flowing mode: every CopyData goes straight to the parser (an async iteration pauses the socket each
  // time the stream's small buffer fills, a round of the event loop per 16 kB).
  try {
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (chunk: Buffer) => {
        try {
          parser.push(chunk);
        } catch (e) {
          reject(e);
        }
      });
      stream.on('end', resolve);
      stream.on('error', reject);
      stream.on('close', resolve);
    });
  } finally {
    resumeSocket(stream);
  }
  return parser.end();
}

/** Batches out of an object-mode Readable, read synchronously while rows are buffered (no promise per row). */
import type { Readable } from 'node:stream';
import type { Row } from './driver';

/** Up to `size` rows from `readable`; undefined once it has ended; rejects with the stream's error. */
export function readBatch(readable: Readable, size: number): Promise<Row[] | undefined> {
  return new Promise((resolve, reject) => {
    const rows: Row[] = [];
    let settled = false;
    const finish = (err?: unknown) => {
      if (settled) return;
      settled = true;
      readable.off('readable', pump);
      readable.off('end', onEnd);
      readable.off('error', finish);
      readable.off('close', onClose);
      if (err) reject(err);
      else resolve(rows.length ? rows : undefined);
    };
    const onEnd = () => finish();
    const onClose = () => finish(readable.errored ?? undefined);
    function pump() {
      while (rows.length < size) {
        const row = readable.read();
        if (row === null) break;
        rows.push(row as Row);
      }
      if (rows.length >= size || readable.readableEnded) finish();
      else if (readable.errored) finish(readable.errored);
      else if (readable.destroyed) finish();
    }
    readable.on('readable', pump);
    readable.once('end', onEnd);
    readable.once('error', finish);
    readable.once('close', onClose);
    pump();
  });
}

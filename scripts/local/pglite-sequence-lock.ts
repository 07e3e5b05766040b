/**
 * pglite-socket 0.2 serves many connections from one PGlite session, interleaving their protocol
 * messages one by one outside transactions. An extended query (Parse, Bind, Describe, Execute … Sync)
 * keeps its unnamed statement and portal only until another connection's Parse replaces them, so two
 * concurrent queries can fail with "unnamed prepared statement does not exist" or read each other's
 * portal. This keeps a connection's messages together until its Sync (or a simple Query), the same
 * way the server already keeps a transaction's messages together.
 */
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';

interface QueueItem {
  handlerId: number;
  message: Uint8Array;
  resolve(bytes: number): void;
  reject(e: unknown): void;
  onData(data: Uint8Array): void;
}

interface QueryQueue {
  queue: QueueItem[];
  processing: boolean;
  lastHandlerId: number | null;
  db: {
    isInTransaction(): boolean;
    runExclusive<T>(fn: () => Promise<T>): Promise<T>;
    execProtocolRawStream(m: Uint8Array, o: { onRawData(d: Uint8Array): void }): Promise<unknown>;
  };
  processQueue(): Promise<void>;
  clearQueueForHandler(id: number): void;
}

// Parse, Bind, Describe, Execute, Close and Flush leave an extended query open; Sync and Query end it.
const OPENS = new Set([0x50, 0x42, 0x44, 0x45, 0x43, 0x48]);

/** Patches the server's query queue in place (call before start()). */
export function keepExtendedQueriesTogether(server: PGLiteSocketServer): void {
  const q = (server as unknown as { queryQueue: QueryQueue }).queryQueue;
  let open = false;
  q.processQueue = async function processQueue(this: QueryQueue) {
    if (this.processing || this.queue.length === 0) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        let item: QueueItem | undefined;
        if ((open || this.db.isInTransaction()) && this.lastHandlerId !== null) {
          const i = this.queue.findIndex((x) => x.handlerId === this.lastHandlerId);
          // The pinned connection has not sent its next message yet: wait for it.
          if (i === -1) break;
          item = this.queue.splice(i, 1)[0];
        } else {
          item = this.queue.shift();
        }
        if (!item) break;
        let bytes = 0;
        try {
          const current = item;
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(current.message, {
              onRawData: (d) => {
                bytes += d.length;
                current.onData(d);
              },
            }),
          );
        } catch (e) {
          open = false;
          item.reject(e);
          continue;
        }
        open = OPENS.has(item.message[0]);
        this.lastHandlerId = item.handlerId;
        item.resolve(bytes);
      }
    } finally {
      this.processing = false;
    }
  }.bind(q);
  const clear = q.clearQueueForHandler.bind(q);
  q.clearQueueForHandler = (id: number) => {
    clear(id);
    // A connection that left in the middle of an extended query must not hold the others back.
    if (open && q.lastHandlerId === id) {
      open = false;
      void q.processQueue();
    }
  };
}

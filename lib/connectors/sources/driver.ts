/** What each database adapter implements; the runner adds timeouts, cancellation and error cleaning. */
import type { ColumnInfo } from '../source-port';

export type Row = Record<string, unknown>;

/** A running query. */
export interface DriverCursor {
  /** The next batch (1..batchSize rows), or undefined when the query is done. */
  next(): Promise<Row[] | undefined>;
  /** The result columns; called after the first next(), so a driver may learn them from the first batch. */
  columns(): Promise<ColumnInfo[]>;
  /** Stops the query (server-side when the driver can) and frees the cursor; never throws. */
  cancel(): Promise<void>;
}

/** An open connection. */
export interface DriverSession {
  /** Starts `sql`; `signal` aborts it when the caller gives up (timeout or cancel). */
  query(sql: string, batchSize: number, signal: AbortSignal): Promise<DriverCursor>;
  /** Closes the connection without waiting on running work; never throws. */
  close(): Promise<void>;
}

export interface Driver {
  /** A statement that proves the connection works. */
  testSql: string;
  /** Connects within `timeoutMs`; `signal` aborts the attempt (the runner's own timer or the caller). */
  connect(timeoutMs: number, signal: AbortSignal): Promise<DriverSession>;
}

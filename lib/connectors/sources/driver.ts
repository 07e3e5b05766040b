/** What each database adapter implements; the runner adds timeouts, cancellation and error cleaning. */
import type { ColumnInfo, SourceColumns } from '../source-port';

export type Row = Record<string, unknown>;

export interface QueryOptions {
  /** Server-side bound of one statement (one round trip of a cursor). */
  statementTimeoutMs?: number;
  /**
   * The whole result is read (a load's stream), not a preview: a driver may use its bulk protocol
   * (pgsql: COPY … TO STDOUT) and bound the statement as a whole.
   */
  bulk?: boolean;
}

/** Rows column by column (the source port's SourceColumns). */
export type ColumnBatch = SourceColumns;

/** A running query. */
export interface DriverCursor {
  /** The next batch (1..batchSize rows), or undefined when the query is done. */
  next(): Promise<Row[] | undefined>;
  /**
   * The next batch column by column, for a driver that reads a whole result without an object per row
   * (pgsql's COPY); a cursor reads either with next() or with this, never both.
   */
  nextColumns?(): Promise<ColumnBatch | undefined>;
  /** The result columns; called after the first next(), so a driver may learn them from the first batch. */
  columns(): Promise<ColumnInfo[]>;
  /** Stops the query (server-side when the driver can) and frees the cursor; never throws. */
  cancel(): Promise<void>;
}

/** An open connection. */
export interface DriverSession {
  /**
   * Starts `sql` read-only where the database allows it, with `options.statementTimeoutMs` as a server-side
   * bound where it has one (see docs/security.md for what each adapter can enforce); `signal` aborts it.
   */
  query(sql: string, batchSize: number, signal: AbortSignal, options?: QueryOptions): Promise<DriverCursor>;
  /** Closes the connection without waiting on running work; never throws. */
  close(): Promise<void>;
}

export interface Driver {
  /** A statement that proves the connection works. */
  testSql: string;
  /** Connects within `timeoutMs`; `signal` aborts the attempt (the runner's own timer or the caller). */
  connect(timeoutMs: number, signal: AbortSignal): Promise<DriverSession>;
}

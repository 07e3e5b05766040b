/**
 * The source-connector port: what loads, previews and connector tests need from a source database.
 * Types only, so that the adapters in ./sources import it without a cycle (./open-source.ts registers them).
 */

export interface ColumnInfo {
  name: string;
  /** The database's own type name (int4, nvarchar, NUMBER, FIXED…), when the driver reports it. */
  type?: string;
}

export interface PreviewResult {
  columns: ColumnInfo[];
  rows: Record<string, unknown>[];
}

/** A batch of rows column by column (a name given twice: the later column counts, as in a row object). */
export interface SourceColumns {
  names: string[];
  columns: unknown[][];
  length: number;
}

export interface StreamOptions {
  batchSize: number;
  signal?: AbortSignal;
}

/**
 * One source database. Every method fails with UpstreamError carrying a message that is safe to show
 * (no secret), or ValidationError for a bad configuration. One operation at a time per instance.
 */
export interface SourceConnector {
  /** Connects and runs a trivial query, all within `timeoutMs`. */
  test(): Promise<void>;
  /** The first `limit` rows (default 10) and the columns of `sql`; the rest of the query is cancelled. */
  preview(sql: string, limit?: number): Promise<PreviewResult>;
  /** Rows of `sql` in batches of at most `batchSize`; stopping early or aborting cancels the query. */
  stream(sql: string, opts: StreamOptions): AsyncIterable<Record<string, unknown>[]>;
  /**
   * The same rows column by column (`columns[i][r]`: row r's value of the column `names[i]`), without an
   * object per row where the driver can (pgsql's COPY); what a load reads.
   */
  streamColumns(sql: string, opts: StreamOptions): AsyncIterable<SourceColumns>;
  /** Closes the connection; safe to call twice. */
  close(): Promise<void>;
}

/** Opens a named connector as a source to stream from (what a load needs of the connectors). */
export type OpenNamedSource = (
  connectorName: string,
) => Promise<Pick<SourceConnector, 'stream' | 'close'> & Partial<Pick<SourceConnector, 'streamColumns'>>>;

export interface OpenSourceOptions {
  /** Bound on connecting and on test(), in milliseconds. */
  timeoutMs: number;
  /** Bound on each query round trip: until the first rows, and between batches. Default max(timeoutMs, 5 min). */
  queryTimeoutMs?: number;
}

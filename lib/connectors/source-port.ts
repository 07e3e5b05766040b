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
  /**
   * The whole result is read (default): a driver may use its bulk protocol (pgsql's COPY, bounded as a
   * whole by a multiple of the query bound). False for a bounded sample read by a cursor (an API path).
   */
  bulk?: boolean;
}

/** How a date column's values come from the driver: numbers YYYYMMDD, Date objects, or ISO text. */
export type DayKind = 'integer' | 'date' | 'text';

/** The SQL the service writes around a source query, in the source database's own dialect (./dialect.ts). */
export interface SqlDialect {
  /** A statement giving only the first row of `query` (a trailing `;` of it dropped). */
  firstRow(query: string): string;
  /** `query` as a derived table named `alias`, to select from: `(query) alias`. */
  derived(query: string, alias: string): string;
  /** The day (YYYYMMDD) as a literal comparable with a date column of `kind`. */
  dayLiteral(day: number, kind: DayKind): string;
  /** The day of `column` (a quoted name) of `kind`, to group rows by day. */
  dayOf(column: string, kind: DayKind): string;
}

/**
 * One source database. Every method fails with UpstreamError carrying a message that is safe to show
 * (no secret), or ValidationError for a bad configuration. One operation at a time per instance.
 */
export interface SourceConnector {
  /** The SQL dialect of the source database. */
  readonly dialect: SqlDialect;
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
) => Promise<
  Pick<SourceConnector, 'stream' | 'close'> & Partial<Pick<SourceConnector, 'streamColumns' | 'dialect'>>
>;

export interface OpenSourceOptions {
  /** Bound on connecting and on test(), in milliseconds. */
  timeoutMs: number;
  /** Bound on each query round trip: until the first rows, and between batches. Default max(timeoutMs, 5 min). */
  queryTimeoutMs?: number;
}

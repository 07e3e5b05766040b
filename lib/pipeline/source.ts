/** The port a load reads its source through: a named connector opened as a stream of row batches. */
import type { SqlDialect } from '../connectors/source-port';

export type SourceRow = Record<string, unknown>;

/** Rows column by column: `columns[i][r]` is row r's value of `names[i]` (lib/connectors SourceColumns). */
export interface SourceColumns {
  names: string[];
  columns: unknown[][];
  length: number;
}

/** What a load needs of a source connector (lib/connectors SourceConnector satisfies it). */
export interface LoadSource {
  /** The source database's SQL dialect (the split load writes its queries in it); PostgreSQL's when absent. */
  dialect?: SqlDialect;
  /** Rows of `sql` in batches of at most `batchSize`; aborting `signal` cancels the query. */
  stream(sql: string, opts: { batchSize: number; signal?: AbortSignal }): AsyncIterable<SourceRow[]>;
  /** The same rows column by column, when the connector reads them so (a load prefers it). */
  streamColumns?(
    sql: string,
    opts: { batchSize: number; signal?: AbortSignal },
  ): AsyncIterable<SourceColumns>;
  close(): Promise<void>;
}

/** Opens the connector of a data view by its name. */
export type OpenSource = (connectorName: string) => Promise<LoadSource>;

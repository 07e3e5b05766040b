/** The port a load reads its source through: a named connector opened as a stream of row batches. */

export type SourceRow = Record<string, unknown>;

/** What a load needs of a source connector (lib/connectors SourceConnector satisfies it). */
export interface LoadSource {
  /** Rows of `sql` in batches of at most `batchSize`; aborting `signal` cancels the query. */
  stream(sql: string, opts: { batchSize: number; signal?: AbortSignal }): AsyncIterable<SourceRow[]>;
  close(): Promise<void>;
}

/** Opens the connector of a data view by its name. */
export type OpenSource = (connectorName: string) => Promise<LoadSource>;

/** How a data view row is shown: its state, the summary, the lite entry and the full document. */
import type { DataViewState } from './definition/index';
import type { DataViewRecord } from './views';
import type { DataViewDocument, DataViewLite, DataViewSummary } from './types';

/** prepared (not deployed), disabled (deployed, not enabled) or enabled. */
export function stateOf(row: Pick<DataViewRecord, 'deployed' | 'enabled'>): DataViewState {
  if (!row.deployed) return 'prepared';
  return row.enabled ? 'enabled' : 'disabled';
}

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/** `<domain>/<name>`, how messages name a view. */
export function label(row: Pick<DataViewRecord, 'domain' | 'name'>): string {
  return `${row.domain}/${row.name}`;
}

export function toSummary(row: DataViewRecord): DataViewSummary {
  return {
    id: row.id,
    name: row.name,
    domain: row.domain,
    description: row.description,
    tags: row.tags,
    connector: row.connector,
    state: stateOf(row),
    deployed: row.deployed,
    enabled: row.enabled,
    deployedAt: iso(row.deployedAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toLite(row: DataViewRecord): DataViewLite {
  return { id: row.id, name: row.name, domain: row.domain, state: stateOf(row) };
}

/**
 * What a data user is shown of a view: the summary without the connector's name. How the view loads (the
 * connector, the load queries, the data source) is the administrators' business: the SQL names tables and
 * columns of a source the data user has no access to.
 */
export function toReaderSummary(row: DataViewRecord): Omit<DataViewSummary, 'connector'> {
  const { connector: _hidden, ...rest } = toSummary(row);
  return rest;
}

/** The definition as a data user sees it: without the connector, the load queries and the data source. */
export function toReaderDocument(row: DataViewRecord): DataViewDocument {
  const doc = toDocument(row);
  const { connector: _c, loadQuery: _q, customLoadQuery: _cq, ...source } = doc.source ?? {};
  const { dataSource: _d, ...metadata } = doc.metadata ?? {};
  return { ...doc, metadata, source: source as DataViewDocument['source'] } as DataViewDocument;
}

/** The stored definition with the read-only fields first, so a GET can be edited and PUT back. */
export function toDocument(row: DataViewRecord): DataViewDocument {
  return {
    id: row.id,
    state: stateOf(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    ...row.definition,
  };
}

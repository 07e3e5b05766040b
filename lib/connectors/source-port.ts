/** The source-connector port: what loads, previews and connector tests need from a source database. */
import { ValidationError } from '../shared/errors';
import { type DriverConfig, describeTarget, toDriverConfig } from './conn-string/index';
import { secretsOf } from './masking';
import type { Driver } from './sources/driver';
import { createSource } from './sources/runner';
import { fabricDriver } from './sources/fabric';
import { mssqlDriver } from './sources/mssql';
import { oracleDriver } from './sources/oracle';
import { pgsqlDriver } from './sources/pgsql';
import { snowflakeDriver } from './sources/snowflake';
import { type ConnectorType, isConnectorType } from './types';

export interface ColumnInfo {
  name: string;
  /** The database's own type name (int4, nvarchar, NUMBER, FIXED…), when the driver reports it. */
  type?: string;
}

export interface PreviewResult {
  columns: ColumnInfo[];
  rows: Record<string, unknown>[];
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
  /** Closes the connection; safe to call twice. */
  close(): Promise<void>;
}

export interface OpenSourceOptions {
  /** Bound on connecting and on test(), in milliseconds. */
  timeoutMs: number;
  /** Bound on each query round trip: until the first rows, and between batches. Default max(timeoutMs, 5 min). */
  queryTimeoutMs?: number;
}

type ConfigOf<T extends ConnectorType> = Extract<DriverConfig, { type: T }>['config'];

// Registered by type name; each adapter imports its driver package only when it first connects.
const drivers: { [T in ConnectorType]: (config: ConfigOf<T>) => Driver } = {
  pgsql: pgsqlDriver,
  mssql: mssqlDriver,
  oracle: oracleDriver,
  snowflake: snowflakeDriver,
  fabric: fabricDriver,
};

/** Opens a connector of `type` (no I/O until the first call); a bad configuration throws ValidationError now. */
export function openSource(
  type: ConnectorType,
  configuration: unknown,
  options: OpenSourceOptions,
): SourceConnector {
  if (!isConnectorType(type)) throw ValidationError.field('type', `unknown connector type '${String(type)}'`);
  const timeoutMs = Math.max(1, options.timeoutMs);
  const d = toDriverConfig(type, configuration);
  const factory = drivers[d.type] as (config: DriverConfig['config']) => Driver;
  return createSource(factory(d.config), {
    target: describeTarget(d),
    secrets: secretsOf(configuration),
    timeoutMs,
    queryTimeoutMs: options.queryTimeoutMs ?? Math.max(timeoutMs, 300_000),
  });
}

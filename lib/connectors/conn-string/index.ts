/** Connection configuration of every connector type → the options of its driver. */
import { ValidationError } from '../../shared/errors';
import { CONN_STRING_PATH, type ConnectorType } from '../types';
import { fabricToMssqlConfig } from './fabric';
import { type MssqlConfig, parseMssqlConnString } from './mssql';
import { type OracleConfig, oracleTarget, parseOracleConnString } from './oracle';
import { type PgConfig, parsePgsqlConnString } from './pgsql';
import { parseSnowflakeConnString, type SnowflakeConfig } from './snowflake';

export type { MssqlConfig } from './mssql';
export type { OracleConfig } from './oracle';
export type { PgConfig, PgSslMode } from './pgsql';
export type { SnowflakeConfig } from './snowflake';
export { parseMssqlConnString, parseServer } from './mssql';
export { parseOracleConnString, oracleTarget } from './oracle';
export { parsePgsqlConnString } from './pgsql';
export { parseSnowflakeConnString } from './snowflake';
export { fabricToMssqlConfig } from './fabric';
export { tokenizeConnString, isSensitiveKey, type ConnPair } from './tokenize';

export type DriverConfig =
  | { type: 'mssql'; config: MssqlConfig }
  | { type: 'fabric'; config: MssqlConfig }
  | { type: 'pgsql'; config: PgConfig }
  | { type: 'oracle'; config: OracleConfig }
  | { type: 'snowflake'; config: SnowflakeConfig };

/** Reads `configuration` of a connector of `type`; throws ValidationError naming the field and key at fault. */
export function toDriverConfig(type: ConnectorType, configuration: unknown): DriverConfig {
  if (type === 'fabric') return { type, config: fabricToMssqlConfig(configuration) };
  const text = (configuration as { conn_string?: unknown } | null | undefined)?.conn_string;
  if (typeof text !== 'string' || !text.trim()) throw ValidationError.field(CONN_STRING_PATH, 'is required');
  switch (type) {
    case 'mssql':
      return { type, config: parseMssqlConnString(text) };
    case 'pgsql':
      return { type, config: parsePgsqlConnString(text) };
    case 'oracle':
      return { type, config: parseOracleConnString(text) };
    case 'snowflake':
      return { type, config: parseSnowflakeConnString(text) };
    default:
      throw ValidationError.field('type', `unknown connector type '${String(type)}'`);
  }
}

/** "host:port" (or the account host) that messages name; never holds credentials. */
export function describeTarget(d: DriverConfig): string {
  switch (d.type) {
    case 'mssql':
    case 'fabric': {
      const c = d.config;
      if (c.port === undefined && c.options.instanceName) return `${c.server}\\${c.options.instanceName}`;
      return `${c.server}:${c.port ?? 1433}`;
    }
    case 'pgsql':
      return d.config.host.map((h, i) => `${h}:${d.config.port[i]}`).join(',');
    case 'oracle':
      return oracleTarget(d.config.connectString);
    case 'snowflake': {
      const c = d.config;
      const host = c.host ?? `${c.account}.snowflakecomputing.com`;
      return `${host}:${c.port ?? (c.protocol === 'http' ? 80 : 443)}`;
    }
  }
}

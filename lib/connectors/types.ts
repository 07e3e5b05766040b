/** Connector types and the shape of their configuration (spec: Connector). */

export const CONNECTOR_TYPES = ['mssql', 'pgsql', 'oracle', 'snowflake', 'fabric'] as const;

export type ConnectorType = (typeof CONNECTOR_TYPES)[number];

/** mssql, pgsql, oracle and snowflake authenticate through an ADO.NET-style connection string. */
export interface ConnStringConfiguration {
  conn_string: string;
}

/** fabric authenticates with an Entra ID service principal. */
export interface FabricConfiguration {
  server: string;
  database: string;
  tenant_id: string;
  client_id: string;
  client_secret: string;
}

export type ConnectorConfiguration = ConnStringConfiguration | FabricConfiguration;

/** Field path of the connection string in a request body, used in every parse error. */
export const CONN_STRING_PATH = 'configuration.conn_string';

export function isConnectorType(value: unknown): value is ConnectorType {
  return typeof value === 'string' && (CONNECTOR_TYPES as readonly string[]).includes(value);
}

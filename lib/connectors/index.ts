/** The connector domain below HTTP: configuration checks, masking, and the source-connector port. */
import { toDriverConfig } from './conn-string/index';
import type { ConnectorType } from './types';

export * from './types';
export { maskConfiguration, maskConnString, scrubSecrets, secretsOf, MASK } from './masking';
export { openSource } from './open-source';
export type {
  SourceConnector,
  OpenSourceOptions,
  PreviewResult,
  ColumnInfo,
  StreamOptions,
} from './source-port';
export { toDriverConfig, describeTarget, type DriverConfig } from './conn-string/index';

/**
 * Checks a configuration beyond its JSON Schema: the connection string parses and has what its type needs.
 * Throws ValidationError on `configuration.conn_string` (or `configuration.<field>` for fabric).
 */
export function validateConnectorConfiguration(type: ConnectorType, configuration: unknown): void {
  toDriverConfig(type, configuration);
}

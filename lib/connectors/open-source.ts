/** Opens a source connector by type: the registry of the adapters in ./sources behind the port of ./source-port. */
import { ValidationError } from '../shared/errors';
import { type DriverConfig, describeTarget, toDriverConfig } from './conn-string/index';
import { DIALECTS } from './dialect';
import { secretsOf } from './masking';
import type { OpenSourceOptions, SourceConnector } from './source-port';
import type { Driver } from './sources/driver';
import { fabricDriver } from './sources/fabric';
import { mssqlDriver } from './sources/mssql';
import { oracleDriver } from './sources/oracle';
import { pgsqlDriver } from './sources/pgsql';
import { createSource } from './sources/runner';
import { snowflakeDriver } from './sources/snowflake';
import { type ConnectorType, isConnectorType } from './types';

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
    dialect: DIALECTS[d.type],
  });
}

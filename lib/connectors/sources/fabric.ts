/** Fabric SQL endpoint adapter: the SQL Server adapter with an Entra ID service principal and TLS always on. */
import type { MssqlConfig } from '../conn-string/index';
import type { Driver } from './driver';
import { mssqlDriver } from './mssql';

export function fabricDriver(config: MssqlConfig): Driver {
  return mssqlDriver({ ...config, options: { ...config.options, encrypt: true } });
}

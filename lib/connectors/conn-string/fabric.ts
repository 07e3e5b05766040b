/** Fabric SQL endpoint configuration (service principal) → `mssql`/tedious connection config. */
import { ValidationError } from '../../shared/errors';
import type { FabricConfiguration } from '../types';
import type { MssqlConfig } from './mssql';

const FIELDS = ['server', 'database', 'tenant_id', 'client_id', 'client_secret'] as const;

/** Checks the five fields and maps them; `server` may carry `tcp:` and `,port` as Fabric shows it. */
export function fabricToMssqlConfig(configuration: unknown): MssqlConfig {
  const cfg = (configuration ?? {}) as Partial<Record<(typeof FIELDS)[number], unknown>>;
  const errors = FIELDS.filter((f) => typeof cfg[f] !== 'string' || !(cfg[f] as string).trim()).map((f) => ({
    path: `configuration.${f}`,
    message: 'is required',
  }));
  if (errors.length) {
    throw new ValidationError(`Invalid request: ${errors[0].path} is required.`, errors);
  }
  const c = cfg as FabricConfiguration;
  const m = /^(?:tcp:)?\s*([^,:\s]+)\s*(?:[,:]\s*(\S+))?\s*$/i.exec(c.server.trim());
  if (!m) throw ValidationError.field('configuration.server', 'is not a host name (host or host,port)');
  let port = 1433;
  if (m[2] !== undefined) {
    if (!/^\d+$/.test(m[2]) || Number(m[2]) < 1 || Number(m[2]) > 65_535) {
      throw ValidationError.field('configuration.server', `port '${m[2]}' is not a number`);
    }
    port = Number(m[2]);
  }
  return {
    server: m[1],
    port,
    database: c.database.trim(),
    authentication: {
      type: 'azure-active-directory-service-principal-secret',
      options: { clientId: c.client_id.trim(), clientSecret: c.client_secret, tenantId: c.tenant_id.trim() },
    },
    // Fabric endpoints only speak TLS with a public certificate.
    options: { encrypt: true, trustServerCertificate: false },
  };
}

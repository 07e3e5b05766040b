/** PostgreSQL connection string (Npgsql keys, a postgres:// URL or libpq keywords) → postgres.js options. */
import { connStringError } from './errors';
import {
  APPLICATION_NAME,
  COMMAND_TIMEOUT,
  CONNECT_TIMEOUT,
  DATABASE,
  ENCRYPT,
  ENCRYPT_CHOICES,
  ENCRYPT_SHOWN,
  PASSWORD,
  POOLING,
  PORT,
  SERVER,
  SSL_MODE,
  TRUST_SERVER_CERTIFICATE,
  USER,
} from './keys';
import { libpqPairs, pgUrlPairs } from './pg-forms';
import { ConnReader, key, splitHostPort } from './reader';
import { type ConnPair, looksLikeUrl, tokenizeConnString } from './tokenize';

export type PgSslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';

/** TLS options for verify-ca: the chain is checked, the host name is not. */
export interface PgTlsOptions {
  rejectUnauthorized: boolean;
  checkServerIdentity?: () => undefined;
}

/** The postgres.js options the service sets (connect_timeout in seconds, as postgres.js wants it). */
export interface PgConfig {
  host: string[];
  port: number[];
  database?: string;
  username: string;
  password: string;
  ssl: false | 'allow' | 'prefer' | 'require' | 'verify-full' | PgTlsOptions;
  sslMode: PgSslMode;
  connect_timeout?: number;
  target_session_attrs?: string;
  connection: Record<string, string>;
}

const SSL_CHOICES: Record<string, PgSslMode> = {
  disable: 'disable',
  allow: 'allow',
  prefer: 'prefer',
  require: 'require',
  verifyca: 'verify-ca',
  verifyfull: 'verify-full',
};
const SSL_SHOWN = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];
const TSA_CHOICES: Record<string, string | undefined> = {
  any: undefined,
  readwrite: 'read-write',
  readonly: 'read-only',
  primary: 'primary',
  standby: 'standby',
  preferstandby: 'prefer-standby',
};

const LEGACY_SSL = key('SSL', 'Use SSL');
const SEARCH_PATH = key('Search Path', 'SearchPath', 'search_path');
const TARGET_SESSION = key('Target Session Attributes', 'TargetSessionAttributes', 'target_session_attrs');
const IGNORED = [
  ...POOLING,
  key('Keepalive', 'Tcp Keepalive', 'keepalives', 'Tcp Keepalive Time', 'Tcp Keepalive Interval'),
  key('Include Error Detail', 'IncludeErrorDetail'),
  key('No Reset On Close'),
  key('Server Compatibility Mode'),
  key('Client Encoding', 'Encoding', 'client_encoding'),
  key('Timezone'),
  key('Read Buffer Size'),
  key('Write Buffer Size'),
  key('Max Auto Prepare'),
  key('Auto Prepare Min Usages'),
  key('Multiplexing'),
  key('Internal Command Timeout'),
  key('Connection Pruning Interval'),
  key('fallback_application_name'),
  key('gssencmode'),
  key('Options'),
];

/** Parses any of the three forms; the URL and libpq forms go through the same key table as Npgsql's. */
export function parsePgsqlConnString(text: string): PgConfig {
  const pairs: ConnPair[] = looksLikeUrl(text)
    ? pgUrlPairs(text.trim())
    : (libpqPairs(text) ?? tokenizeConnString(text));
  const r = new ConnReader(pairs);

  const hostRaw = r.required(SERVER);
  const defaultPort = r.int(PORT, 1, 65_535) ?? 5432;
  const host: string[] = [];
  const port: number[] = [];
  // Npgsql and libpq accept several hosts for failover: "h1,h2:5433".
  for (const part of hostRaw.split(',')) {
    const hp = splitHostPort(part, 'Host', false);
    if (!hp.host) throw connStringError('missing Host');
    if (hp.host.startsWith('/'))
      throw connStringError('Unix socket paths are not supported: give a TCP host');
    host.push(hp.host);
    port.push(hp.port ?? defaultPort);
  }
  const username = r.required(USER);
  // A password is optional: trust and certificate authentication exist.
  const password = r.pair(PASSWORD)?.value ?? '';

  const encrypt = r.choice(ENCRYPT, ENCRYPT_CHOICES, ENCRYPT_SHOWN);
  const legacySsl = r.bool(LEGACY_SSL);
  const sslMode: PgSslMode =
    r.choice(SSL_MODE, SSL_CHOICES, SSL_SHOWN) ??
    (encrypt === 'strict'
      ? 'verify-full'
      : encrypt !== undefined
        ? encrypt
          ? 'require'
          : 'disable'
        : legacySsl !== undefined
          ? legacySsl
            ? 'require'
            : 'disable'
          : 'prefer');
  const trust = r.bool(TRUST_SERVER_CERTIFICATE) ?? false;
  if (trust && (sslMode === 'verify-ca' || sslMode === 'verify-full')) {
    throw connStringError(`Trust Server Certificate cannot be combined with SSL Mode ${sslMode}`);
  }

  const config: PgConfig = {
    host,
    port,
    username,
    password,
    ssl: sslOption(sslMode),
    sslMode,
    connection: {},
  };
  const database = r.str(DATABASE);
  if (database) config.database = database;
  const connectSeconds = r.seconds(CONNECT_TIMEOUT);
  if (connectSeconds) config.connect_timeout = connectSeconds;
  const commandSeconds = r.seconds(COMMAND_TIMEOUT);
  // Npgsql's Command Timeout is enforced by the server here, which also stops the work on the server.
  if (commandSeconds) config.connection.statement_timeout = String(commandSeconds * 1000);
  const appName = r.str(APPLICATION_NAME);
  if (appName) config.connection.application_name = appName;
  const searchPath = r.str(SEARCH_PATH);
  if (searchPath) config.connection.search_path = searchPath;
  const tsa = r.choice(TARGET_SESSION, TSA_CHOICES, [
    'any',
    'read-write',
    'read-only',
    'primary',
    'standby',
    'prefer-standby',
  ]);
  if (tsa) config.target_session_attrs = tsa;
  r.ignore(...IGNORED);
  r.rejectUnknown('pgsql');
  return config;
}

/** postgres.js spells the modes itself except verify-ca, which needs TLS options. */
function sslOption(mode: PgSslMode): PgConfig['ssl'] {
  switch (mode) {
    case 'disable':
      return false;
    case 'verify-ca':
      return { rejectUnauthorized: true, checkServerIdentity: () => undefined };
    default:
      return mode;
  }
}

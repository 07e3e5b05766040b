/** The settings and aliases shared by the connection-string types (ADO.NET, Npgsql, ODP.NET spellings). */
import { key } from './reader';

export const SERVER = key(
  'Server',
  'Data Source',
  'Host',
  'Address',
  'Addr',
  'Network Address',
  'DataSource',
);
export const PORT = key('Port');
export const DATABASE = key('Database', 'Initial Catalog', 'DB', 'dbname');
export const USER = key('User Id', 'UID', 'User', 'Username', 'User Name', 'UserID');
export const PASSWORD = key('Password', 'PWD');
export const ENCRYPT = key('Encrypt');
export const TRUST_SERVER_CERTIFICATE = key('TrustServerCertificate', 'Trust Server Certificate');
export const SSL_MODE = key('SSL Mode', 'SslMode', 'sslmode');
export const CONNECT_TIMEOUT = key('Connect Timeout', 'Connection Timeout', 'Timeout', 'connect_timeout');
export const COMMAND_TIMEOUT = key('Command Timeout', 'CommandTimeout', 'Default Command Timeout');
export const APPLICATION_NAME = key('Application Name', 'App', 'application_name', 'ApplicationName');

/** Client-side pool and session knobs that have no meaning for a short-lived serverless connection. */
export const POOLING = [
  key('Pooling'),
  key('Min Pool Size', 'Minimum Pool Size', 'MinPoolSize'),
  key('Max Pool Size', 'Maximum Pool Size', 'MaxPoolSize'),
  key('Connection Lifetime', 'Load Balance Timeout', 'Connection Idle Lifetime'),
  key('Persist Security Info', 'PersistSecurityInfo'),
  key('Enlist'),
];

/** ADO.NET Encrypt: yes/mandatory/true, no/optional/false, strict (TDS 8). */
export const ENCRYPT_CHOICES: Record<string, boolean | 'strict'> = {
  true: true,
  yes: true,
  mandatory: true,
  false: false,
  no: false,
  optional: false,
  strict: 'strict',
};
export const ENCRYPT_SHOWN = ['true', 'false', 'yes', 'no', 'strict', 'mandatory', 'optional'];

/** SQL Server connection string (SqlClient spelling) → `mssql`/tedious connection config. */
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
  TRUST_SERVER_CERTIFICATE,
  USER,
} from './keys';
import { ConnReader, key, splitHostPort } from './reader';
import { tokenizeConnString } from './tokenize';

/** The subset of the `mssql` ConnectionPool config the service sets; times are milliseconds. */
export interface MssqlConfig {
  server: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
  connectionTimeout?: number;
  requestTimeout?: number;
  authentication?: { type: string; options: Record<string, string> };
  options: {
    encrypt: boolean | 'strict';
    trustServerCertificate: boolean;
    instanceName?: string;
    appName?: string;
    readOnlyIntent?: boolean;
    multiSubnetFailover?: boolean;
    packetSize?: number;
    workstationId?: string;
    language?: string;
    serverName?: string;
  };
}

const INTEGRATED = key('Integrated Security', 'Trusted_Connection');
const AUTHENTICATION = key('Authentication');
const APPLICATION_INTENT = key('ApplicationIntent', 'Application Intent');
const MULTI_SUBNET = key('MultiSubnetFailover', 'Multi Subnet Failover');
const PACKET_SIZE = key('Packet Size', 'PacketSize');
const WORKSTATION = key('Workstation ID', 'WSID', 'WorkstationID');
const LANGUAGE = key('Current Language', 'Language');
const HOST_IN_CERT = key('HostNameInCertificate', 'Host Name In Certificate', 'ServerCertificate');
const IGNORED = [
  ...POOLING,
  key('MultipleActiveResultSets', 'MARS_Connection', 'Multiple Active Result Sets'),
  key('Connect Retry Count', 'ConnectRetryCount'),
  key('Connect Retry Interval', 'ConnectRetryInterval'),
  key('Pool Blocking Period', 'PoolBlockingPeriod'),
  key('Type System Version'),
  key('Transaction Binding'),
  key('Replication'),
  key('Failover Partner', 'FailoverPartner'),
  key('Column Encryption Setting'),
  key('IP Address Preference', 'IPAddressPreference'),
  // ODBC and OLE DB strings name their driver; TCP is the only transport anyway.
  key('Driver'),
  key('Provider'),
  key('Network Library', 'Net', 'Network'),
];

/** Parses a SQL Server connection string; `Server` accepts host, host\instance, host,port, host:port, tcp:…. */
export function parseMssqlConnString(text: string): MssqlConfig {
  const r = new ConnReader(tokenizeConnString(text));
  const serverRaw = r.required(SERVER);
  const integrated = r.pair(INTEGRATED);
  if (integrated && !/^(false|no)$/i.test(integrated.value.trim())) {
    throw connStringError(
      `${integrated.key} (Windows authentication) is not supported: use a SQL login with User Id and Password`,
    );
  }
  const auth = r.str(AUTHENTICATION);
  if (auth && !/^(sql\s*password|sqlpassword)$/i.test(auth.trim())) {
    throw connStringError(
      `Authentication '${auth}' is not supported: use a SQL login, or the fabric type for a service principal`,
    );
  }

  const { host, port: serverPort, instanceName } = parseServer(serverRaw);
  const port = r.int(PORT, 1, 65_535) ?? serverPort;
  const user = r.required(USER);
  const password = r.pair(PASSWORD);
  if (!password) throw connStringError('missing Password');
  const connectSeconds = r.seconds(CONNECT_TIMEOUT);
  const commandSeconds = r.seconds(COMMAND_TIMEOUT);
  const intent = r.choice(APPLICATION_INTENT, { readonly: true, readwrite: false }, [
    'ReadOnly',
    'ReadWrite',
  ]);

  const config: MssqlConfig = {
    server: host,
    user,
    password: password.value,
    options: {
      encrypt: r.choice(ENCRYPT, ENCRYPT_CHOICES, ENCRYPT_SHOWN) ?? true,
      trustServerCertificate: r.bool(TRUST_SERVER_CERTIFICATE) ?? false,
    },
  };
  // tedious treats port and instance name as exclusive; an explicit port wins, as in SqlClient.
  if (port !== undefined) config.port = port;
  else if (instanceName) config.options.instanceName = instanceName;
  const database = r.str(DATABASE);
  if (database) config.database = database;
  if (connectSeconds) config.connectionTimeout = connectSeconds * 1000;
  if (commandSeconds) config.requestTimeout = commandSeconds * 1000;
  const appName = r.str(APPLICATION_NAME);
  if (appName) config.options.appName = appName;
  if (intent !== undefined) config.options.readOnlyIntent = intent;
  const multiSubnet = r.bool(MULTI_SUBNET);
  if (multiSubnet !== undefined) config.options.multiSubnetFailover = multiSubnet;
  const packetSize = r.int(PACKET_SIZE, 512, 32_767);
  if (packetSize) config.options.packetSize = packetSize;
  const workstation = r.str(WORKSTATION);
  if (workstation) config.options.workstationId = workstation;
  const language = r.str(LANGUAGE);
  if (language) config.options.language = language;
  const certHost = r.str(HOST_IN_CERT);
  if (certHost) config.options.serverName = certHost;
  r.ignore(...IGNORED);
  r.rejectUnknown('mssql');
  return config;
}

/** `tcp:host\instance,1433` → parts. Named pipes and shared memory cannot be reached from a Lambda. */
export function parseServer(raw: string): { host: string; port?: number; instanceName?: string } {
  let v = raw.trim();
  const proto = /^(tcp|np|lpc|admin):/i.exec(v);
  if (proto) {
    const p = proto[1].toLowerCase();
    if (p !== 'tcp') {
      throw connStringError(`Server protocol '${proto[1]}:' is not supported: only TCP (tcp:host,port)`);
    }
    v = v.slice(proto[0].length);
  }
  let instanceName: string | undefined;
  const slash = v.indexOf('\\');
  let rest = v;
  if (slash >= 0) {
    const after = v.slice(slash + 1);
    const comma = after.search(/[,:]/);
    instanceName = (comma >= 0 ? after.slice(0, comma) : after).trim() || undefined;
    rest = v.slice(0, slash) + (comma >= 0 ? after.slice(comma) : '');
  }
  const { host, port } = splitHostPort(rest, 'Server', true);
  if (!host) throw connStringError('missing Server host');
  const local = host === '.' || host.toLowerCase() === '(local)' || host.toLowerCase() === '(localdb)';
  return { host: local ? 'localhost' : host, port, instanceName };
}

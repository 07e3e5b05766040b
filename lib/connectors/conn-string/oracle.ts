/** Oracle connection string (ODP.NET keys) → node-oracledb thin-mode connection attributes. */
import { connStringError } from './errors';
import {
  APPLICATION_NAME,
  CONNECT_TIMEOUT,
  ENCRYPT,
  ENCRYPT_CHOICES,
  ENCRYPT_SHOWN,
  PASSWORD,
  POOLING,
  PORT,
  USER,
} from './keys';
import { ConnReader, key, splitHostPort } from './reader';
import { tokenizeConnString } from './tokenize';

/** Attributes for `oracledb.getConnection` (timeouts in seconds, as oracledb wants them). */
export interface OracleConfig {
  user: string;
  password: string;
  /** Easy Connect (`host:port/service`) or a full `(DESCRIPTION=…)` descriptor, passed through. */
  connectString: string;
  connectTimeout?: number;
  program?: string;
}

const DATA_SOURCE = key('Data Source', 'DataSource', 'Connect String', 'ConnectString', 'Connect Descriptor');
const HOST = key('Host', 'Server', 'Address', 'Addr', 'Network Address');
const SERVICE = key('Service Name', 'ServiceName', 'Service', 'Database', 'Initial Catalog', 'DB');
const SID = key('SID');
const DBA = key('DBA Privilege');
const IGNORED = [
  ...POOLING,
  key('Incr Pool Size'),
  key('Decr Pool Size'),
  key('Statement Cache Size'),
  key('Statement Cache Purge'),
  key('Validate Connection'),
  key('Self Tuning'),
  key('Metadata Pooling'),
  key('HA Events'),
  key('Load Balancing'),
  key('Promotable Transaction'),
];

/**
 * Data Source may be `host:port/service`, `//host:port/service`, `tcps://host:port/service` or a TNS
 * descriptor; alternatively Host, Port and Service Name (or SID) are given one by one.
 */
export function parseOracleConnString(text: string): OracleConfig {
  const r = new ConnReader(tokenizeConnString(text));
  const dataSource = r.str(DATA_SOURCE);
  const host = r.str(HOST);
  const user = r.required(USER);
  const password = r.pair(PASSWORD);
  if (!password) throw connStringError('missing Password');
  const dba = r.str(DBA);
  if (dba) throw connStringError('DBA Privilege is not supported: connect as an ordinary user');

  const portPair = r.pair(PORT);
  const port = r.int(PORT, 1, 65_535);
  const encrypt = r.choice(ENCRYPT, ENCRYPT_CHOICES, ENCRYPT_SHOWN);
  const servicePair = r.pair(SERVICE);
  const service = r.str(SERVICE);
  const sidPair = r.pair(SID);
  const sid = r.str(SID);

  let connectString: string;
  if (dataSource && host) throw connStringError('give either Data Source or Host, not both');
  if (dataSource || (host && /[/(]/.test(host))) {
    const extra = portPair ?? servicePair ?? sidPair;
    if (extra)
      throw connStringError(`${extra.key} cannot be combined with a full Data Source: put it in there`);
    connectString = checkDataSource(dataSource ?? (host as string));
  } else if (host) {
    const hp = splitHostPort(host, 'Host', false);
    const p = port ?? hp.port ?? 1521;
    const h = hp.host.includes(':') ? `[${hp.host}]` : hp.host;
    if (sid && !service) {
      const protocol = encrypt ? 'TCPS' : 'TCP';
      connectString = `(DESCRIPTION=(ADDRESS=(PROTOCOL=${protocol})(HOST=${hp.host})(PORT=${p}))(CONNECT_DATA=(SID=${sid})))`;
    } else if (service) {
      connectString = `${encrypt ? 'tcps://' : ''}${h}:${p}/${service}`;
    } else {
      throw connStringError('missing Service Name (or SID)');
    }
  } else {
    throw connStringError('missing Data Source');
  }

  const config: OracleConfig = { user, password: password.value, connectString };
  const seconds = r.seconds(CONNECT_TIMEOUT);
  if (seconds) config.connectTimeout = seconds;
  const program = r.str(APPLICATION_NAME);
  if (program) config.program = program;
  r.ignore(...IGNORED);
  r.rejectUnknown('oracle');
  return config;
}

/** Validates a Data Source and returns it as oracledb accepts it. */
function checkDataSource(raw: string): string {
  const v = raw.trim();
  if (v.startsWith('(')) {
    let depth = 0;
    for (const c of v) {
      if (c === '(') depth++;
      else if (c === ')' && --depth < 0) break;
    }
    if (depth !== 0) throw connStringError('the Data Source descriptor has unbalanced parentheses');
    if (!/\(\s*HOST\s*=/i.test(v)) throw connStringError('the Data Source descriptor has no (HOST=…)');
    if (!/\(\s*(SERVICE_NAME|SID)\s*=/i.test(v)) {
      throw connStringError('the Data Source descriptor has no (SERVICE_NAME=…) or (SID=…)');
    }
    return v;
  }
  const body = v.replace(/^(tcps?:)?\/\//i, '');
  const slash = body.indexOf('/');
  if (slash < 0) {
    if (/^[A-Za-z][\w$#-]*$/.test(body)) {
      throw connStringError(
        `Data Source '${body}' looks like a TNS alias, which needs a tnsnames.ora: write host:port/service or a (DESCRIPTION=…) descriptor`,
      );
    }
    throw connStringError('Data Source needs a service name: host:port/service');
  }
  const hp = splitHostPort(body.slice(0, slash), 'Data Source', false);
  if (!hp.host) throw connStringError('Data Source has no host: host:port/service');
  const service = body.slice(slash + 1).split(/[?:/]/)[0];
  if (!service) throw connStringError('Data Source needs a service name: host:port/service');
  return v;
}

/** "host:port" of the first address of an Oracle connect string, for messages. */
export function oracleTarget(connectString: string): string {
  if (connectString.startsWith('(')) {
    const host = /\(\s*HOST\s*=\s*([^)\s]+)\s*\)/i.exec(connectString)?.[1] ?? '?';
    const port = /\(\s*PORT\s*=\s*(\d+)\s*\)/i.exec(connectString)?.[1] ?? '1521';
    return `${host}:${port}`;
  }
  const body = connectString.replace(/^(tcps?:)?\/\//i, '');
  const hostPort = body.slice(0, body.indexOf('/') < 0 ? undefined : body.indexOf('/'));
  return /:\d+$/.test(hostPort) ? hostPort : `${hostPort}:1521`;
}

/** Snowflake connection string (.NET connector keys) → snowflake-sdk connection options. */
import { connStringError } from './errors';
import { APPLICATION_NAME, CONNECT_TIMEOUT, DATABASE, PASSWORD, POOLING, PORT, USER } from './keys';
import { ConnReader, key } from './reader';
import { tokenizeConnString } from './tokenize';

/** The snowflake-sdk `createConnection` options the service sets (`timeout` in milliseconds). */
export interface SnowflakeConfig {
  account: string;
  username: string;
  password?: string;
  authenticator: 'SNOWFLAKE' | 'SNOWFLAKE_JWT' | 'OAUTH' | 'PROGRAMMATIC_ACCESS_TOKEN';
  token?: string;
  privateKey?: string;
  privateKeyPass?: string;
  warehouse?: string;
  role?: string;
  database?: string;
  schema?: string;
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
  region?: string;
  application?: string;
  timeout?: number;
}

const ACCOUNT = key('Account', 'Account Name', 'AccountName');
const WAREHOUSE = key('Warehouse');
const ROLE = key('Role');
const SCHEMA = key('Schema');
const AUTHENTICATOR = key('Authenticator');
const TOKEN = key('Token');
const PRIVATE_KEY = key('Private_Key', 'PrivateKey');
const PRIVATE_KEY_PWD = key('Private_Key_Pwd', 'PrivateKeyPwd', 'Private_Key_Password', 'PrivateKeyPass');
const PRIVATE_KEY_FILE = key('Private_Key_File', 'PrivateKeyFile', 'PrivateKeyPath');
const HOST = key('Host', 'Server', 'Address');
const SCHEME = key('Scheme', 'Protocol');
const REGION = key('Region');
const APPLICATION = key('Application');
const IGNORED = [
  ...POOLING,
  key('PoolingEnabled'),
  key('Insecure Mode', 'InsecureMode'),
  key('Client Session Keep Alive', 'ClientSessionKeepAlive', 'CLIENT_SESSION_KEEP_ALIVE'),
  key('DisableRetry'),
  key('MaxHttpRetries'),
  key('RetryTimeout'),
  key('ExpirationTimeout'),
  key('Browser Response Timeout', 'BrowserResponseTimeout'),
  key('Validate_Default_Parameters'),
];

const AUTHENTICATORS: Record<string, SnowflakeConfig['authenticator']> = {
  snowflake: 'SNOWFLAKE',
  snowflakejwt: 'SNOWFLAKE_JWT',
  oauth: 'OAUTH',
  programmaticaccesstoken: 'PROGRAMMATIC_ACCESS_TOKEN',
};

const SNOWFLAKE_DOMAIN = /\.snowflakecomputing\.(com|cn)$/i;

/** Parses the string; Account may also be a full account URL, or be derived from a *.snowflakecomputing.com Host. */
export function parseSnowflakeConnString(text: string): SnowflakeConfig {
  const r = new ConnReader(tokenizeConnString(text));
  const host = r.str(HOST);
  let account = r.str(ACCOUNT);
  if (account)
    account = account
      .replace(/^https?:\/\//i, '')
      .replace(/\/.*$/, '')
      .replace(SNOWFLAKE_DOMAIN, '');
  else if (host && SNOWFLAKE_DOMAIN.test(host)) account = host.split('.')[0];
  if (!account) throw connStringError('missing Account');
  if (!/^[A-Za-z0-9_.-]+$/.test(account)) {
    throw connStringError(`Account '${account}' is not a valid account identifier`);
  }
  const username = r.required(USER);

  const authPair = r.pair(AUTHENTICATOR);
  let authenticator: SnowflakeConfig['authenticator'] = 'SNOWFLAKE';
  if (authPair?.value) {
    const norm = authPair.value.toLowerCase().replace(/[\s_-]+/g, '');
    const known = AUTHENTICATORS[norm];
    if (!known) {
      throw connStringError(
        `Authenticator '${authPair.value}' is not supported without a person at a browser: use snowflake, snowflake_jwt, oauth or programmatic_access_token`,
      );
    }
    authenticator = known;
  }
  if (r.pair(PRIVATE_KEY_FILE)) {
    throw connStringError(
      'Private_Key_File is not supported (the service reads no local files): put the PEM in Private_Key',
    );
  }

  const config: SnowflakeConfig = { account, username, authenticator };
  const password = r.pair(PASSWORD);
  const token = r.str(TOKEN);
  const privateKey = r.str(PRIVATE_KEY);
  const privateKeyPass = r.str(PRIVATE_KEY_PWD);
  if (authenticator === 'SNOWFLAKE' && !password) throw connStringError('missing Password');
  if (authenticator === 'OAUTH' && !token) throw connStringError('missing Token (authenticator oauth)');
  if (authenticator === 'PROGRAMMATIC_ACCESS_TOKEN' && !token && !password) {
    throw connStringError('missing Token (authenticator programmatic_access_token)');
  }
  if (authenticator === 'SNOWFLAKE_JWT' && !privateKey) {
    throw connStringError('missing Private_Key (authenticator snowflake_jwt)');
  }
  if (password) config.password = password.value;
  if (token) config.token = token;
  if (privateKey) config.privateKey = privateKey.replace(/\\n/g, '\n');
  if (privateKeyPass) config.privateKeyPass = privateKeyPass;

  const optional: Array<[keyof SnowflakeConfig, string | undefined]> = [
    ['warehouse', r.str(WAREHOUSE)],
    ['role', r.str(ROLE)],
    ['database', r.str(DATABASE)],
    ['schema', r.str(SCHEMA)],
    ['host', host],
    ['region', r.str(REGION)],
    ['application', r.str(APPLICATION) ?? r.str(APPLICATION_NAME)],
  ];
  for (const [k, v] of optional) if (v) (config as unknown as Record<string, unknown>)[k] = v;
  const port = r.int(PORT, 1, 65_535);
  if (port) config.port = port;
  const scheme = r.choice(SCHEME, { http: 'http', https: 'https' } as const, ['http', 'https']);
  if (scheme) config.protocol = scheme;
  const seconds = r.seconds(CONNECT_TIMEOUT);
  if (seconds) config.timeout = seconds * 1000;
  r.ignore(...IGNORED);
  r.rejectUnknown('snowflake');
  return config;
}

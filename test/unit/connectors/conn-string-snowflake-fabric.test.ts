import { describe, expect, it } from 'vitest';
import { describeTarget, toDriverConfig } from '../../../lib/connectors/conn-string/index';
import { SECRET, expectRefused, parse, rejection } from './conn-string-helpers';

describe('a Snowflake connection string', () => {
  it('maps account, user, password, warehouse, role, database and schema', () => {
    const c = parse(
      'snowflake',
      'account=xy12345.eu-central-1;user=loader;password=p;warehouse=WH;role=R;db=DB;schema=PUBLIC',
    );
    expect(c).toEqual({
      account: 'xy12345.eu-central-1',
      username: 'loader',
      password: 'p',
      authenticator: 'SNOWFLAKE',
      warehouse: 'WH',
      role: 'R',
      database: 'DB',
      schema: 'PUBLIC',
    });
  });

  it('accepts an organisation-account identifier and Database for db', () => {
    expect(parse('snowflake', 'account=myorg-myacct;user=u;password=p;Database=D')).toMatchObject({
      account: 'myorg-myacct',
      database: 'D',
    });
  });

  it('reduces an account URL to the account identifier', () => {
    expect(
      parse('snowflake', 'account=https://xy12345.snowflakecomputing.com/;user=u;password=p').account,
    ).toBe('xy12345');
  });

  it('derives the account from a snowflakecomputing.com host', () => {
    const c = parse('snowflake', 'host=xy12345.us-east-1.snowflakecomputing.com;user=u;password=p');
    expect(c).toMatchObject({ account: 'xy12345', host: 'xy12345.us-east-1.snowflakecomputing.com' });
  });

  it('supports key-pair authentication with the PEM inline (\\n written as text)', () => {
    const c = parse(
      'snowflake',
      'account=a;user=u;authenticator=snowflake_jwt;private_key=-----BEGIN PRIVATE KEY-----\\nMIIB\\n-----END PRIVATE KEY-----;private_key_pwd=k',
    );
    expect(c.authenticator).toBe('SNOWFLAKE_JWT');
    expect(c.privateKey).toBe('-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----');
    expect(c.privateKeyPass).toBe('k');
  });

  it('supports OAuth with a token', () => {
    expect(parse('snowflake', 'account=a;user=u;authenticator=oauth;token=abc')).toMatchObject({
      authenticator: 'OAUTH',
      token: 'abc',
    });
  });

  it('points at another host, port and scheme (a proxy or a test double)', () => {
    const c = parse(
      'snowflake',
      'account=a;user=u;password=p;host=127.0.0.1;port=8080;scheme=http;connection_timeout=30',
    );
    expect(c).toMatchObject({ host: '127.0.0.1', port: 8080, protocol: 'http', timeout: 30_000 });
    expect(describeTarget({ type: 'snowflake', config: c })).toBe('127.0.0.1:8080');
  });

  it.each([
    [`user=u;password=${SECRET}`, 'missing Account'],
    [`account=a;password=${SECRET}`, 'missing User Id'],
    ['account=a;user=u', 'missing Password'],
    [
      `account=a;user=u;password=${SECRET};authenticator=externalbrowser`,
      "Authenticator 'externalbrowser' is not supported",
    ],
    ['account=a;user=u;authenticator=snowflake_jwt', 'missing Private_Key'],
    ['account=a;user=u;authenticator=oauth', 'missing Token'],
    [`account=a b;user=u;password=${SECRET}`, "Account 'a b' is not a valid account identifier"],
    [`account=a;user=u;private_key_file=/k.p8;password=${SECRET}`, 'Private_Key_File is not supported'],
    [`account=a;user=u;scheme=ftp;password=${SECRET}`, "unknown scheme 'ftp'"],
    [`account=a;user=u;port=x;password=${SECRET}`, "port 'x' is not a number"],
  ])('%s is refused with "%s"', (text, message) => {
    expectRefused('snowflake', text, message);
  });
});

describe('a Fabric configuration', () => {
  const base = {
    server: 'abc123.datawarehouse.fabric.microsoft.com',
    database: 'Sales_WH',
    tenant_id: '72f988bf-86f1-41af-91ab-2d7cd011db47',
    client_id: '11111111-2222-3333-4444-555555555555',
    client_secret: SECRET,
  };

  it('signs in as a service principal over TLS on port 1433', () => {
    const { config } = toDriverConfig('fabric', base);
    expect(config).toEqual({
      server: 'abc123.datawarehouse.fabric.microsoft.com',
      port: 1433,
      database: 'Sales_WH',
      authentication: {
        type: 'azure-active-directory-service-principal-secret',
        options: { clientId: base.client_id, clientSecret: SECRET, tenantId: base.tenant_id },
      },
      options: { encrypt: true, trustServerCertificate: false },
    });
  });

  it('accepts the server as Fabric shows it, with tcp: and a port', () => {
    const { config } = toDriverConfig('fabric', {
      ...base,
      server: 'tcp:abc123.datawarehouse.fabric.microsoft.com,1433',
    });
    expect(config).toMatchObject({ server: 'abc123.datawarehouse.fabric.microsoft.com', port: 1433 });
  });

  it('names every missing field', () => {
    const err = rejection('fabric', { server: 's', database: 'd' });
    expect(err.errors?.map((e) => e.path)).toEqual([
      'configuration.tenant_id',
      'configuration.client_id',
      'configuration.client_secret',
    ]);
  });

  it('refuses a port that is not a number on configuration.server', () => {
    const err = rejection('fabric', { ...base, server: 'h,abc' });
    expect(err.errors).toEqual([{ path: 'configuration.server', message: "port 'abc' is not a number" }]);
    expect(err.message).not.toContain(SECRET);
  });
});

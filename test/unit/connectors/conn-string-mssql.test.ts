import { describe, expect, it } from 'vitest';
import { SECRET, expectRefused, parse, rejection } from './conn-string-helpers';

describe('a SQL Server connection string', () => {
  it('copied from the Azure portal maps to host, port, database, login, TLS and timeout', () => {
    const c = parse(
      'mssql',
      'Server=tcp:myserver.database.windows.net,1433;Initial Catalog=mydb;Persist Security Info=False;User ID=myuser;Password=myPass;MultipleActiveResultSets=False;Encrypt=True;TrustServerCertificate=False;Connection Timeout=30;',
    );
    expect(c).toMatchObject({
      server: 'myserver.database.windows.net',
      port: 1433,
      database: 'mydb',
      user: 'myuser',
      password: 'myPass',
      connectionTimeout: 30_000,
      options: { encrypt: true, trustServerCertificate: false },
    });
  });

  it('with a named instance connects through the instance name', () => {
    const c = parse('mssql', 'Data Source=SQLSRV01\\SQLEXPRESS;Initial Catalog=Sales;User Id=sa;Password=p');
    expect(c.server).toBe('SQLSRV01');
    expect(c.port).toBeUndefined();
    expect(c.options.instanceName).toBe('SQLEXPRESS');
  });

  it('with an instance and a port uses the port, as SqlClient does', () => {
    const c = parse('mssql', 'Server=host\\inst,1500;User Id=sa;Password=p');
    expect(c).toMatchObject({ server: 'host', port: 1500 });
    expect(c.options.instanceName).toBeUndefined();
  });

  it.each([
    ['Server=.;UID=sa;PWD=p', 'localhost'],
    ['Server=(local);UID=sa;PWD=p', 'localhost'],
    ['Address=10.0.0.5;UID=sa;PWD=p', '10.0.0.5'],
    ['Addr=db1;UID=sa;PWD=p', 'db1'],
    ['Network Address=db2;UID=sa;PWD=p', 'db2'],
    ['Host=db3;UID=sa;PWD=p', 'db3'],
  ])('%s names the server %s', (text, server) => {
    expect(parse('mssql', text).server).toBe(server);
  });

  it('accepts host:port and a separate Port key', () => {
    expect(parse('mssql', 'Server=db.example.com:1533;User Id=u;Password=p').port).toBe(1533);
    expect(parse('mssql', 'Server=db;Port=1444;User Id=u;Password=p').port).toBe(1444);
  });

  it('reads keys without regard to case or surrounding spaces', () => {
    const c = parse('mssql', '  SERVER = h ; user id = u ; password = p q ; DATABASE=d;');
    expect(c).toMatchObject({ server: 'h', user: 'u', password: 'p q', database: 'd' });
  });

  it('unquotes values that hold semicolons and quotes', () => {
    expect(parse('mssql', 'Server=h;User Id=u;Password="a;b=c"').password).toBe('a;b=c');
    expect(parse('mssql', "Server=h;User Id=u;Password='it''s'").password).toBe("it's");
    expect(parse('mssql', 'Server=h;User Id=u;Password="say ""hi"""').password).toBe('say "hi"');
  });

  it('written for ODBC keeps braced values and ignores the driver name', () => {
    const c = parse(
      'mssql',
      'Driver={ODBC Driver 18 for SQL Server};Server=tcp:h,1433;Database=d;Uid=u;Pwd={p;w}}d};Encrypt=yes;TrustServerCertificate=no;Connection Timeout=30;',
    );
    expect(c).toMatchObject({ server: 'h', port: 1433, user: 'u', password: 'p;w}d' });
    expect(c.options).toMatchObject({ encrypt: true, trustServerCertificate: false });
  });

  it.each([
    ['strict', 'strict'],
    ['Mandatory', true],
    ['Optional', false],
    ['no', false],
  ])('maps Encrypt=%s to %s', (value, encrypt) => {
    expect(parse('mssql', `Server=h;User Id=u;Password=p;Encrypt=${value}`).options.encrypt).toBe(encrypt);
  });

  it('encrypts by default, like Microsoft.Data.SqlClient', () => {
    expect(parse('mssql', 'Server=h;User Id=u;Password=p').options).toMatchObject({
      encrypt: true,
      trustServerCertificate: false,
    });
  });

  it('maps application name, intent, failover and command timeout', () => {
    const c = parse(
      'mssql',
      'Server=h;User Id=u;Password=p;Application Name=loader;ApplicationIntent=ReadOnly;MultiSubnetFailover=True;Command Timeout=120',
    );
    expect(c.requestTimeout).toBe(120_000);
    expect(c.options).toMatchObject({ appName: 'loader', readOnlyIntent: true, multiSubnetFailover: true });
  });

  it('treats a zero timeout as "use the service bound" rather than forever', () => {
    expect(
      parse('mssql', 'Server=h;User Id=u;Password=p;Connect Timeout=0').connectionTimeout,
    ).toBeUndefined();
  });

  it('accepts Integrated Security=false and Authentication=SqlPassword', () => {
    expect(() => parse('mssql', 'Server=h;User Id=u;Password=p;Integrated Security=false')).not.toThrow();
    expect(() => parse('mssql', 'Server=h;User Id=u;Password=p;Authentication=SqlPassword')).not.toThrow();
  });

  it.each([
    [`User Id=u;Password=${SECRET}`, 'missing Server'],
    [`Server=h;Password=${SECRET}`, 'missing User Id'],
    ['Server=h;User Id=u', 'missing Password'],
    [`Server=h,abc;User Id=u;Password=${SECRET}`, "Server port 'abc' is not a number"],
    [`Server=h;Port=abc;User Id=u;Password=${SECRET}`, "Port 'abc' is not a number"],
    [`Server=h;Port=70000;User Id=u;Password=${SECRET}`, 'Port 70000 is out of range (1-65535)'],
    [`Server=h;Integrated Security=SSPI;Password=${SECRET}`, 'Windows authentication'],
    [
      `Server=np:\\\\.\\pipe\\sql\\query;User Id=u;Password=${SECRET}`,
      "Server protocol 'np:' is not supported",
    ],
    [`Server=h;User Id=u;Password="${SECRET}`, 'the value of Password has an unterminated "'],
    [`Server=h;User Id=u;Password="${SECRET}"x;`, 'unexpected text after the quoted value of Password'],
    [`Server=h;Foo=1;User Id=u;Password=${SECRET}`, "unknown key 'Foo' for mssql"],
    [`Server=h;User Id=u;Password=${SECRET};Encrypt=maybe`, "unknown Encrypt 'maybe'"],
    [
      `Server=h;User Id=u;Password=${SECRET};TrustServerCertificate=perhaps`,
      "TrustServerCertificate 'perhaps' is not true or false",
    ],
    [
      `Server=h;User Id=u;Password=${SECRET};Authentication=ActiveDirectoryIntegrated`,
      "Authentication 'ActiveDirectoryIntegrated' is not supported",
    ],
    [`=x;Server=h;User Id=u;Password=${SECRET}`, 'an entry has a value but no key'],
  ])('%s is refused with "%s"', (text, message) => {
    expectRefused('mssql', text, message);
  });

  it('with an unquoted ";" inside the password explains quoting without showing any part of it', () => {
    const err = rejection('mssql', { conn_string: 'Server=h;User Id=u;Password=abc;defgh' });
    expect(err.errors?.[0].message).toMatch(/after Password \(a value containing ';' must be quoted/);
    expect(err.message).not.toContain('defgh');
    const err2 = rejection('mssql', { conn_string: 'Server=h;User Id=u;Password=abc;defgh=ijk' });
    expect(err2.message).not.toContain('defgh');
    expect(err2.message).not.toContain('ijk');
  });

  it('is required and must be text', () => {
    expect(rejection('mssql', {}).errors).toEqual([
      { path: 'configuration.conn_string', message: 'is required' },
    ]);
    expect(rejection('mssql', { conn_string: '   ' }).errors?.[0].path).toBe('configuration.conn_string');
  });
});

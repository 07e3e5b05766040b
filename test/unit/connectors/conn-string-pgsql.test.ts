import { describe, expect, it } from 'vitest';
import { SECRET, expectRefused, parse } from './conn-string-helpers';

describe('a PostgreSQL connection string', () => {
  it('in Npgsql form maps to postgres.js host, port, database, user and password', () => {
    const c = parse('pgsql', 'Host=localhost;Port=5432;Database=mydb;Username=me;Password=secret');
    expect(c).toMatchObject({
      host: ['localhost'],
      port: [5432],
      database: 'mydb',
      username: 'me',
      password: 'secret',
      ssl: 'prefer',
    });
  });

  it('accepts the SQL Server spellings of the same keys', () => {
    const c = parse(
      'pgsql',
      'Server=127.0.0.1;Port=5433;Initial Catalog=d;User Id=u;Password=p;SSL Mode=Require;Trust Server Certificate=true',
    );
    expect(c).toMatchObject({
      host: ['127.0.0.1'],
      port: [5433],
      database: 'd',
      username: 'u',
      ssl: 'require',
    });
  });

  it.each([
    ['disable', false],
    ['allow', 'allow'],
    ['prefer', 'prefer'],
    ['Require', 'require'],
    ['VerifyFull', 'verify-full'],
    ['verify-full', 'verify-full'],
  ])('maps SslMode=%s to ssl %s', (mode, ssl) => {
    expect(parse('pgsql', `Host=h;Username=u;SslMode=${mode}`).ssl).toBe(ssl);
  });

  it('checks the certificate chain but not the host name for verify-ca', () => {
    const c = parse('pgsql', 'Host=h;Username=u;sslmode=verify-ca');
    expect(c.sslMode).toBe('verify-ca');
    expect(c.ssl).toMatchObject({ rejectUnauthorized: true });
    expect(c.ssl.checkServerIdentity()).toBeUndefined();
  });

  it('maps Encrypt=false to no TLS', () => {
    expect(parse('pgsql', 'Host=h;Username=u;Encrypt=false').ssl).toBe(false);
  });

  it('lists several hosts for failover, each with its own or the default port', () => {
    const c = parse('pgsql', 'Host=h1,h2:5433;Port=5432;Username=u;Password=p');
    expect(c.host).toEqual(['h1', 'h2']);
    expect(c.port).toEqual([5432, 5433]);
  });

  it('reads host:port and a bracketed IPv6 address', () => {
    expect(parse('pgsql', 'Host=h:6543;Username=u').port).toEqual([6543]);
    expect(parse('pgsql', 'Host=[::1]:5432;Username=u')).toMatchObject({ host: ['::1'], port: [5432] });
  });

  it('as a postgres:// URL decodes the password and reads its parameters', () => {
    const c = parse(
      'pgsql',
      'postgres://user:p%40ss@db.example.com:5432/app?sslmode=require&application_name=loader&connect_timeout=10',
    );
    expect(c).toMatchObject({
      host: ['db.example.com'],
      port: [5432],
      database: 'app',
      username: 'user',
      password: 'p@ss',
      ssl: 'require',
      connect_timeout: 10,
      connection: { application_name: 'loader' },
    });
  });

  it('as a postgresql:// URL may leave out the password and list several hosts', () => {
    expect(parse('pgsql', 'postgresql://u@h/db')).toMatchObject({
      username: 'u',
      password: '',
      database: 'db',
    });
    expect(parse('pgsql', 'postgres://u:p@h1:5432,h2:5433/db')).toMatchObject({
      host: ['h1', 'h2'],
      port: [5432, 5433],
    });
  });

  it('in libpq keyword form unquotes single-quoted values', () => {
    const c = parse(
      'pgsql',
      "host=localhost port=5432 dbname=mydb user=me password='se cret' sslmode=disable",
    );
    expect(c).toMatchObject({
      host: ['localhost'],
      database: 'mydb',
      username: 'me',
      password: 'se cret',
      ssl: false,
    });
  });

  it('maps timeouts, search path and application name', () => {
    const c = parse(
      'pgsql',
      'Host=h;Username=u;Password=p;Timeout=15;Command Timeout=60;Search Path=analytics,public;Application Name=x',
    );
    expect(c.connect_timeout).toBe(15);
    expect(c.connection).toEqual({
      statement_timeout: '60000',
      search_path: 'analytics,public',
      application_name: 'x',
    });
  });

  it('ignores pool settings that mean nothing to a serverless function', () => {
    expect(() =>
      parse(
        'pgsql',
        'Host=h;Username=u;Pooling=true;Maximum Pool Size=50;Keepalive=30;Include Error Detail=true',
      ),
    ).not.toThrow();
  });

  it.each([
    [`Port=5432;Username=u;Password=${SECRET}`, 'missing Server'],
    [`Host=h;Password=${SECRET}`, 'missing User Id'],
    [`Host=h;Username=u;Password=${SECRET};SSL Mode=sometimes`, "unknown SSL Mode 'sometimes'"],
    [`Host=h;Port=abc;Username=u;Password=${SECRET}`, "Port 'abc' is not a number"],
    [`Host=h:99999;Username=u;Password=${SECRET}`, 'Host port 99999 is out of range'],
    [`mysql://u:${SECRET}@h/db`, "unsupported URL scheme 'mysql://'"],
    [`Host=/var/run/postgresql;Username=u;Password=${SECRET}`, 'Unix socket paths are not supported'],
    [
      `Host=h;Username=u;Password=${SECRET};SSL Mode=verify-full;Trust Server Certificate=true`,
      'cannot be combined',
    ],
    [`postgres://u:${SECRET}%zz@h/db`, 'the URL password has an invalid %-escape'],
    [`Host=h;Bogus=1;Username=u;Password=${SECRET}`, "unknown key 'Bogus' for pgsql"],
    [`postgres://u:${SECRET}@h/db?sslmode=sometimes`, "unknown sslmode 'sometimes'"],
    [
      `Host=h;Username=u;Password=${SECRET};Target Session Attributes=whatever`,
      "unknown Target Session Attributes 'whatever'",
    ],
  ])('%s is refused with "%s"', (text, message) => {
    expectRefused('pgsql', text, message);
  });
});

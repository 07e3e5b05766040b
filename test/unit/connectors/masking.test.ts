import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toDriverConfig } from '../../../lib/connectors/conn-string/index';
import type { ValidationError } from '../../../lib/shared/errors';
import { parse } from './conn-string-helpers';
import { maskConfiguration, maskConnString, scrubSecrets, secretsOf } from '../../../lib/connectors/masking';

/** ADO.NET quoting: wrap in double quotes, double the ones inside. */
const quote = (v: string) => `"${v.replace(/"/g, '""')}"`;

// Passwords full of the characters that break naive parsers; the marker keeps them from matching other text.
const nasty = fc
  .array(
    fc.constantFrom(
      ';',
      '=',
      '"',
      "'",
      ' ',
      '{',
      '}',
      '@',
      ':',
      '/',
      '?',
      '&',
      '%',
      'a',
      'Z',
      '9',
      'é',
      '\\',
    ),
    {
      minLength: 2,
      maxLength: 24,
    },
  )
  // At least four characters: shorter secrets are scrubbed as whole words only (see scrubSecrets).
  .map((chars) => `§${chars.join('')}§`);

describe('masking a connection string', () => {
  it('hides Password and PWD but keeps the rest as written', () => {
    expect(maskConnString('Server=h;User Id=u;Password=p4ss;Database=d')).toBe(
      'Server=h;User Id=u;Password=*****;Database=d',
    );
    expect(maskConnString('Server=h; UID=u; PWD = "a;b" ;')).toBe('Server=h; UID=u; PWD = ***** ;');
  });

  it('hides every key that names a password, secret, token or key', () => {
    const masked = maskConnString(
      'account=a;user=u;token=t0k3n;private_key_pwd=kp;AccountKey=ak;client_secret=cs;Private_Key={pem}',
    );
    expect(masked).toBe(
      'account=a;user=u;token=*****;private_key_pwd=*****;AccountKey=*****;client_secret=*****;Private_Key=*****',
    );
  });

  it('hides the password of a postgres URL and of secret URL parameters', () => {
    expect(maskConnString('postgres://me:p%40ss@h:5432/db?sslmode=require&password=x')).toBe(
      'postgres://me:*****@h:5432/db?sslmode=require&password=*****',
    );
    expect(maskConnString('postgresql://me@h/db')).toBe('postgresql://me@h/db');
  });

  it('hides a libpq keyword password, quoted or not', () => {
    expect(maskConnString("host=h user=u password='a b' dbname=d")).toBe(
      'host=h user=u password=***** dbname=d',
    );
  });

  it('masks text that does not parse as a whole', () => {
    expect(maskConnString('Server=h;Password="unterminated')).toBe('*****');
  });

  it('never shows a password, however it is quoted (property)', () => {
    fc.assert(
      fc.property(nasty, fc.constantFrom('Password', 'PWD', 'pwd', ' password '), (pw, key) => {
        const text = `Server=h;User Id=u;${key}=${quote(pw)};Database=d`;
        expect(parse('mssql', text).password).toBe(pw);
        const masked = maskConnString(text);
        expect(masked).not.toContain(pw);
        expect(masked).toContain('Server=h;User Id=u;');
      }),
      { numRuns: 300 },
    );
  });

  it('never shows a URL password, encoded as a URL requires (property)', () => {
    fc.assert(
      fc.property(nasty, (pw) => {
        const text = `postgres://me:${encodeURIComponent(pw)}@h:5432/db`;
        expect(parse('pgsql', text).password).toBe(pw);
        const masked = maskConnString(text);
        expect(masked).not.toContain(pw);
        expect(masked).not.toContain(encodeURIComponent(pw));
      }),
      { numRuns: 300 },
    );
  });
});

describe('a connection string that does not parse', () => {
  it('never repeats the password in its error, quoted or not (property)', () => {
    fc.assert(
      fc.property(
        nasty,
        fc.boolean(),
        fc.constantFrom('mssql', 'pgsql', 'oracle', 'snowflake'),
        (pw, quoted, type) => {
          // No server/account given, so every variant is refused somewhere.
          const text = `User Id=u;Password=${quoted ? quote(pw) : pw};Port=x1`;
          let message = '';
          try {
            toDriverConfig(type as 'mssql', { conn_string: text });
          } catch (e) {
            message = `${(e as Error).message} ${JSON.stringify((e as ValidationError).errors)}`;
          }
          expect(message).not.toBe('');
          expect(message).not.toContain(pw);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('masking a configuration', () => {
  it('masks conn_string and returns a copy', () => {
    const cfg = { conn_string: 'Host=h;Username=u;Password=pw' };
    expect(maskConfiguration('pgsql', cfg)).toEqual({ conn_string: 'Host=h;Username=u;Password=*****' });
    expect(cfg.conn_string).toBe('Host=h;Username=u;Password=pw');
  });

  it("replaces fabric's client_secret and keeps the other fields", () => {
    expect(
      maskConfiguration('fabric', {
        server: 's',
        database: 'd',
        tenant_id: 't',
        client_id: 'c',
        client_secret: 'x',
      }),
    ).toEqual({ server: 's', database: 'd', tenant_id: 't', client_id: 'c', client_secret: '*****' });
  });

  it('shows nothing of nested values or of a configuration that is not an object', () => {
    expect(maskConfiguration('pgsql', { extra: { password: 'x' } })).toEqual({ extra: '*****' });
    expect(maskConfiguration('pgsql', 'Password=x')).toEqual({});
  });
});

describe('scrubbing a driver message', () => {
  it('replaces every occurrence of each secret and of its URL-encoded form', () => {
    const secrets = secretsOf({ conn_string: 'Server=h;User Id=u;Password="p@ss w0rd"' });
    expect(secrets).toContain('p@ss w0rd');
    const out = scrubSecrets('login p@ss w0rd failed; retry with p%40ss%20w0rd and p@ss w0rd', secrets);
    expect(out).toBe('login ***** failed; retry with ***** and *****');
  });

  it('replaces password=… pairs and URL passwords even when the secret is unknown', () => {
    expect(scrubSecrets('bad option Password=hunter2; and pwd: "x y"', [])).toBe(
      'bad option Password=*****; and pwd: *****',
    );
    expect(scrubSecrets('connect to postgres://me:hunter2@h/db failed', [])).toBe(
      'connect to postgres://me:*****@h/db failed',
    );
  });

  it('replaces a very short secret only as a whole word, keeping the message readable', () => {
    expect(scrubSecrets('connection refused (pw ab)', ['ab'])).toBe('connection refused (pw *****)');
    expect(scrubSecrets('table abc', ['ab'])).toBe('table abc');
  });

  it('leaves no trace of a secret that is echoed in any position (property)', () => {
    fc.assert(
      fc.property(nasty, fc.string(), fc.string(), (pw, before, after) => {
        const secrets = secretsOf({ conn_string: `Server=h;User Id=u;Password=${quote(pw)}` });
        expect(scrubSecrets(`${before}${pw}${after}`, secrets)).not.toContain(pw);
      }),
      { numRuns: 300 },
    );
  });

  it('collects the secret fields of a fabric configuration', () => {
    expect(secretsOf({ server: 's', client_secret: 'cs-123', client_id: 'c' })).toEqual(['cs-123']);
  });
});

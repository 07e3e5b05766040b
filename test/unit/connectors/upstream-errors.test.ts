import { describe, expect, it } from 'vitest';
import { toUpstreamError } from '../../../lib/connectors/sources/errors';
import { UpstreamError, ValidationError } from '../../../lib/shared/errors';

const ctx = { target: 'db.example.com:1433', secrets: ['Tr0ub4dor&3'] };

describe('a driver error shown to people', () => {
  it('finds a refused connection inside a wrapped AggregateError (tedious)', () => {
    const inner = new AggregateError(
      [Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
      'Could not connect (sequence)',
    );
    const err = Object.assign(
      new Error('Failed to connect to db.example.com:1433 - Could not connect (sequence)'),
      {
        code: 'ESOCKET',
        originalError: Object.assign(new Error('x'), { cause: inner }),
      },
    );
    expect(toUpstreamError(err, ctx, 'connect').message).toBe(
      'could not connect to db.example.com:1433: connection refused',
    );
  });

  it('says "host not found" for a name that does not resolve', () => {
    const err = Object.assign(new Error('getaddrinfo ENOTFOUND nohost'), { code: 'ENOTFOUND' });
    expect(toUpstreamError(err, ctx, 'connect').message).toBe(
      'could not connect to db.example.com:1433: host not found',
    );
  });

  it('explains a rejected TLS certificate and how to trust it', () => {
    const err = Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(toUpstreamError(err, ctx, 'connect').message).toMatch(
      /^could not connect to db\.example\.com:1433: TLS certificate rejected \(self-signed certificate\); .*TrustServerCertificate=true/,
    );
  });

  it("keeps the database's own message for a login failure, first line only, without Oracle's connection id", () => {
    const err = new Error(
      'ORA-01017: invalid credential or not authorized; logon denied (CONNECTION_ID=abc==)\nHelp: https://…',
    );
    expect(toUpstreamError(err, ctx, 'connect').message).toBe(
      'could not connect to db.example.com:1433: ORA-01017: invalid credential or not authorized; logon denied',
    );
  });

  it('reports a connection lost mid-query differently from one never made', () => {
    const err = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(toUpstreamError(err, ctx, 'query').message).toBe(
      'lost the connection to db.example.com:1433: connection reset by the server',
    );
  });

  it('never carries the secret, in the message or the cause', () => {
    const err = new Error("Login failed for user 'sa' with password 'Tr0ub4dor&3'");
    const up = toUpstreamError(err, ctx, 'query');
    expect(up).toBeInstanceOf(UpstreamError);
    expect(up.message).toBe("Login failed for user 'sa' with password '*****'");
    expect((up.cause as Error).message).not.toContain('Tr0ub4dor&3');
  });

  it('passes the service’s own errors through unchanged', () => {
    const v = ValidationError.field('configuration.conn_string', 'missing Server');
    expect(toUpstreamError(v, ctx, 'connect')).toBe(v);
  });
});

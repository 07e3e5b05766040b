/** Shared helpers of the connection-string tests. */
import { expect } from 'vitest';
import { toDriverConfig } from '../../../lib/connectors/conn-string/index';
import type { ConnectorType } from '../../../lib/connectors/types';
import { ValidationError } from '../../../lib/shared/errors';

/** The password every malformed case carries, so each can check that no message repeats it. */
export const SECRET = 'Pw-S3cr3t-xyz';

/** Driver options of a conn_string of `type`. */
export function parse(type: Exclude<ConnectorType, 'fabric'>, connString: string): any {
  return toDriverConfig(type, { conn_string: connString }).config;
}

/** The ValidationError raised for a configuration; fails the test when none is raised. */
export function rejection(type: ConnectorType, configuration: unknown): ValidationError {
  try {
    toDriverConfig(type, configuration);
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return e as ValidationError;
  }
  throw new Error('expected a ValidationError, got none');
}

/** Asserts the connection string is refused on configuration.conn_string with `message`, never showing SECRET. */
export function expectRefused(type: Exclude<ConnectorType, 'fabric'>, connString: string, message: string) {
  const err = rejection(type, { conn_string: connString });
  expect(err.errors).toHaveLength(1);
  expect(err.errors?.[0].path).toBe('configuration.conn_string');
  expect(err.errors?.[0].message).toContain(message);
  expect(err.message).not.toContain(SECRET);
  expect(JSON.stringify(err.errors)).not.toContain(SECRET);
}

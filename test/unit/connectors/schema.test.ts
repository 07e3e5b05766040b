import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import schema from '../../../schemas/connector.schema.json' with { type: 'json' };
import { toFieldErrors } from '../../../lib/shared/validation';

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false });
addFormats(ajv);
ajv.addSchema(schema);

function errorsOf(id: 'connector-create' | 'connector-update', body: unknown) {
  const fn = ajv.getSchema(id);
  if (!fn) throw new Error(`schema ${id} is not registered`);
  return fn(body) ? [] : toFieldErrors(fn.errors);
}

const fabric = { server: 's', database: 'd', tenant_id: 't', client_id: 'c', client_secret: 'x' };

describe('the connector create body', () => {
  it('accepts a connection-string connector and a fabric connector', () => {
    expect(
      errorsOf('connector-create', {
        name: 'sales-db.eu_1',
        type: 'pgsql',
        configuration: { conn_string: 'Host=h' },
      }),
    ).toEqual([]);
    expect(
      errorsOf('connector-create', {
        name: 'lake',
        type: 'fabric',
        description: 'Fabric',
        configuration: fabric,
      }),
    ).toEqual([]);
  });

  it('asks a connection-string type for conn_string and nothing else', () => {
    expect(
      errorsOf('connector-create', { name: 'a', type: 'mssql', configuration: { server: 'h' } }),
    ).toEqual([
      { path: 'configuration.conn_string', message: 'is required' },
      { path: 'configuration.server', message: 'is not a known field' },
    ]);
  });

  it('asks fabric for its five fields', () => {
    const errors = errorsOf('connector-create', {
      name: 'a',
      type: 'fabric',
      configuration: { conn_string: 'x' },
    });
    expect(errors.map((e) => e.path)).toEqual([
      'configuration.server',
      'configuration.database',
      'configuration.tenant_id',
      'configuration.client_id',
      'configuration.client_secret',
      'configuration.conn_string',
    ]);
  });

  it.each(['', '_x', '.hidden', 'a/b', 'a b', 'x'.repeat(101), '../etc'])('refuses the name %j', (name) => {
    const errors = errorsOf('connector-create', { name, type: 'pgsql', configuration: { conn_string: 'x' } });
    expect(errors.map((e) => e.path)).toContain('name');
  });

  it('refuses an unknown type, unknown fields and a missing configuration', () => {
    expect(errorsOf('connector-create', { name: 'a', type: 'mysql', configuration: {}, extra: 1 })).toEqual([
      { path: 'extra', message: 'is not a known field' },
      { path: 'type', message: 'must be one of: mssql, pgsql, oracle, snowflake, fabric' },
    ]);
    expect(errorsOf('connector-create', { name: 'a', type: 'pgsql' })).toEqual([
      { path: 'configuration', message: 'is required' },
    ]);
  });
});

describe('the connector update body', () => {
  it('needs neither the name nor a configuration (absent keeps the stored secret)', () => {
    expect(errorsOf('connector-update', { type: 'oracle', description: 'new text' })).toEqual([]);
  });

  it('still checks a configuration that is sent', () => {
    expect(errorsOf('connector-update', { type: 'snowflake', configuration: { conn_string: '' } })).toEqual([
      { path: 'configuration.conn_string', message: 'must NOT have fewer than 1 characters' },
    ]);
    expect(
      errorsOf('connector-update', {
        type: 'fabric',
        configuration: { ...fabric, client_secret: undefined },
      }),
    ).toEqual([{ path: 'configuration.client_secret', message: 'is required' }]);
  });
});

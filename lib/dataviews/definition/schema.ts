/**
 * The data view JSON Schema compiled once by its own ajv instance, so validation does not depend on
 * when schemas/index.ts registers it; schema-provided `x-messages` replace ajv's generic wording.
 */
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import dataviewSchema from '../../../schemas/dataview.schema.json' with { type: 'json' };
import type { FieldError } from '../../shared/errors';
import { toFieldErrors } from '../../shared/validation';

// No useDefaults: the input stays untouched and the typed builder applies the same defaults.
// Strict, so a misspelt keyword in the schema fails here instead of being silently ignored.
const ajv = new Ajv({ allErrors: true, strict: true, useDefaults: false, coerceTypes: false, verbose: true });
addFormats(ajv);
ajv.addKeyword({ keyword: 'x-messages', schemaType: 'object' });
const validateShape = ajv.compile(dataviewSchema);

export { dataviewSchema };

function withSchemaMessages(errors: ErrorObject[]): ErrorObject[] {
  return errors.map((e) => {
    const messages = (e.parentSchema as { 'x-messages'?: Record<string, string> } | undefined)?.[
      'x-messages'
    ];
    const message = messages?.[e.keyword];
    return message ? { ...e, message } : e;
  });
}

/** Shape errors of `doc` against schemas/dataview.schema.json, as dotted field paths. */
export function schemaErrors(doc: unknown): FieldError[] {
  if (validateShape(doc)) return [];
  return toFieldErrors(withSchemaMessages(validateShape.errors ?? []));
}

/** The one validation path: ajv over the JSON Schemas of schemas/, errors turned into FieldError paths. */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { allSchemas } from '../../schemas/index';
import { type FieldError, ValidationError } from './errors';

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false });
addFormats(ajv);
for (const schema of allSchemas) ajv.addSchema(schema);

const cache = new Map<string, ValidateFunction>();

function compiled(schemaId: string): ValidateFunction {
  let fn = cache.get(schemaId);
  if (!fn) {
    fn = ajv.getSchema(schemaId);
    if (!fn) throw new Error(`Unknown schema ${schemaId}`);
    cache.set(schemaId, fn);
  }
  return fn;
}

/** JSON pointer `/categories/1/parent` → `categories[1].parent`. */
export function pointerToPath(pointer: string): string {
  if (!pointer) return '';
  return pointer
    .split('/')
    .slice(1)
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '');
}

function joinPath(base: string, key: string): string {
  return base ? `${base}.${key}` : key;
}

export function toFieldErrors(errors: ErrorObject[] | null | undefined): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    let path = pointerToPath(e.instancePath);
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      path = joinPath(path, String((e.params as { missingProperty: string }).missingProperty));
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      path = joinPath(path, String((e.params as { additionalProperty: string }).additionalProperty));
      message = 'is not a known field';
    } else if (e.keyword === 'enum') {
      message = `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    } else if (e.keyword === 'if' || e.keyword === 'oneOf' || e.keyword === 'anyOf') {
      continue; // the branch errors say more
    }
    const key = `${path}|${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ path, message });
    }
  }
  return out;
}

/** Validates `data` against the schema `schemaId` (its `$id`); throws ValidationError listing every field at fault. */
export function validate<T>(schemaId: string, data: unknown): T {
  const fn = compiled(schemaId);
  if (!fn(data)) {
    const errors = toFieldErrors(fn.errors);
    const first = errors[0];
    const summary = first ? `${first.path || 'body'} ${first.message}` : 'invalid';
    throw new ValidationError(
      `Invalid request: ${summary}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}.`,
      errors,
    );
  }
  return data as T;
}

/** For a schema that exists only in code (tests, ad hoc). */
export function hasSchema(schemaId: string): boolean {
  return ajv.getSchema(schemaId) !== undefined;
}

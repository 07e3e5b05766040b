/**
 * The one input guard of the HTTP stack: path parameters, query values and JSON bodies are checked before any use case runs,
 * so that characters PostgreSQL refuses, ids beyond the `serial` range and numbers beyond safe integers are the caller's 400
 * (naming the field), never a database error turned 500.
 */
import { databaseErrorCode } from '../db/errors';
import { ValidationError } from '../shared/errors';

/** The largest value of PostgreSQL `integer` (`serial` ids). */
export const MAX_ID = 2147483647;

/** NUL (PostgreSQL text and jsonb refuse it) and lone UTF-16 surrogates (not encodable as UTF-8). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what is looked for
const REFUSED = /[\u0000]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a text value cannot be stored, or undefined when it can. */
export function refusedText(value: string): string | undefined {
  const m = REFUSED.exec(value);
  if (!m) return undefined;
  return m[0] === '\u0000'
    ? 'contains a NUL character (\\u0000), which cannot be stored'
    : 'contains an unpaired UTF-16 surrogate, which is not valid Unicode text';
}

/** Percent-decoding that answers 400 on a malformed escape instead of throwing URIError. */
export function decodeParam(raw: string, name: string): string {
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    throw ValidationError.field(name, `is not validly percent-encoded: '${raw.slice(0, 100)}'`);
  }
  checkText(value, name);
  return value;
}

export function checkText(value: string, name: string): void {
  const why = refusedText(value);
  if (why) throw ValidationError.field(name, why);
}

const idKey = (key: string) => key === 'id' || /[a-z]Ids?$/.test(key);

function describe(path: string) {
  return path || 'body';
}

/**
 * Walks a parsed JSON body; throws a ValidationError listing every value PostgreSQL or JavaScript cannot take
 * safely: text with NUL or unpaired surrogates, numbers beyond double range, and ids (`id`, `…Id`, `…Ids`)
 * beyond the safe integers or the `serial` range. Other integer fields are bounded by their schemas.
 */
export function checkJsonBody(body: unknown): void {
  const errors: Array<{ path: string; message: string }> = [];
  const walk = (v: unknown, path: string, idLike: boolean, depth: number) => {
    if (errors.length >= 20) return;
    if (depth > 64) {
      errors.push({ path, message: 'is nested too deeply' });
      return;
    }
    if (typeof v === 'string') {
      const why = refusedText(v);
      if (why) errors.push({ path, message: why });
    } else if (typeof v === 'number') {
      // Integer fields elsewhere have schema bounds; a large measure threshold (1e20) stays a valid number.
      if (!Number.isFinite(v)) errors.push({ path, message: 'is a number too large to represent' });
      else if (idLike && !Number.isSafeInteger(v) && Number.isInteger(v))
        errors.push({
          path,
          message: `is beyond the safe integer range (±${Number.MAX_SAFE_INTEGER}); ids are at most ${MAX_ID}`,
        });
      else if (idLike && Number.isInteger(v) && (v > MAX_ID || v < -MAX_ID - 1))
        errors.push({ path, message: `is not an existing id (ids are at most ${MAX_ID})` });
    } else if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) walk(item, `${path}[${i}]`, idLike, depth + 1);
    } else if (v && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        const keyPath = path ? `${path}.${k}` : k;
        const why = refusedText(k);
        if (why) errors.push({ path: keyPath, message: `(a key) ${why}` });
        walk(item, keyPath, idKey(k), depth + 1);
      }
    }
  };
  walk(body, '', false, 0);
  if (errors.length) {
    const first = errors[0];
    throw new ValidationError(
      `Invalid request: ${describe(first.path)} ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}.`,
      errors,
    );
  }
}

/** Query values (already decoded by the gateway) and header-borne text. */
export function checkQuery(query: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(query)) {
    checkText(k, k);
    if (v !== undefined) checkText(v, k);
  }
}

/** PostgreSQL "data exception" (SQLSTATE class 22: bad encoding, NUL, out of range, invalid text representation) anywhere in a cause chain. */
export function databaseDataException(error: unknown): { code: string } | undefined {
  const code = databaseErrorCode(error, /^22[0-9A-Z]{3}$/);
  return code === undefined ? undefined : { code };
}

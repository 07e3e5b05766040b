/** Reading a data view definition from a request body (JSON object or YAML text) and writing it as YAML. */
import { isMap, isScalar, isSeq, parseDocument, stringify } from 'yaml';
import { type FieldError, ValidationError } from '../../shared/errors';
import { isRecord } from './util';

const MAX_YAML_ERRORS = 10;

/**
 * The definition object carried by `body`: a parsed JSON object as is, or YAML (or JSON) text
 * (string or bytes) parsed with YAML 1.2. Syntax errors become a ValidationError naming line and column.
 */
export function parseDefinitionBody(body: unknown): Record<string, unknown> {
  if (body instanceof Uint8Array) body = new TextDecoder('utf-8', { fatal: false }).decode(body);
  if (typeof body === 'string') return parseYaml(body);
  if (isRecord(body)) return body;
  throw ValidationError.field(
    '',
    body === undefined || body === null
      ? 'a data view definition is required (a JSON object or a YAML document)'
      : 'must be a data view definition: a JSON object or a YAML document',
  );
}

function parseYaml(text: string): Record<string, unknown> {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const errors: FieldError[] = doc.errors.slice(0, MAX_YAML_ERRORS).map((e) => {
      const pos = e.linePos?.[0];
      const reason = e.message.replace(/ at line \d+, column \d+:[\s\S]*$/, '').trim();
      const hint =
        e.code === 'BAD_ALIAS' ? ' (quote values that start with *, such as cron expressions)' : '';
      const where = pos ? `line ${pos.line}, column ${pos.col}` : 'an unknown position';
      return { path: '', message: `YAML syntax error at ${where}: ${reason}${hint}` };
    });
    throw new ValidationError(`Invalid YAML: ${errors[0].message}`, errors);
  }
  keepMonthDaysAsText(doc);
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (e) {
    // yaml refuses documents whose aliases would expand without bound.
    throw new ValidationError(
      'Invalid YAML: the document could not be read.',
      [{ path: '', message: (e as Error).message }],
      e,
    );
  }
  if (!isRecord(value)) {
    throw ValidationError.field(
      '',
      'the YAML document must be a mapping with schemaVersion, metadata, source, categories and analysis',
    );
  }
  return value;
}

/**
 * `start: 12.24` reads as the number 12.24 in YAML, and `01.10` as 1.1; MM.dd days are meant as
 * text, so the characters written in the source are kept.
 */
function keepMonthDaysAsText(doc: ReturnType<typeof parseDocument>): void {
  const periods = doc.getIn(['analysis', 'specialPeriods'], true);
  if (!isSeq(periods)) return;
  for (const item of periods.items) {
    if (!isMap(item)) continue;
    for (const key of ['start', 'end']) {
      const node = item.get(key, true);
      if (isScalar(node) && typeof node.value === 'number' && typeof node.source === 'string')
        node.value = node.source;
    }
  }
}

/** The definition as a YAML document (SQL as block text), readable back by parseDefinitionBody. */
export function definitionToYaml(definition: unknown): string {
  return stringify(definition, { lineWidth: 0, aliasDuplicateObjects: false });
}

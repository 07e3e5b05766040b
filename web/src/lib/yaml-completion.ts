/**
 * Completion of the definition's YAML from its JSON Schema: the keys that fit where the cursor is
 * (a detector's own params under its `params`), and the values a key takes (enums, booleans,
 * the default). codemirror-json-schema explains keys on hover, but in YAML it completes keys only
 * inside a key that is already followed by a colon; a new key is typed on a line of its own, which
 * YAML reads as the continuation of the value above. So the place is read from the lines instead:
 * the keys and list items above the cursor with less indentation.
 */
import type { CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { parseDocument } from 'yaml';

/** A key, or the index of a list item. */
export type Segment = string | number;

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Array<{ if?: Schema; then?: Schema }>;
  /** Proposed values (`const` with its meaning) beside free text: country and state codes. */
  anyOf?: Schema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
};

interface LineInfo {
  indent: number;
  /** The line starts a list item (`- `). */
  dash: boolean;
  /** The column of its key (after the dash), or of its content. */
  keyCol: number;
  key?: string;
}

/** A line's indentation, dash and key; null for a blank or comment line. */
function lineInfo(line: string): LineInfo | null {
  if (line.trim() === '' || line.trimStart().startsWith('#')) return null;
  const m = /^(\s*)(-\s+)?(?:([A-Za-z_][\w-]*)\s*:(?=\s|$))?/.exec(line) as RegExpExecArray;
  return { indent: m[1].length, dash: Boolean(m[2]), keyCol: m[1].length + (m[2]?.length ?? 0), key: m[3] };
}

/** The index of the list item whose dash is on row `r` at column `dashCol`: its items above, counted. */
function itemIndex(lines: readonly string[], r: number, dashCol: number): number {
  let index = 0;
  for (let k = r - 1; k >= 0; k--) {
    const li = lineInfo(lines[k]);
    if (!li || li.indent > dashCol) continue;
    if (li.indent < dashCol || !li.dash) break;
    index++;
  }
  return index;
}

/** The path of the list whose item dashes are at column `dashCol` on and above row `r`. */
function listPath(lines: readonly string[], r: number, dashCol: number): Segment[] {
  for (let k = r - 1; k >= 0; k--) {
    const li = lineInfo(lines[k]);
    if (!li || li.indent > dashCol || (li.indent === dashCol && li.dash)) continue;
    // The key that owns the list: less indented, or (YAML allows it) at the dashes' column.
    if (li.key !== undefined && !li.dash) return [...mappingPath(lines, k, li.indent), li.key];
    if (li.key !== undefined && li.dash)
      return [...listPath(lines, k, li.indent), itemIndex(lines, k, li.indent), li.key];
    return [];
  }
  return [];
}

/** The path of the mapping whose keys sit at column `col`, for a key written on row `row`. */
function mappingPath(lines: readonly string[], row: number, col: number): Segment[] {
  if (col === 0) return [];
  for (let r = row - 1; r >= 0; r--) {
    const li = lineInfo(lines[r]);
    if (!li) continue;
    // Inside a list item: its first key follows the dash at column `col`.
    if (li.dash && li.keyCol === col)
      return [...listPath(lines, r, li.indent), itemIndex(lines, r, li.indent)];
    if (li.keyCol >= col) continue;
    if (li.key === undefined) return [];
    if (li.dash) return [...listPath(lines, r, li.indent), itemIndex(lines, r, li.indent), li.key];
    return [...mappingPath(lines, r, li.indent), li.key];
  }
  return [];
}

/**
 * The keys and item indexes of the mapping a key typed on `row` (0-based) belongs to, read from the
 * lines above; `- ` before the cursor starts a new item of the list at that column.
 */
export function pathAt(lines: readonly string[], row: number, before: string): Segment[] {
  const li = lineInfo(`${before}x`) as LineInfo;
  if (li.dash) return [...listPath(lines, row, li.indent), itemIndex(lines, row, li.indent)];
  return mappingPath(lines, row, li.indent);
}

/** Follows `$ref` (#/definitions/… of the root) once. */
function deref(root: Schema, s: Schema | undefined): Schema | undefined {
  if (!s?.$ref) return s;
  const parts = s.$ref.replace(/^#\//, '').split('/');
  let node: unknown = root;
  for (const p of parts) node = (node as Record<string, unknown>)?.[p];
  return { ...(node as Schema), ...s, $ref: undefined };
}

/** The branches of `allOf` whose `if` holds for `data` (the detector's params of its type). */
function applied(s: Schema, data: unknown): Schema {
  if (!s.allOf) return s;
  let out: Schema = { ...s, properties: { ...s.properties } };
  for (const branch of s.allOf) {
    const cond = branch.if?.properties ?? {};
    const holds = Object.entries(cond).every(([k, c]) => {
      const v = (data as Record<string, unknown> | null)?.[k];
      return (
        c.const === undefined || (typeof v === 'string' && v.toLowerCase() === String(c.const).toLowerCase())
      );
    });
    if (holds && branch.then?.properties)
      out = { ...out, properties: { ...out.properties, ...branch.then.properties } };
  }
  return out;
}

/** The schema at `path` of the document `data` (the parts typed so far), or undefined. */
export function schemaAt(root: Schema, path: readonly Segment[], data: unknown): Schema | undefined {
  let s: Schema | undefined = deref(root, root);
  let d: unknown = data;
  for (const seg of path) {
    if (!s) return undefined;
    s = applied(s, d);
    if (typeof seg === 'number') {
      s = deref(root, s.items);
      d = Array.isArray(d) ? d[seg] : undefined;
    } else {
      s = deref(root, s.properties?.[seg]);
      d = d && typeof d === 'object' ? (d as Record<string, unknown>)[seg] : undefined;
    }
  }
  return s ? applied(s, d) : undefined;
}

/** The value at `path` of the text without the line being typed (which may not parse yet). */
function dataAt(lines: readonly string[], row: number): unknown {
  const doc = parseDocument([...lines.slice(0, row), ...lines.slice(row + 1)].join('\n'));
  return doc.toJS();
}

function getIn(data: unknown, path: readonly Segment[]): unknown {
  let d = data;
  for (const seg of path)
    d = d && typeof d === 'object' ? (d as Record<string | number, unknown>)[seg] : undefined;
  return d;
}

/** What a key takes, in a few words: its kind and range, or its choices. */
function detailOf(s: Schema): string {
  if (s.enum) return s.enum.join(' | ');
  const type = Array.isArray(s.type) ? s.type.filter((t) => t !== 'null').join(' | ') : (s.type ?? '');
  const low =
    s.exclusiveMinimum !== undefined
      ? `> ${s.exclusiveMinimum}`
      : s.minimum !== undefined
        ? `≥ ${s.minimum}`
        : '';
  const high = s.maximum !== undefined ? `≤ ${s.maximum}` : '';
  return [type, [low, high].filter(Boolean).join(', ')].filter(Boolean).join(' ');
}

export interface KeyOption {
  label: string;
  detail: string;
  info?: string;
}

/** The keys that fit on `row` (0-based) after `before` (the line up to the key), minus those already there. */
export function keyOptions(root: object, lines: readonly string[], row: number, before: string): KeyOption[] {
  const path = pathAt(lines, row, before);
  const data = dataAt(lines, row);
  const s = schemaAt(root as Schema, path, data);
  if (!s?.properties) return [];
  const present = getIn(data, path);
  const taken = present && typeof present === 'object' ? Object.keys(present) : [];
  return Object.entries(s.properties)
    .filter(([k, p]) => !taken.includes(k) && !(p as { readOnly?: boolean }).readOnly)
    .map(([k, p]) => {
      const d = deref(root as Schema, p) ?? {};
      return { label: k, detail: detailOf(d), info: d.description };
    });
}

/** The values `key` at `row` takes: its enum (or booleans, or proposed codes), the default first. */
export function valueOptions(
  root: object,
  lines: readonly string[],
  row: number,
  before: string,
  key: string,
): string[] {
  return valueOptionsWithInfo(root, lines, row, before, key).map((o) => o.label);
}

/** valueOptions with the meaning of each proposed value where the schema gives one (a country's name). */
export function valueOptionsWithInfo(
  root: object,
  lines: readonly string[],
  row: number,
  before: string,
  key: string,
): Array<{ label: string; info?: string }> {
  const path = pathAt(lines, row, before);
  const s = schemaAt(root as Schema, [...path, key], dataAt(lines, row));
  if (!s) return [];
  const proposed = (s.anyOf ?? [])
    .filter((a) => a.const !== undefined)
    .map((a) => ({ label: String(a.const), info: a.description }));
  const values = s.enum
    ? s.enum.filter((v) => v !== null).map((v) => ({ label: String(v) }))
    : s.type === 'boolean' || (Array.isArray(s.type) && s.type.includes('boolean'))
      ? [{ label: 'true' }, { label: 'false' }]
      : proposed;
  if (s.default !== undefined && s.default !== null && typeof s.default !== 'object') {
    const d = String(s.default);
    return [{ label: d }, ...values.filter((v) => v.label !== d)];
  }
  return values;
}

/** The CodeMirror completion source: keys where a key is being typed, values after `key: `. */
export function definitionCompletion(schemaOf: (ctx: CompletionContext) => object | undefined) {
  return (ctx: CompletionContext): CompletionResult | null => {
    const schema = schemaOf(ctx);
    if (!schema) return null;
    const line = ctx.state.doc.lineAt(ctx.pos);
    const before = line.text.slice(0, ctx.pos - line.from);
    const lines = ctx.state.doc.toString().split('\n');
    const row = line.number - 1;
    const key = /^(\s*(?:-\s+)?)([A-Za-z_][\w-]*)?$/.exec(before);
    if (key) {
      if (!key[2] && !ctx.explicit) return null;
      return {
        from: ctx.pos - (key[2]?.length ?? 0),
        validFor: /^[\w-]*$/,
        options: keyOptions(schema, lines, row, key[1]).map((o) => ({
          label: o.label,
          detail: o.detail,
          info: o.info,
          type: 'property',
          apply: `${o.label}: `,
        })),
      };
    }
    const value = /^(\s*(?:-\s+)?)([A-Za-z_][\w-]*):\s+([\w.-]*)$/.exec(before);
    if (!value) return null;
    const options = valueOptionsWithInfo(schema, lines, row, value[1], value[2]);
    if (options.length === 0) return null;
    return {
      from: ctx.pos - value[3].length,
      validFor: /^[\w.-]*$/,
      options: options.map((o, i) => ({
        label: o.label,
        type: 'enum',
        detail:
          o.info ??
          (i === 0 && o.info === undefined && options.every((x) => !x.info) ? 'default' : undefined),
      })),
    };
  };
}

/** Reading the data view YAML in the editor: values at a path, and the line an error path points to. */
import { isMap, isPair, isScalar, type Node, parseDocument, stringify } from 'yaml';
import type { FieldError } from './api';

type Segment = string | number;

/** `categories[1].parent` → ['categories', 1, 'parent'] */
export function pathSegments(path: string): Segment[] {
  const out: Segment[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]);
  return out;
}

function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Offsets of the start and end of line `line` (1-based; clamped to the text). */
function lineSpan(text: string, line: number): [number, number] {
  let from = 0;
  for (let l = 1; l < line; l++) {
    const next = text.indexOf('\n', from);
    if (next < 0) break;
    from = next + 1;
  }
  const end = text.indexOf('\n', from);
  return [from, end < 0 ? text.length : end];
}

/** A field error placed in the text: its line and the characters to underline. */
export interface Marker {
  line: number;
  from: number;
  to: number;
  path: string;
  message: string;
}

/** A parsed editor text; parse errors leave `value` undefined. */
export class YamlText {
  private readonly doc;
  constructor(readonly text: string) {
    this.doc = parseDocument(text, { uniqueKeys: false });
  }

  /** The plain value at `path`, or undefined. */
  get(path: string): unknown {
    if (this.doc.errors.length) return undefined;
    const v = this.doc.getIn(pathSegments(path));
    return isScalar(v) ? v.value : v;
  }

  getString(path: string): string | undefined {
    const v = this.get(path);
    return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
  }

  /**
   * The characters `path` names: its scalar value, or its key when the value is a block (or missing);
   * the nearest existing ancestor's key when the path itself is not in the text.
   */
  rangeOf(path: string): [number, number] | null {
    const segs = pathSegments(path);
    while (segs.length > 0) {
      const last = segs[segs.length - 1];
      const parent = segs.length > 1 ? this.doc.getIn(segs.slice(0, -1), true) : this.doc.contents;
      if (isMap(parent) && typeof last === 'string') {
        const pair = parent.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === last);
        const key = pair?.key as Node | undefined;
        const value = pair?.value as Node | undefined;
        if (value && isScalar(value) && value.range) return [value.range[0], value.range[1]];
        if (key?.range) return [key.range[0], key.range[1]];
      }
      const node = this.doc.getIn(segs, true) as Node | undefined;
      if (node && typeof node === 'object' && node.range) {
        // A block (an item of a list) underlines its first line only.
        const [from] = node.range;
        return [from, Math.min(node.range[1], lineSpan(this.text, lineOfOffset(this.text, from))[1])];
      }
      segs.pop();
    }
    return null;
  }

  /** The line of the key (or item) that `path` names; the nearest existing ancestor when it is missing. */
  lineOf(path: string): number | null {
    const r = this.rangeOf(path);
    return r ? lineOfOffset(this.text, r[0]) : null;
  }

  /** Where each field error belongs: syntax errors by the line and column in their message, others by their path. */
  markers(errors: FieldError[]): Marker[] {
    return errors.map((e) => {
      const at = e.path ? null : /line (\d+)(?:, column (\d+))?/.exec(e.message);
      let range: [number, number];
      if (at) {
        const [start, end] = lineSpan(this.text, Number(at[1]));
        const from = Math.min(end, start + Math.max(0, Number(at[2] ?? 1) - 1));
        range = [from, Math.max(end, from)];
      } else range = (e.path ? this.rangeOf(e.path) : null) ?? lineSpan(this.text, 1);
      const to = range[1] > range[0] ? range[1] : Math.min(this.text.length, range[0] + 1);
      return {
        line: lineOfOffset(this.text, range[0]),
        from: range[0],
        to,
        path: e.path,
        message: e.message,
      };
    });
  }
}

const READ_ONLY = new Set(['id', 'state', 'createdAt', 'updatedAt']);

/** Key order of the spec's YAML shape; the database does not keep the order a definition was written in. */
const ORDER: Record<string, string[]> = {
  '': ['schemaVersion', 'metadata', 'source', 'categories', 'analysis'],
  metadata: ['name', 'domain', 'description', 'tags', 'dataSource', 'enabled'],
  source: [
    'connector',
    'dateColumn',
    'valueColumn',
    'countColumn',
    'loadMode',
    'trigger',
    'cron',
    'loadQuery',
    'customLoadQuery',
  ],
  categories: ['name', 'label', 'parent'],
  analysis: [
    'fillGapMethod',
    'ignoreLastNDays',
    'scanInLastNDays',
    'detectors',
    'specialDates',
    'recurringRules',
    'specialPeriods',
  ],
  detectors: ['type', 'params'],
};

function ordered(value: unknown, section: string): unknown {
  if (Array.isArray(value)) return value.map((v) => ordered(v, section));
  if (!value || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  const keys = ORDER[section] ?? [];
  const out: Record<string, unknown> = {};
  for (const k of [...keys.filter((k) => k in obj), ...Object.keys(obj).filter((k) => !keys.includes(k))]) {
    if (section === '' && READ_ONLY.has(k)) continue;
    out[k] =
      section === 'detectors'
        ? obj[k]
        : ordered(obj[k], section === '' || section === 'analysis' ? k : `${section}.${k}`);
  }
  return out;
}

/** A stored definition (Fact JSON) as editable YAML in the spec's key order, without the read-only fields. */
export function definitionYaml(doc: unknown): string {
  return stringify(ordered(doc, ''), { lineWidth: 0 });
}

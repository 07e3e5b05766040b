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

export interface Marker {
  line: number;
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

  /** The line of the key (or item) that `path` names; the nearest existing ancestor when it is missing. */
  lineOf(path: string): number | null {
    const segs = pathSegments(path);
    while (segs.length > 0) {
      const last = segs[segs.length - 1];
      const parent = segs.length > 1 ? this.doc.getIn(segs.slice(0, -1), true) : this.doc.contents;
      if (isMap(parent) && typeof last === 'string') {
        const pair = parent.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === last);
        const key = pair?.key as Node | undefined;
        if (key?.range) return lineOfOffset(this.text, key.range[0]);
      }
      const node = this.doc.getIn(segs, true) as Node | undefined;
      if (node && typeof node === 'object' && node.range) return lineOfOffset(this.text, node.range[0]);
      segs.pop();
    }
    return null;
  }

  /** Where each field error belongs: syntax errors by the line in their message, others by their path. */
  markers(errors: FieldError[]): Marker[] {
    return errors.map((e) => {
      const at = e.path ? null : /line (\d+)/.exec(e.message);
      const line = at ? Number(at[1]) : e.path ? (this.lineOf(e.path) ?? 1) : 1;
      return { line, path: e.path, message: e.message };
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

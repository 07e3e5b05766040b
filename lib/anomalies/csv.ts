/**
 * Anomaly records as CSV (RFC 4180: comma separated, CRLF line ends, fields quoted when they hold a comma,
 * a quote, a line break or edge spaces, quotes doubled). Every field of the record is a column in record
 * order; the categories become one column each (named by the category, or `category:<name>` when that
 * name is also a field). Comments are written as one line each (`text (email, from – to)`), lists of plain
 * values joined by `; `, other nested values as JSON. A text that a spreadsheet would run as a formula
 * (starting with =, +, -, @, tab or CR, and not a number) is prefixed with an apostrophe.
 * An incident row's `incident` becomes readable columns instead of JSON (INCIDENT_COLUMNS): its root
 * causes as `name=value` combinations, the share of the broad change they explain (0–100, with the reason
 * when a cause's raw share was outside), its broad series with its change and change % (the context: the
 * row's own actualValue … changeCum are its first root cause's), and its size.
 */
import { explainedTogether } from '../filters/explains';

const FORMULA = /^[=+\-@\t\r]/;
const NUMBER = /^[-+]?\d+(\.\d+)?([eE][-+]?\d+)?$/;

/** One field, quoted when needed. */
export function csvField(value: unknown): string {
  let text: string;
  if (value === null || value === undefined) text = '';
  else if (typeof value === 'number') text = Number.isFinite(value) ? String(value) : '';
  else if (typeof value === 'boolean') text = value ? 'true' : 'false';
  else if (typeof value === 'string') text = FORMULA.test(value) && !NUMBER.test(value) ? `'${value}` : value;
  else text = JSON.stringify(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

interface CombinationLike {
  categories?: Record<string, unknown>;
  change?: unknown;
  changePct?: unknown;
  explainsPct?: unknown;
  explainsNote?: unknown;
}

/** The columns that stand for an incident row's `incident`. */
export const INCIDENT_COLUMNS = [
  'rootCause',
  'rootCauseExplainsPct',
  'rootCauseExplainsNote',
  'broadSeries',
  'broadChange',
  'broadChangePct',
  'incidentSize',
];

/** A combination as `name=value; name=value` (categories at "all" left out; `all` for the total). */
export function combinationText(categories: Record<string, unknown> | undefined): string {
  const set = Object.entries(categories ?? {}).filter(([, v]) => v !== null && v !== undefined);
  return set.length ? set.map(([k, v]) => `${k}=${v}`).join('; ') : 'all';
}

function incidentCell(column: string, incident: unknown): unknown {
  if (!incident || typeof incident !== 'object') return null;
  const i = incident as { rootCauses?: CombinationLike[]; broad?: CombinationLike; size?: unknown };
  const causes = i.rootCauses ?? [];
  switch (column) {
    case 'rootCause':
      return causes.map((c) => combinationText(c.categories)).join(' | ');
    case 'rootCauseExplainsPct': {
      const sum = explainedTogether(
        causes.map((c) => ({ explainsPct: typeof c.explainsPct === 'number' ? c.explainsPct : 0 })),
      );
      return causes.length ? Math.round(sum * 10) / 10 : null;
    }
    case 'rootCauseExplainsNote':
      return causes
        .filter((c) => typeof c.explainsNote === 'string')
        .map((c) => `${combinationText(c.categories)}: ${c.explainsNote}`)
        .join(' | ');
    case 'broadSeries':
      return i.broad ? combinationText(i.broad.categories) : null;
    case 'broadChange':
      return typeof i.broad?.change === 'number' ? i.broad.change : null;
    case 'broadChangePct':
      return typeof i.broad?.changePct === 'number' ? i.broad.changePct : null;
    default:
      return i.size ?? null;
  }
}

interface CommentLike {
  text?: unknown;
  email?: unknown;
  dateFrom?: unknown;
  dateTo?: unknown;
}

function cell(key: string, value: unknown): unknown {
  if (key === 'comments' && Array.isArray(value)) {
    return value
      .map(
        (c: CommentLike) => `${String(c.text ?? '')} (${String(c.email ?? '')}, ${c.dateFrom} – ${c.dateTo})`,
      )
      .join('\n');
  }
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object'))
    return value.join('; ');
  return value;
}

/** The CSV document of the records: a header line, then one line per record. */
export function recordsToCsv(records: ReadonlyArray<Record<string, unknown>>): string {
  const fields: string[] = [];
  const categories: string[] = [];
  const seenField = new Set<string>();
  const seenCategory = new Set<string>();
  for (const r of records) {
    for (const k of Object.keys(r)) {
      if (k === 'categories' || seenField.has(k)) continue;
      seenField.add(k);
      if (k === 'incident') fields.push(...INCIDENT_COLUMNS);
      else fields.push(k);
    }
    const cats = r.categories;
    if (cats && typeof cats === 'object') {
      for (const k of Object.keys(cats)) {
        if (seenCategory.has(k)) continue;
        seenCategory.add(k);
        categories.push(k);
      }
    }
  }
  const header = [...fields, ...categories.map((c) => (seenField.has(c) ? `category:${c}` : c))];
  const lines = [header.map(csvField).join(',')];
  for (const r of records) {
    const cats = (r.categories ?? {}) as Record<string, unknown>;
    lines.push(
      [
        ...fields.map((k) =>
          csvField(INCIDENT_COLUMNS.includes(k) ? incidentCell(k, r.incident) : cell(k, r[k])),
        ),
        ...categories.map((c) => csvField(cats[c])),
      ].join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

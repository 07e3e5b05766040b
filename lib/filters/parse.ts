/** Parsers for the `;`-separated filter fields, turning a schema-valid filter body into FilterSettings. */
import { type FieldError, ValidationError } from '../shared/errors';
import { customSpanError } from './time-range';
import {
  ANOMALY_MEASURES,
  type AnomalyMeasure,
  type AnomalyResult,
  type DataViewRef,
  type FilterDefinition,
  type FilterSettings,
  type NumericBound,
  type TimeRangePreset,
} from './types';
import { hasOwn, setOwn } from '../shared/own';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const TYPE_CODE = /^[A-Za-z0-9_-]{1,100}$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Fields the API returns with a filter that a PUT may send back and that are ignored. */
export const FILTER_READ_ONLY_FIELDS = [
  'id',
  'ownerId',
  'ownerEmail',
  'pinned',
  'isOwner',
  'sharedWith',
  'summary',
  'hiddenDataViews',
] as const;

type Parsed<T> = { value: T; errors: FieldError[] };

/** `;` entries, trimmed, empty ones (e.g. a trailing `;`) dropped. */
function entries(text: string | null | undefined): string[] {
  if (!text) return [];
  return text
    .split(';')
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
}

function orThrow<T>(parsed: Parsed<T>): T {
  if (parsed.errors.length) {
    const first = parsed.errors[0];
    throw new ValidationError(`Invalid filter: ${first.path} ${first.message}.`, parsed.errors);
  }
  return parsed.value;
}

function dataViews(text: string | null | undefined, path: string): Parsed<DataViewRef[]> {
  const value: DataViewRef[] = [];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const entry of entries(text)) {
    // Names are letters, digits and underscores, so the last '/' separates domain and name.
    const slash = entry.lastIndexOf('/');
    const domain = slash < 0 ? '' : entry.slice(0, slash).trim();
    const name = slash < 0 ? '' : entry.slice(slash + 1).trim();
    if (!domain || !name) {
      errors.push({ path, message: `entry '${entry}' is not of the form '<domain> / <name>'` });
      continue;
    }
    const key = `${domain}\u0000${name}`;
    if (!seen.has(key)) {
      seen.add(key);
      value.push({ domain, name });
    }
  }
  return { value, errors };
}

function anomalyTypes(text: string | null | undefined, path: string): Parsed<string[]> {
  const value: string[] = [];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  for (const entry of entries(text)) {
    if (!TYPE_CODE.test(entry)) {
      errors.push({ path, message: `entry '${entry}' is not a type code (letters, digits, '_' or '-')` });
    } else if (!seen.has(entry.toLowerCase())) {
      seen.add(entry.toLowerCase());
      value.push(entry);
    }
  }
  return { value, errors };
}

function anomalyResults(text: string | null | undefined, path: string): Parsed<AnomalyResult[]> {
  const found = new Set<AnomalyResult>();
  const errors: FieldError[] = [];
  for (const entry of entries(text)) {
    if (entry === 'Positive' || entry === 'Negative') found.add(entry);
    else errors.push({ path, message: `entry '${entry}' is neither 'Positive' nor 'Negative'` });
  }
  // Canonical order, so 'Negative;Positive' and 'Positive;Negative' parse alike.
  const value = (['Positive', 'Negative'] as const).filter((r) => found.has(r));
  return { value, errors };
}

function measures(text: string | null | undefined, path: string): Parsed<AnomalyMeasure[]> {
  const found = new Set<AnomalyMeasure>();
  const errors: FieldError[] = [];
  for (const entry of entries(text)) {
    const m = entry.toLowerCase();
    if (m === 'value' || m === 'count' || m === 'ratio') found.add(m);
    else errors.push({ path, message: `entry '${entry}' is not 'value', 'count' or 'ratio'` });
  }
  // Canonical order; none listed = all.
  const value = ANOMALY_MEASURES.filter((m) => found.has(m));
  return { value: value.length ? value : [...ANOMALY_MEASURES], errors };
}

/** `measures`: 'value', 'count' and 'ratio', separated by ';' (case-insensitive); empty = all. */
export function parseMeasures(text: string | null | undefined, path = 'measures'): AnomalyMeasure[] {
  return orThrow(measures(text, path));
}

/** `Name=value` pairs; the value is everything after the first '='. */
function pairs(text: string | null | undefined, path: string): Parsed<Array<[string, string, string]>> {
  const value: Array<[string, string, string]> = [];
  const errors: FieldError[] = [];
  for (const entry of entries(text)) {
    const eq = entry.indexOf('=');
    if (eq < 0) {
      errors.push({ path, message: `entry '${entry}' lacks '='` });
      continue;
    }
    const name = entry.slice(0, eq).trim();
    const raw = entry.slice(eq + 1).trim();
    if (!IDENTIFIER.test(name)) {
      errors.push({ path, message: `entry '${entry}': '${name}' is not a category name` });
    } else if (!raw) {
      errors.push({ path, message: `entry '${entry}' has no value after '='` });
    } else {
      value.push([name, raw, entry]);
    }
  }
  return { value, errors };
}

function categoriesFilter(text: string | null | undefined, path: string): Parsed<Record<string, string>> {
  const { value: list, errors } = pairs(text, path);
  const value: Record<string, string> = {};
  for (const [name, wanted] of list) {
    if (hasOwn(value, name) && value[name] !== wanted) {
      errors.push({
        path,
        message: `category '${name}' is constrained to two values ('${value[name]}', '${wanted}')`,
      });
    } else {
      setOwn(value, name, wanted);
    }
  }
  return { value, errors };
}

function graphWeights(text: string | null | undefined, path: string): Parsed<Record<string, number>> {
  const { value: list, errors } = pairs(text, path);
  const value: Record<string, number> = {};
  for (const [name, raw] of list) {
    const weight = Number(raw);
    if (!DECIMAL.test(raw) || !Number.isFinite(weight)) {
      errors.push({ path, message: `weight of '${name}' is not a number: '${raw}'` });
    } else if (weight < 0) {
      errors.push({ path, message: `weight of '${name}' must not be negative, got ${raw}` });
    } else if (hasOwn(value, name) && value[name] !== weight) {
      errors.push({ path, message: `category '${name}' has two weights` });
    } else {
      setOwn(value, name, weight);
    }
  }
  return { value, errors };
}

/** `dataViews`: '<domain> / <name>' entries separated by ';', duplicates removed. */
export function parseDataViews(text: string | null | undefined, path = 'dataViews'): DataViewRef[] {
  return orThrow(dataViews(text, path));
}

/** `anomalyTypes`: type codes separated by ';'; duplicates (ignoring case) removed. */
export function parseAnomalyTypes(text: string | null | undefined, path = 'anomalyTypes'): string[] {
  return orThrow(anomalyTypes(text, path));
}

/** `anomalyResult`: 'Positive', 'Negative' or both separated by ';'. */
export function parseAnomalyResult(text: string | null | undefined, path = 'anomalyResult'): AnomalyResult[] {
  return orThrow(anomalyResults(text, path));
}

/** `categoriesFilter`: 'Category=value' constraints separated by ';'. */
export function parseCategoriesFilter(
  text: string | null | undefined,
  path = 'categoriesFilter',
): Record<string, string> {
  return orThrow(categoriesFilter(text, path));
}

/** `graphWeights`: 'Category=weight' pairs separated by ';', weights ≥ 0. */
export function parseGraphWeights(
  text: string | null | undefined,
  path = 'graphWeights',
): Record<string, number> {
  return orThrow(graphWeights(text, path));
}

function bound(
  body: Partial<FilterDefinition>,
  field: 'recurrence' | 'changePct' | 'change' | 'sharePct',
  errors: FieldError[],
): NumericBound {
  const from = body[`${field}From`] ?? null;
  const to = body[`${field}To`] ?? null;
  if (from !== null && to !== null && from > to) {
    errors.push({ path: `${field}To`, message: `must not be less than ${field}From (${from})` });
  }
  return { from, to };
}

/** Turns a schema-valid filter body into FilterSettings; one ValidationError lists every field at fault. */
export function parseFilterSettings(body: Partial<FilterDefinition>): FilterSettings {
  const errors: FieldError[] = [];
  const take = <T>(parsed: Parsed<T>): T => {
    errors.push(...parsed.errors);
    return parsed.value;
  };
  const timeRange: TimeRangePreset = body.timeRange ?? 'Last 7 Days';
  const dateFrom = body.dateFrom ?? null;
  const dateTo = body.dateTo ?? null;
  if (timeRange === 'Custom') {
    if (!dateFrom) errors.push({ path: 'dateFrom', message: 'is required when timeRange is Custom' });
    if (!dateTo) errors.push({ path: 'dateTo', message: 'is required when timeRange is Custom' });
  }
  if (dateFrom && dateTo && dateFrom > dateTo) {
    errors.push({ path: 'dateTo', message: `must not be before dateFrom (${dateFrom})` });
  } else if (timeRange === 'Custom' && dateFrom && dateTo) {
    const tooLong = customSpanError(dateFrom, dateTo);
    if (tooLong) errors.push(tooLong);
  }
  const settings: FilterSettings = {
    timeRange,
    dateFrom,
    dateTo,
    dataViews: take(dataViews(body.dataViews, 'dataViews')),
    anomalyTypes: take(anomalyTypes(body.anomalyTypes, 'anomalyTypes')),
    anomalyResults: take(anomalyResults(body.anomalyResult, 'anomalyResult')),
    measures: take(measures(body.measures, 'measures')),
    categories: take(categoriesFilter(body.categoriesFilter, 'categoriesFilter')),
    recurrence: bound(body, 'recurrence', errors),
    changePct: bound(body, 'changePct', errors),
    change: bound(body, 'change', errors),
    sharePct: bound(body, 'sharePct', errors),
    sortBy: body.sortBy ?? 'SIN',
    limit: body.limit ?? 100,
    splitByType: body.splitByType ?? false,
    isAggregated: body.isAggregated ?? false,
    aggregationMode: body.aggregationMode ?? 'Hierarchical',
    minCommonCategories: body.minCommonCategories ?? 1,
    graphThreshold: body.graphThreshold ?? 0.5,
    graphWeights: take(graphWeights(body.graphWeights, 'graphWeights')),
    // Off unless the body asks for it, so API clients that do not know it see one record per type.
    mergeEvents: body.mergeEvents ?? false,
    incidents: body.incidents ?? false,
    hideDismissed: body.hideDismissed ?? false,
    // On by default: only views whose measures name a bad direction have welcome moves to hide.
    hideWelcome: body.hideWelcome ?? true,
  };
  orThrow({ value: null, errors });
  return settings;
}

/** The body without its read-only fields: what a create or update stores. */
export function writableFilterFields<T extends object>(
  body: T,
): Omit<T, (typeof FILTER_READ_ONLY_FIELDS)[number]> {
  const copy = { ...body } as Record<string, unknown>;
  for (const field of FILTER_READ_ONLY_FIELDS) delete copy[field];
  return copy as Omit<T, (typeof FILTER_READ_ONLY_FIELDS)[number]>;
}

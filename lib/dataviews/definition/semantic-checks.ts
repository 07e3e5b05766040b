/** Rules of a definition beyond its shape: connector, cron, column names and the category tree. */
import type { FieldError } from '../../shared/errors';
import { validateCron } from '../../schedule/cron';
import type { DefinitionContext } from './types';
import { isRecord } from './util';

const COLUMN_KEYS = ['dateColumn', 'valueColumn', 'countColumn'] as const;

/** Checks `source`: the connector exists, the cron is valid, the measure columns are distinct from each other and from categories. */
export function checkSource(source: unknown, categories: unknown, ctx: DefinitionContext): FieldError[] {
  if (!isRecord(source)) return [];
  const errors: FieldError[] = [];
  if (
    typeof source.connector === 'string' &&
    source.connector !== '' &&
    !ctx.connectorExists(source.connector)
  ) {
    errors.push({ path: 'source.connector', message: `connector '${source.connector}' does not exist` });
  }

  const trigger = source.trigger ?? 'cron';
  if (source.cron === undefined || source.cron === null || source.cron === '') {
    if (trigger === 'cron') errors.push({ path: 'source.cron', message: 'is required when trigger is cron' });
  } else if (typeof source.cron === 'string') {
    const problem = validateCron(source.cron);
    if (problem) errors.push({ path: 'source.cron', message: problem });
  }

  // Source databases often compare identifiers case-insensitively, so `City` and `city` collide.
  const categoryNames = new Set(
    (Array.isArray(categories) ? categories : [])
      .map((c) => (isRecord(c) && typeof c.name === 'string' ? c.name.toLowerCase() : undefined))
      .filter((n) => n !== undefined),
  );
  const seen = new Map<string, string>();
  for (const key of COLUMN_KEYS) {
    const column = source[key];
    if (typeof column !== 'string' || column === '') continue;
    const lower = column.toLowerCase();
    if (categoryNames.has(lower)) {
      errors.push({
        path: `source.${key}`,
        message: `'${column}' is also a category name; measures and categories need distinct columns`,
      });
    }
    const other = seen.get(lower);
    if (other) errors.push({ path: `source.${key}`, message: `'${column}' is already used as ${other}` });
    else seen.set(lower, key);
  }
  return errors;
}

/** PostgreSQL's 63-byte identifiers less the two characters of the `c_`/`k_` prefix of a category's columns. */
export const CATEGORY_COLUMN_CHARS = 61;

/** Checks the category list: unique names, parents that name another category, no parent cycles. */
export function checkCategories(categories: unknown): FieldError[] {
  if (!Array.isArray(categories)) return [];
  const errors: FieldError[] = [];
  const indexByName = new Map<string, number>();
  const lowerSeen = new Map<string, number>();
  const columnSeen = new Map<string, number>();
  categories.forEach((c, i) => {
    if (!isRecord(c) || typeof c.name !== 'string') return;
    const first = lowerSeen.get(c.name.toLowerCase());
    // The dataset's columns are `c_<name>` and `k_<name>`; PostgreSQL keeps 63 bytes of a name, so names
    // alike in their first 61 characters would be one column (a failed deploy, not a 400, without this).
    const column = c.name.toLowerCase().slice(0, CATEGORY_COLUMN_CHARS);
    const sameColumn = columnSeen.get(column);
    if (first !== undefined) {
      errors.push({
        path: `categories[${i}].name`,
        message: `duplicates categories[${first}].name '${c.name}'`,
      });
    } else if (sameColumn !== undefined) {
      errors.push({
        path: `categories[${i}].name`,
        message:
          `shares its first ${CATEGORY_COLUMN_CHARS} characters with categories[${sameColumn}].name; ` +
          `the database keeps only those of a category's column name, so they must differ there`,
      });
    } else {
      lowerSeen.set(c.name.toLowerCase(), i);
      columnSeen.set(column, i);
      indexByName.set(c.name, i);
    }
  });

  const parentOf = new Map<number, number>();
  categories.forEach((c, i) => {
    if (!isRecord(c) || typeof c.parent !== 'string') return;
    const path = `categories[${i}].parent`;
    if (c.parent === c.name) {
      errors.push({ path, message: 'a category cannot be its own parent' });
      return;
    }
    const parent = indexByName.get(c.parent);
    if (parent === undefined) {
      const hint = lowerSeen.has(c.parent.toLowerCase()) ? ' (names are case-sensitive)' : '';
      errors.push({ path, message: `'${c.parent}' is not the name of another category${hint}` });
      return;
    }
    parentOf.set(i, parent);
  });

  // Each category has at most one parent, so following the links from any start either ends or loops.
  const reported = new Set<number>();
  for (const start of parentOf.keys()) {
    const chain: number[] = [];
    let at: number | undefined = start;
    while (at !== undefined && !chain.includes(at)) {
      chain.push(at);
      at = parentOf.get(at);
    }
    if (at === undefined) continue;
    const cycle = chain.slice(chain.indexOf(at));
    const first = Math.min(...cycle);
    if (reported.has(first)) continue;
    reported.add(first);
    const k = cycle.indexOf(first);
    const ordered = [...cycle.slice(k), ...cycle.slice(0, k), first];
    const names = ordered.map((i) => (categories[i] as { name: string }).name);
    errors.push({
      path: `categories[${first}].parent`,
      message: `parent links form a cycle: ${names.join(' → ')}`,
    });
  }
  return errors;
}

/** Checks that ignoring the last days still leaves days to scan. */
export function checkAnalysisWindow(analysis: unknown): FieldError[] {
  if (!isRecord(analysis)) return [];
  const { ignoreLastNDays: ignore, scanInLastNDays: scan } = analysis;
  if (typeof ignore === 'number' && typeof scan === 'number' && scan > 0 && ignore >= scan) {
    return [
      {
        path: 'analysis.ignoreLastNDays',
        message: `must be smaller than scanInLastNDays (${scan}), otherwise no day is left to analyse`,
      },
    ];
  }
  return [];
}

/** Checks `analysis.measures`: count and ratio need the view's count column. */
export function checkMeasures(analysis: Record<string, unknown>, source: unknown): FieldError[] {
  const count = isRecord(source) ? source.countColumn : undefined;
  if (typeof count === 'string' && count.trim() !== '') return [];
  const errors: FieldError[] = [];
  const props = analysis.measureProperties;
  if (isRecord(props))
    for (const m of ['count', 'ratio'])
      if (props[m] !== undefined && props[m] !== null)
        errors.push({ path: `analysis.measureProperties.${m}`, message: `${m} needs source.countColumn` });
  const measures = analysis.measures;
  if (!Array.isArray(measures)) return errors;
  const needing = measures.filter((m) => m === 'count' || m === 'ratio');
  if (needing.length > 0)
    errors.unshift({
      path: 'analysis.measures',
      message: `${needing.join(' and ')} ${needing.length > 1 ? 'need' : 'needs'} source.countColumn`,
    });
  return errors;
}

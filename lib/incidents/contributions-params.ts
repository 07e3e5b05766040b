/** The query of GET /dataviews/{id}/contributions, checked: each bad parameter is a 400 naming it. */
import type { SeriesMeasure } from '../dataset/series-store';
import { toEpochDay } from '../calendar/days';
import { ValidationError } from '../shared/errors';
import { CONTRIBUTION_DEFAULTS } from './contributions';
import { hasOwn, setOwn } from '../shared/own';

/** Longest window a request may ask for, in days. */
export const MAX_WINDOW_DAYS = 366;
export const MAX_VALUES = 500;
export const MAX_WEEKS = 12;

export interface ContributionsRequest {
  categories: Record<string, string>;
  from: string;
  to: string;
  /** ratio: value per event, its change split into rate and mix effects (lib/incidents/ratio-contributions.ts). */
  measure: SeriesMeasure | 'ratio';
  weeks: number;
  limit: number;
}

function dateParam(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw ValidationError.field(name, 'is required (yyyy-MM-dd)');
  const ok =
    /^\d{4}-\d{2}-\d{2}$/.test(value) &&
    !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
    new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) === value;
  if (!ok)
    throw ValidationError.field(name, `must be a date in the form yyyy-MM-dd, got '${value.slice(0, 40)}'`);
  return value;
}

function intIn(value: string | undefined, name: string, fallback: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max)
    throw ValidationError.field(name, `must be an integer from 1 to ${max}, got '${value.slice(0, 40)}'`);
  return Number(value);
}

/**
 * The request from the query string: `categories` as `name=value;name=value` (names ignoring case; left
 * out or empty: the view's total), `from`, `to`, `measure` (value | count | ratio), `weeks` (baseline weeks,
 * default 4), `limit` (values per dimension, default 10). Each bad parameter is a 400 naming it.
 */
export function parseContributionsQuery(
  categoryNames: readonly string[],
  query: Record<string, string | undefined>,
): ContributionsRequest {
  const categories: Record<string, string> = {};
  const text = query.categories ?? '';
  for (const part of text.split(';')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const name = eq < 0 ? part.trim() : part.slice(0, eq).trim();
    const value = eq < 0 ? '' : part.slice(eq + 1).trim();
    const known = categoryNames.find((c) => c.toLowerCase() === name.toLowerCase());
    if (!known)
      throw ValidationError.field(
        'categories',
        `'${name.slice(0, 60)}' is not a category of this data view (known: ${categoryNames.join(', ') || 'none'}); write name=value;name=value`,
      );
    if (value === '') throw ValidationError.field('categories', `${known} needs a value (name=value)`);
    if (hasOwn(categories, known)) throw ValidationError.field('categories', `${known} is given twice`);
    setOwn(categories, known, value);
  }
  const from = dateParam(query.from, 'from');
  const to = dateParam(query.to, 'to');
  const days = toEpochDay(to) - toEpochDay(from) + 1;
  if (days < 1) throw ValidationError.field('to', `must not be before from (${from})`);
  if (days > MAX_WINDOW_DAYS)
    throw ValidationError.field('to', `the window may span at most ${MAX_WINDOW_DAYS} days, got ${days}`);
  const m = query.measure === undefined || query.measure === '' ? 'value' : query.measure;
  if (m !== 'value' && m !== 'count' && m !== 'ratio')
    throw ValidationError.field('measure', `must be value, count or ratio, got '${m.slice(0, 40)}'`);
  return {
    categories,
    from,
    to,
    measure: m,
    weeks: intIn(query.weeks, 'weeks', 4, MAX_WEEKS),
    limit: intIn(query.limit, 'limit', CONTRIBUTION_DEFAULTS.limit, MAX_VALUES),
  };
}

/**
 * Holiday calendars per series: a view whose categories are marked `calendar: country | state` gives
 * each series the holidays of its own country or state, and an aggregate over several regions the
 * holidays that apply to most of its volume (lib/calendar/holidays.ts blendCalendars), each joined
 * with the view's own special dates. The regions under a series and their volumes come from cat_map
 * and all_series in one query.
 */
import { sql } from 'drizzle-orm';
import {
  blendCalendars,
  type HolidayRegion,
  holidayCalendar,
  holidayDays,
  unionCalendars,
} from '../calendar/holidays';
import { fromEpochDay } from '../calendar/days';
import { resolveRegion } from '../calendar/regions';
import type { SpecialCalendar } from '../calendar/special-calendar';
import { catalogTable, seriesStatsTable } from '../dataset/catalog';
import { categoryColumn, codeColumn } from '../dataset/ddl';
import type { Database } from '../db/database';
import type { DataViewCategory, DataViewDefinition, ViewCalendar } from '../dataviews/definition/types';
import type { DetectionContext } from '../detection/types';
import { detectionContext, specialDatesCalendar } from './detectors';

/** The calendar categories of a view, in definition order. */
export function calendarCategories(categories: readonly DataViewCategory[]): DataViewCategory[] {
  return categories.filter((c) => c.calendar === 'country' || c.calendar === 'state');
}

/** One row of the query: a series, the region values of one of the regions under it, and their volume. */
export interface RegionVolumeRow {
  id: number;
  country: string | null;
  state: string | null;
  volume: number;
}

/**
 * SQL of the regions under each series: for a series `a`, the series `b` that set every calendar
 * category (equal to a's where a sets it) and equal a on every other category, with their volume.
 * `onlyIds` restricts `a` (the explorer asks for one series).
 */
export function regionVolumesSql(
  schema: string,
  categories: readonly DataViewCategory[],
  onlyIds?: readonly number[],
): string {
  const on = categories.map((c) => {
    const k = codeColumn(c.name);
    return c.calendar === 'country' || c.calendar === 'state'
      ? `b.${k} <> 0 AND (a.${k} = 0 OR a.${k} = b.${k})`
      : `b.${k} = a.${k}`;
  });
  const col = (level: string) => {
    const c = categories.find((x) => x.calendar === level);
    return c ? `b.${categoryColumn(c.name)}` : 'NULL::text';
  };
  const where = onlyIds
    ? `WHERE a.series_id IN (${onlyIds.map((id) => Number(id)).join(',') || 'NULL'})`
    : '';
  return `SELECT a.series_id AS id, ${col('country')} AS country, ${col('state')} AS state,
    sum(abs(coalesce(v.total_value, 0))) AS volume
    FROM ${catalogTable(schema)} a JOIN ${catalogTable(schema)} b ON ${on.join(' AND ')}
    LEFT JOIN ${seriesStatsTable(schema)} v ON v.series_id = b.series_id
    ${where} GROUP BY 1, 2, 3`;
}

/** How the view's calendars are built over one range of days. */
export interface CalendarSetup {
  categories: readonly DataViewCategory[];
  view?: ViewCalendar;
  /** The view's special dates (specialDates, rules, periods) over the range, or undefined. */
  base?: SpecialCalendar;
  fromDay: number;
  toDay: number;
}

/** The region of one row, or null (a value the holiday library does not know). */
function regionOf(row: RegionVolumeRow, setup: CalendarSetup): HolidayRegion | null {
  const byLevel = (level: 'country' | 'state') => setup.categories.find((c) => c.calendar === level);
  const countryCat = byLevel('country');
  const stateCat = byLevel('state');
  const country =
    countryCat && row.country !== null
      ? resolveRegion('country', row.country, { codes: countryCat.calendarCodes })
      : null;
  if (stateCat && row.state !== null) {
    const state = resolveRegion('state', row.state, {
      country: country?.country ?? setup.view?.country,
      codes: stateCat.calendarCodes,
    });
    if (state) return state;
  }
  if (country) return country;
  return setup.view?.country ? { country: setup.view.country, state: setup.view.state } : null;
}

/**
 * Series id → its calendar (the view's special dates joined with the holidays that apply to it).
 * Equal calendars are one object, so a shard aligns each once.
 */
export function seriesCalendars(
  rows: readonly RegionVolumeRow[],
  setup: CalendarSetup,
): Map<number, SpecialCalendar> {
  const periods = setup.view?.periods === true;
  const empty: SpecialCalendar = {
    fromDay: setup.fromDay,
    toDay: setup.toDay,
    flags: new Uint8Array(Math.max(0, setup.toDay - setup.fromDay + 1)),
  };
  const regionCals = new Map<string, SpecialCalendar>();
  const calendarOf = (r: HolidayRegion | null) => {
    if (!r) return empty;
    const key = r.state ? `${r.country}-${r.state}` : r.country;
    let cal = regionCals.get(key);
    if (!cal) {
      cal = holidayCalendar(r, setup.fromDay, setup.toDay, periods);
      regionCals.set(key, cal);
    }
    return cal;
  };
  const bySeries = new Map<number, Array<{ calendar: SpecialCalendar; volume: number }>>();
  for (const row of rows) {
    const id = Number(row.id);
    const parts = bySeries.get(id) ?? [];
    parts.push({ calendar: calendarOf(regionOf(row, setup)), volume: Number(row.volume) });
    bySeries.set(id, parts);
  }
  const interned = new Map<string, SpecialCalendar>();
  const out = new Map<number, SpecialCalendar>();
  for (const [id, parts] of bySeries) {
    const distinct = new Set(parts.map((p) => p.calendar));
    let cal = distinct.size === 1 ? parts[0].calendar : blendCalendars(parts, setup.fromDay, setup.toDay);
    if (setup.base) cal = unionCalendars(setup.base, cal);
    const key = Buffer.from(cal.flags).toString('base64');
    const known = interned.get(key);
    if (known) cal = known;
    else interned.set(key, cal);
    out.set(id, cal);
  }
  return out;
}

/** Reads the regions under the view's series (all, or `onlyIds`) and builds their calendars; undefined without calendar categories. */
export async function readSeriesCalendars(
  db: Database,
  schema: string,
  setup: CalendarSetup,
  onlyIds?: readonly number[],
): Promise<Map<number, SpecialCalendar> | undefined> {
  if (calendarCategories(setup.categories).length === 0 || setup.toDay < setup.fromDay) return undefined;
  const rows = await db.rows<RegionVolumeRow>(sql.raw(regionVolumesSql(schema, setup.categories, onlyIds)));
  return seriesCalendars(rows, setup);
}

/** A holiday (or special-period day) drawn on a series' chart. */
export interface SeriesHoliday {
  date: string;
  name: string;
  kind: 'holiday' | 'period';
  /** The region whose holiday it is: AT, DE-BY. */
  region: string;
}

/**
 * The calendar of one series and the holidays that apply to it over the setup's range: its
 * regions' holidays on the days its (blended) calendar marks; the view's calendar without
 * calendar categories.
 */
export async function seriesHolidays(
  db: Database,
  schema: string,
  setup: CalendarSetup,
  seriesId: number,
): Promise<{ calendar?: SpecialCalendar; holidays: SeriesHoliday[] }> {
  const periods = setup.view?.periods === true;
  let regions: HolidayRegion[] = [];
  let calendar: SpecialCalendar | undefined;
  if (calendarCategories(setup.categories).length > 0 && setup.toDay >= setup.fromDay) {
    const rows = await db.rows<RegionVolumeRow>(
      sql.raw(regionVolumesSql(schema, setup.categories, [seriesId])),
    );
    calendar = seriesCalendars(rows, setup).get(seriesId);
    regions = rows.map((r) => regionOf(r, setup)).filter((r): r is HolidayRegion => r !== null);
  } else if (setup.view?.country) {
    regions = [{ country: setup.view.country, state: setup.view.state }];
  }
  const seen = new Set<number>();
  const holidays: SeriesHoliday[] = [];
  for (const r of regions) {
    for (const h of holidayDays(r, setup.fromDay, setup.toDay, periods)) {
      if (seen.has(h.day)) continue;
      if (calendar && calendar.flags[h.day - setup.fromDay] === 0) continue;
      seen.add(h.day);
      const region = r.state ? `${r.country}-${r.state}` : r.country;
      holidays.push({ date: fromEpochDay(h.day), name: h.name, kind: h.kind, region });
    }
  }
  holidays.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return { calendar, holidays };
}

/**
 * The detection context of one series (the explorer, the detector preview): the view's context with
 * the series' own calendar when categories carry calendars, and the holidays that apply to it.
 */
export async function seriesDetectionContext(
  db: Database,
  schema: string,
  def: Pick<DataViewDefinition, 'categories' | 'analysis'>,
  seriesId: number,
  dayIndex0: number,
  days: number,
): Promise<{ ctx: DetectionContext; holidays: SeriesHoliday[] }> {
  const ctx = detectionContext(def.analysis, dayIndex0, days);
  const toDay = dayIndex0 + Math.max(0, days - 1);
  const { calendar, holidays } = await seriesHolidays(
    db,
    schema,
    {
      categories: def.categories ?? [],
      view: def.analysis?.calendar,
      base: specialDatesCalendar(def.analysis, dayIndex0, toDay),
      fromDay: dayIndex0,
      toDay,
    },
    seriesId,
  );
  if (calendar) ctx.calendar = calendar;
  return { ctx, holidays };
}

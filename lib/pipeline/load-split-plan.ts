/**
 * The plan of a split load (load-split.ts): one pass of the source query grouped by its categories
 * gives every leaf (distinct category combination) with its first and last day and its rows. From it
 * the coordinator codes every category value, derives every series and its id before any part runs,
 * and cuts the days into parts of whole 112-day chunks of the packed layout: each part then reads its
 * days only and writes its chunks with the ids of the plan, so that nothing is renumbered afterwards.
 */
import { epochDayToYyyymmdd, yyyymmddToEpochDay } from '../calendar/days';
import { ident } from '../dataset/ddl';
import { chunkOf, chunkStart } from '../dataset/series-chunks';
import type { DataViewDefinition } from '../dataviews/definition/types';
import { codeBatch, type ColumnMap, resolveColumns, type RowShape, toDay } from './rows';
import type { LoadSource, SourceRow } from './source';
import { type Dictionary, emptyBatch } from './stage';

/** A part of a split load: the days [from, to) as YYYYMMDD (whole chunks). */
export interface LoadPart {
  from: number;
  to: number;
}

/** What the grouped pass over the source found. */
export interface SourceLeaves {
  /** The result column of the date (the parts' day predicate names it). */
  dateKey: string;
  /** Each leaf's codes (first seen first); the dictionary holds their values. */
  leaves: number[][];
  rows: number;
  firstDay: number | null;
  lastDay: number | null;
}

export function rowShape(def: DataViewDefinition): RowShape {
  return {
    dateColumn: def.source.dateColumn,
    valueColumn: def.source.valueColumn,
    countColumn: def.source.countColumn,
    categories: def.categories.map((c) => c.name),
  };
}

/** The result columns of `text` (its first row; undefined when it returns none). */
async function columnsOf(source: LoadSource, text: string, shape: RowShape): Promise<ColumnMap | undefined> {
  for await (const batch of source.stream(`SELECT * FROM (${text}) AS q LIMIT 1`, { batchSize: 1 })) {
    if (batch.length > 0) return resolveColumns(shape, Object.keys(batch[0]), 'load query');
  }
  return undefined;
}

/**
 * The leaves of the load query, coded with `dict` (new values are assigned codes there), in one grouped
 * pass on the source's server. Undefined when the query returns no rows.
 */
export async function sourceLeaves(
  source: LoadSource,
  text: string,
  shape: RowShape,
  dict: Dictionary,
  batchSize: number,
): Promise<SourceLeaves | undefined> {
  const map = await columnsOf(source, text, shape);
  if (!map) return undefined;
  const cats = map.categories.map((k) => ident(k));
  const d = ident(map.date);
  const grouped =
    `SELECT ${[...cats, `min(${d}) AS "__lo"`, `max(${d}) AS "__hi"`, 'count(*) AS "__n"'].join(', ')} ` +
    `FROM (${text}) AS q${cats.length > 0 ? ` GROUP BY ${cats.join(', ')}` : ''}`;
  const seen = new Set<string>();
  const out: SourceLeaves = { dateKey: map.date, leaves: [], rows: 0, firstDay: null, lastDay: null };
  for await (const batch of source.stream(grouped, { batchSize })) {
    const rows: SourceRow[] = batch.map((g) => {
      const row: SourceRow = { [map.date]: g.__lo, [map.value]: 0 };
      if (map.count) row[map.count] = 0;
      for (const k of map.categories) row[k] = g[k];
      return row;
    });
    const coded = emptyBatch(cats.length);
    codeBatch(rows, map, shape, dict, coded, 0, 'load query');
    for (let r = 0; r < batch.length; r++) {
      const n = Number(batch[r].__n);
      if (n === 0) continue;
      out.rows += n;
      const hi = toDay(batch[r].__hi);
      const lo = coded.days[r];
      out.firstDay = out.firstDay === null ? lo : Math.min(out.firstDay, lo);
      if (typeof hi === 'number') out.lastDay = out.lastDay === null ? hi : Math.max(out.lastDay, hi);
      const leaf = coded.codes.map((c) => c[r]);
      const key = leaf.join(',');
      if (seen.has(key)) continue;
      seen.add(key);
      out.leaves.push(leaf);
    }
  }
  return out.rows === 0 ? undefined : out;
}

/** The days from `firstDay` to `lastDay` (YYYYMMDD) cut into parts of `partChunks` whole chunks. */
export function planParts(firstDay: number, lastDay: number, partChunks: number): LoadPart[] {
  const first = chunkOf(yyyymmddToEpochDay(firstDay));
  const last = chunkOf(yyyymmddToEpochDay(lastDay));
  const parts: LoadPart[] = [];
  for (let c = first; c <= last; c += partChunks) {
    const end = Math.min(last + 1, c + partChunks);
    parts.push({ from: epochDayToYyyymmdd(chunkStart(c)), to: epochDayToYyyymmdd(chunkStart(end)) });
  }
  return parts;
}

/** The source query of one part: the load query's rows of the part's days. */
export function partQuery(text: string, dateKey: string, part: LoadPart): string {
  const d = `q.${ident(dateKey)}`;
  return `SELECT * FROM (${text}) AS q WHERE ${d} >= ${Number(part.from)} AND ${d} < ${Number(part.to)}`;
}

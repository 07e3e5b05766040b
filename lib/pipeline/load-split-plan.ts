/**
 * The plan of a split load (load-split.ts): one pass of the source query grouped by its categories
 * gives every leaf (distinct category combination) and its rows, one grouped by day the days present.
 * Every query is written in the source's dialect (lib/connectors/dialect.ts: its probe of the first row,
 * its derived table, its day literals). From it
 * the coordinator codes every category value, derives every series and its id before any part runs,
 * and cuts the days into parts of whole 112-day chunks of the packed layout: each part then reads its
 * days only and writes its chunks with the ids of the plan, so that nothing is renumbered afterwards.
 */
import { epochDayToYyyymmdd, yyyymmddToEpochDay } from '../calendar/days';
import { ident } from '../dataset/ddl';
import { chunkOf, chunkStart } from '../dataset/series-chunks';
import type { DataViewDefinition } from '../dataviews/definition/types';
import { DIALECTS, dayKindOf } from '../connectors/dialect';
import type { DayKind, SqlDialect } from '../connectors/source-port';
import { ValidationError } from '../shared/errors';
import { codeBatch, type ColumnMap, resolveColumns, type RowShape, toDay } from './rows';
import type { LoadSource, SourceRow } from './source';
import { type Dictionary, emptyBatch } from './stage';

/** A part of a split load: the days [from, to) as YYYYMMDD (whole chunks); `to` beyond 9999-12-31: no upper bound. */
export interface LoadPart {
  from: number;
  to: number;
}

/** The most parts a split load is cut into (parts then hold more chunks each): docs/jobs.md. */
export const MAX_LOAD_PARTS = 100;

/** What the grouped passes over the source found. */
export interface SourceLeaves {
  /** The result column of the date (the parts' day predicate names it). */
  dateKey: string;
  /** How the driver gives the date column (the parts' day literal is of that kind). */
  dayKind: DayKind;
  /** Each leaf's codes (first seen first); the dictionary holds their values. */
  leaves: number[][];
  rows: number;
  /** The days present, ascending (YYYYMMDD). */
  days: number[];
}

export function rowShape(def: DataViewDefinition): RowShape {
  return {
    dateColumn: def.source.dateColumn,
    valueColumn: def.source.valueColumn,
    countColumn: def.source.countColumn,
    categories: def.categories.map((c) => c.name),
  };
}

/** The dialect of the source (PostgreSQL's for a source that names none). */
export function dialectOf(source: LoadSource): SqlDialect {
  return source.dialect ?? DIALECTS.pgsql;
}

/** The result columns of `text` and the kind of its date column (its first row; undefined when it returns none). */
async function probe(
  source: LoadSource,
  text: string,
  shape: RowShape,
): Promise<{ map: ColumnMap; kind: DayKind } | undefined> {
  for await (const batch of source.stream(dialectOf(source).firstRow(text), { batchSize: 1 })) {
    if (batch.length === 0) continue;
    const map = resolveColumns(shape, Object.keys(batch[0]), 'load query');
    const v = batch[0][map.date];
    const kind = dayKindOf(v);
    if (!kind)
      throw ValidationError.field(
        'source',
        `row 1 of the load query: the date column ${shape.dateColumn} ${String(toDay(v))}`,
      );
    return { map, kind };
  }
  return undefined;
}

/** The day of a value of the date column, or the load's problem naming it. */
function dayOrFail(v: unknown, shape: RowShape): number {
  const d = toDay(v);
  if (typeof d === 'string')
    throw ValidationError.field('source', `the date column ${shape.dateColumn} of the load query ${d}`);
  return d;
}

/** The days present in the load query, by one grouped pass on the source's server. */
async function daysPresent(
  source: LoadSource,
  text: string,
  dateKey: string,
  kind: DayKind,
  shape: RowShape,
  batchSize: number,
): Promise<number[]> {
  const dialect = dialectOf(source);
  const day = dialect.dayOf(`q.${ident(dateKey)}`, kind);
  const grouped = `SELECT ${day} AS "__d" FROM ${dialect.derived(text, 'q')} GROUP BY ${day}`;
  const days = new Set<number>();
  for await (const batch of source.stream(grouped, { batchSize }))
    for (const g of batch) if (g.__d !== null && g.__d !== undefined) days.add(dayOrFail(g.__d, shape));
  return [...days].sort((a, b) => a - b);
}

/**
 * The leaves of the load query, coded with `dict` (new values are assigned codes there), and the days it
 * holds, in two grouped passes on the source's server. Undefined when the query returns no rows.
 */
export async function sourceLeaves(
  source: LoadSource,
  text: string,
  shape: RowShape,
  dict: Dictionary,
  batchSize: number,
): Promise<SourceLeaves | undefined> {
  const probed = await probe(source, text, shape);
  if (!probed) return undefined;
  const { map, kind } = probed;
  const cats = map.categories.map((k) => ident(k));
  const d = ident(map.date);
  const grouped =
    `SELECT ${[...cats, `min(${d}) AS "__lo"`, 'count(*) AS "__n"'].join(', ')} ` +
    `FROM ${dialectOf(source).derived(text, 'q')}${cats.length > 0 ? ` GROUP BY ${cats.join(', ')}` : ''}`;
  const seen = new Set<string>();
  const out: SourceLeaves = { dateKey: map.date, dayKind: kind, leaves: [], rows: 0, days: [] };
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
      const leaf = coded.codes.map((c) => c[r]);
      const key = leaf.join(',');
      if (seen.has(key)) continue;
      seen.add(key);
      out.leaves.push(leaf);
    }
  }
  if (out.rows === 0) return undefined;
  out.days = await daysPresent(source, text, map.date, kind, shape, batchSize);
  return out;
}

/**
 * The days present (YYYYMMDD, ascending) cut into parts of `partChunks` chunks that hold rows, at most
 * `maxParts` (each part then holds more chunks). The parts tile the days from the first chunk with rows
 * to the last: a part reaches to the next part's first chunk, so empty stretches between (a sentinel
 * date such as 9999-12-31 far after the rest) cost no part of their own.
 */
export function planParts(days: number[], partChunks: number, maxParts = MAX_LOAD_PARTS): LoadPart[] {
  const chunks = [...new Set(days.map((d) => chunkOf(yyyymmddToEpochDay(d))))].sort((a, b) => a - b);
  if (chunks.length === 0) return [];
  const per = Math.max(Math.max(1, Math.floor(partChunks)), Math.ceil(chunks.length / Math.max(1, maxParts)));
  const starts: number[] = [];
  for (let i = 0; i < chunks.length; i += per) starts.push(chunks[i]);
  const end = chunks[chunks.length - 1] + 1;
  return starts.map((c, i) => ({
    from: epochDayToYyyymmdd(chunkStart(c)),
    to: epochDayToYyyymmdd(chunkStart(i + 1 < starts.length ? starts[i + 1] : end)),
  }));
}

/** The last day a date literal can name. */
const LAST_DAY = 99991231;

/** The source query of one part: the load query's rows of the part's days, in the source's dialect. */
export function partQuery(
  text: string,
  dateKey: string,
  part: LoadPart,
  kind: DayKind = 'integer',
  dialect: SqlDialect = DIALECTS.pgsql,
): string {
  const d = `q.${ident(dateKey)}`;
  const upper = part.to > LAST_DAY ? '' : ` AND ${d} < ${dialect.dayLiteral(part.to, kind)}`;
  return `SELECT * FROM ${dialect.derived(text, 'q')} WHERE ${d} >= ${dialect.dayLiteral(part.from, kind)}${upper}`;
}

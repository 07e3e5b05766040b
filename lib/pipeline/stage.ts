/**
 * Writing a load's rows: category values become integer codes (dict), rows are appended to a staging
 * table outside any transaction, and the swap into `int` happens later in one transaction.
 */
import { sql } from 'drizzle-orm';
import { codeColumn, type DatasetShape, dictKey, ident, intColumnsDdl } from '../dataset/ddl';
import type { Database } from '../db/database';

export const STAGE_TABLE = 'int_stage';

/** Category value ↔ code, per category; codes start at 1 and never change once written. */
export class Dictionary {
  private readonly maps: Map<string, number>[];
  private readonly next: number[];
  private readonly added: Array<{ category: string; code: number; value: string }> = [];

  constructor(
    private readonly categories: string[],
    existing: Array<{ category: string; code: number; value: string }>,
  ) {
    this.maps = categories.map(() => new Map());
    this.next = categories.map(() => 1);
    const index = new Map(categories.map((c, i) => [dictKey(c), i]));
    for (const e of existing) {
      const i = index.get(e.category);
      if (i === undefined) continue;
      this.maps[i].set(e.value, e.code);
      this.next[i] = Math.max(this.next[i], e.code + 1);
    }
  }

  /** The code of `value` in category `i`, assigning the next one to a value never seen. */
  code(i: number, value: string): number {
    const m = this.maps[i];
    let c = m.get(value);
    if (c === undefined) {
      c = this.next[i]++;
      m.set(value, c);
      this.added.push({ category: dictKey(this.categories[i]), code: c, value });
    }
    return c;
  }

  /** Entries assigned during this load, to be written with it. */
  newEntries(): ReadonlyArray<{ category: string; code: number; value: string }> {
    return this.added;
  }
}

export async function readDictionary(
  db: Database,
  schema: string,
): Promise<Array<{ category: string; code: number; value: string }>> {
  return db.rows(sql.raw(`SELECT category, code, value FROM ${ident(schema)}.dict`));
}

/** Writes dictionary entries (inside the load's transaction). */
export async function writeDictionary(
  db: Database,
  schema: string,
  entries: ReadonlyArray<{ category: string; code: number; value: string }>,
): Promise<void> {
  const chunk = 5000;
  for (let i = 0; i < entries.length; i += chunk) {
    const part = entries.slice(i, i + chunk);
    await db.rows(sql`INSERT INTO ${sql.raw(ident(schema))}.dict (category, code, value)
      SELECT * FROM json_to_recordset(${JSON.stringify(part)}::json) AS x(category text, code int, value text)`);
  }
}

/** A fresh, empty staging table shaped like `int`. */
export async function createStage(db: Database, schema: string, shape: DatasetShape): Promise<void> {
  const s = ident(schema);
  await db.rows(sql.raw(`DROP TABLE IF EXISTS ${s}.${STAGE_TABLE}`));
  await db.rows(sql.raw(`CREATE TABLE ${s}.${STAGE_TABLE} (${intColumnsDdl(shape)})`));
}

export async function dropStage(db: Database, schema: string): Promise<void> {
  await db.rows(sql.raw(`DROP TABLE IF EXISTS ${ident(schema)}.${STAGE_TABLE}`));
}

/** A batch of coded rows, column by column. */
export interface CodedBatch {
  days: number[];
  codes: number[][];
  values: number[];
  cnts: number[];
}

export function emptyBatch(categories: number): CodedBatch {
  return { days: [], codes: Array.from({ length: categories }, () => []), values: [], cnts: [] };
}

// Array literals of plain numbers need no quoting; one text parameter per column keeps the statement small.
const literal = (xs: number[]) => `{${xs.join(',')}}`;

/** Appends a batch to the staging table with one statement. */
export async function appendStage(
  db: Database,
  schema: string,
  shape: DatasetShape,
  b: CodedBatch,
): Promise<void> {
  if (b.days.length === 0) return;
  const cols = ['day', ...shape.categories.map((c) => codeColumn(c.name)), 'value', 'cnt'].join(', ');
  const arrays = [
    sql`${literal(b.days)}::int[]`,
    ...b.codes.map((c) => sql`${literal(c)}::int[]`),
    sql`${literal(b.values)}::float8[]`,
    sql`${literal(b.cnts)}::float8[]`,
  ];
  await db.rows(
    sql`INSERT INTO ${sql.raw(`${ident(schema)}.${STAGE_TABLE}`)} (${sql.raw(cols)}) SELECT * FROM unnest(${sql.join(arrays, sql`, `)})`,
  );
}

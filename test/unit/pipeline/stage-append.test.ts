/**
 * Appending a load's coded batches to the staging table: COPY binary statements on PostgreSQL
 * (DATABASE_URL), the fallback (the insert from arrays) on PGlite; both leave the same rows, and a COPY
 * that fails on the server fails the append.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryCopyData } from '../../../lib/db/copy';
import {
  appendStage,
  type CodedBatch,
  createStage,
  encodeStageRows,
  STAGE_COPY_BYTES,
  STAGE_TABLE,
  stageWriter,
} from '../../../lib/pipeline/stage';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';

const dataset = { categories: [{ name: 'Country' }, { name: 'city' }] };

/** Reads PGCOPY binary back into rows (the format the server parses). */
function decode(buf: Buffer, ints: number, floats: number): number[][] {
  expect(buf.subarray(0, 11).toString('latin1')).toBe('PGCOPY\n\xff\r\n\0');
  expect(buf.readInt32BE(11)).toBe(0);
  expect(buf.readInt32BE(15)).toBe(0);
  let o = 19;
  const rows: number[][] = [];
  for (;;) {
    const fields = buf.readInt16BE(o);
    o += 2;
    if (fields === -1) break;
    expect(fields).toBe(ints + floats);
    const row: number[] = [];
    for (let i = 0; i < ints; i++) {
      expect(buf.readInt32BE(o)).toBe(4);
      row.push(buf.readInt32BE(o + 4));
      o += 8;
    }
    for (let i = 0; i < floats; i++) {
      expect(buf.readInt32BE(o)).toBe(8);
      row.push(buf.readDoubleBE(o + 4));
      o += 12;
    }
    rows.push(row);
  }
  expect(o).toBe(buf.length);
  return rows;
}

const batch = (n: number, from = 0): CodedBatch => ({
  days: Array.from({ length: n }, (_, i) => 20240101 + ((from + i) % 28)),
  codes: [
    Array.from({ length: n }, (_, i) => 1 + ((from + i) % 3)),
    Array.from({ length: n }, (_, i) => 2_000_000_000 - (from + i)),
  ],
  values: Array.from({ length: n }, (_, i) => ((from + i) % 2 ? -1 : 1) * (from + i) * 0.1),
  cnts: Array.from({ length: n }, (_, i) => (from + i) % 5),
});

const encodeStageCopy = (b: CodedBatch) => Buffer.concat(binaryCopyData([encodeStageRows(b)]));

describe('the COPY binary encoding of the staging rows', () => {
  it('writes each row as int4 day and codes, float8 value and cnt, in PGCOPY binary', () => {
    const b = batch(3);
    b.values[2] = -0;
    expect(decode(encodeStageCopy(b), 3, 2)).toEqual([
      [20240101, 1, 2_000_000_000, 0, 0],
      [20240102, 2, 1_999_999_999, -0.1, 1],
      [20240103, 3, 1_999_999_998, -0, 2],
    ]);
  });

  it('writes only the header and the end marker for an empty batch', () => {
    expect(decode(encodeStageCopy(batch(0)), 3, 2)).toEqual([]);
  });
});

describe(`stageWriter on ${backendName}`, () => {
  let t: TestDatabase;
  const schema = `stage_append_${process.pid}`;

  beforeAll(async () => {
    t = await createTestDatabase();
    await t.db.rows(sql.raw(`CREATE SCHEMA ${schema}`));
  });
  afterAll(async () => {
    await t?.drop();
  });

  const read = () =>
    t.db.rows<Record<string, number>>(
      sql.raw(`SELECT day, k_country, k_city, value, cnt FROM ${schema}.${STAGE_TABLE} ORDER BY k_city DESC`),
    );
  const writer = () => {
    const fallbackRows: number[] = [];
    const w = stageWriter(t.db, schema, dataset, (b) => {
      fallbackRows.push(b.days.length);
      return appendStage(t.db, schema, dataset, b);
    });
    return { w, fallbackRows };
  };

  it('holds every row of every batch after flush, in order, whatever the batch sizes', async () => {
    await createStage(t.db, schema, dataset);
    const { w, fallbackRows } = writer();
    // more than STAGE_COPY_BYTES in all, so at least one COPY is written before the flush
    const perRow = encodeStageRows(batch(1)).length;
    const total = Math.ceil((1.5 * STAGE_COPY_BYTES) / perRow);
    const sizes = [2_500, 1, 0, 7_000];
    let from = 0;
    for (let i = 0; from < total; i++) {
      const n = Math.min(sizes[i % sizes.length], total - from);
      await w.append(batch(n, from));
      from += n;
    }
    if (backendName === 'postgres') {
      // COPYs go out as the gathered rows pass STAGE_COPY_BYTES and run on; the rest waits for flush
      const [{ n }] = await t.db.rows<{ n: number }>(
        sql.raw(`SELECT count(*)::int AS n FROM ${schema}.${STAGE_TABLE}`),
      );
      expect(n).toBeLessThan(total);
      expect(fallbackRows).toEqual([]);
    }
    expect(await w.flush()).toBe(total);
    expect(await w.flush()).toBe(total);
    const rows = await read();
    const all = batch(total);
    expect(rows).toHaveLength(total);
    expect(rows.map((r) => Number(r.day))).toEqual(all.days);
    expect(rows.map((r) => Number(r.k_country))).toEqual(all.codes[0]);
    expect(rows.map((r) => Number(r.value))).toEqual(all.values);
    expect(rows.map((r) => Number(r.cnt))).toEqual(all.cnts);
    if (backendName === 'pglite') expect(fallbackRows.reduce((a, b) => a + b, 0)).toBe(total);
  });

  it('fails, rather than hangs, when the server refuses the rows', async () => {
    await createStage(t.db, schema, dataset);
    await t.db.rows(sql.raw(`ALTER TABLE ${schema}.${STAGE_TABLE} ADD CHECK (cnt < 4)`));
    const { w } = writer();
    // the fallback (PGlite) writes at append, the COPY writer at flush: the error comes from one of them
    const err = await w
      .append(batch(10))
      .then(() => w.flush())
      .then(
        () => undefined,
        (e) => e,
      );
    expect(err).toBeInstanceOf(Error);
    // drizzle wraps the insert's error ("Failed query …", the server's in `cause`); COPY's is the server's own
    expect(`${err.message} ${err.cause?.message ?? ''}`).toMatch(/violates check constraint/);
    if (backendName === 'postgres') expect(String(err.where)).toMatch(/^COPY int_stage, line 5/);
    // the service database is still usable afterwards
    await expect(t.db.rows(sql`SELECT 1 AS one`)).resolves.toEqual([{ one: 1 }]);
  });
});

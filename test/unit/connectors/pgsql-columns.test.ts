/**
 * The columnar COPY text parser of the pgsql adapter: the same values as the row parser (hence as
 * postgres.js gives a cursor's rows), whatever the chunking, without an object per row.
 */
import { describe, expect, it } from 'vitest';
import { type CopyColumn, copyTextParser } from '../../../lib/connectors/sources/pgsql';
import { copyColumnsParser } from '../../../lib/connectors/sources/pgsql-columns';

const num = Object.assign((x: string) => +x, {});
const intArray = Object.assign((x: string) => `array:${x}`, { array: true });
const COLUMNS: CopyColumn[] = [
  { name: 'day', type: 23, parser: num },
  { name: 'label', type: 25 },
  { name: 'amount', type: 701, parser: num },
  { name: 'xs', type: 1007, parser: intArray },
  { name: 'code', type: 1043 },
];

// Escapes, NULLs, '\N' as text, -0, non-ASCII (cut mid-sequence below), repeated and new text values.
const TEXT = [
  '20240101\ta\\tb\t1.5\t{1,2}\tzürich',
  '\\N\tx\\ny\\\\z\t\\N\t\\N\tzürich',
  '3\t\t-0\t{}\t東京',
  '4\t\\\\N as text\t2\t{3}\tzürich',
  '-17\ta\\tb\t1e-05\t{4}\t東京',
  '5\tq\t0.1\t{5}\tx',
  '',
].join('\n');

function rowsOf(pieces: string[], columns = COLUMNS) {
  const p = copyTextParser(columns);
  const out: Record<string, unknown>[] = [];
  for (const piece of pieces) p.push(piece, out);
  p.end(out);
  return out;
}

/** The columnar parser's rows, as objects, taken in batches of `batch`. */
function columnsOf(pieces: Buffer[], columns = COLUMNS, batch = 1000) {
  const p = copyColumnsParser(columns);
  const out: Record<string, unknown>[] = [];
  const drain = () => {
    while (p.pending > 0) {
      const b = p.take(batch);
      expect(b.length).toBeLessThanOrEqual(batch);
      for (let r = 0; r < b.length; r++)
        out.push(Object.fromEntries(b.names.map((n, i) => [n, b.columns[i][r]])));
    }
  };
  for (const piece of pieces) {
    p.push(piece);
    drain();
  }
  p.end();
  drain();
  return out;
}

describe('copyColumnsParser', () => {
  it('gives the row parser values: numbers, NULLs, escapes, array parsers, non-ASCII text', () => {
    const expected = rowsOf([TEXT]);
    expect(expected).toHaveLength(6);
    expect(columnsOf([Buffer.from(TEXT)])).toEqual(expected);
    expect(Object.is(columnsOf([Buffer.from(TEXT)])[2].amount, -0)).toBe(true);
  });

  it('gives the same values however the bytes are cut (mid-line, mid-field, mid-UTF-8 sequence)', () => {
    const bytes = Buffer.from(TEXT);
    const expected = rowsOf([TEXT]);
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(columnsOf([bytes.subarray(0, cut), bytes.subarray(cut)], COLUMNS, 2), `cut ${cut}`).toEqual(
        expected,
      );
    }
    expect(columnsOf([...bytes].map((b) => Buffer.from([b])))).toEqual(expected);
  });

  it('keeps a last line without its newline', () => {
    const cols = COLUMNS.slice(0, 3);
    expect(columnsOf([Buffer.from('1\ta\t2\n5\tb\t6')], cols)).toEqual(rowsOf(['1\ta\t2\n5\tb\t6'], cols));
  });

  it('reads numbers exactly as +text does, the plain decimals from their digits', () => {
    const texts = [
      '0',
      '-0',
      '7',
      '-123',
      '123456789012345',
      '1234567890123456',
      '98765432109876543210',
      '0.1',
      '0.2',
      '-0.3',
      '3.14159265358979',
      '1234567.89012345',
      '12345678.901234567',
      '.5',
      '5.',
      '1e-05',
      '-2.5E+10',
      'NaN',
      'Infinity',
      '-Infinity',
      '0.000000000000001',
      '9007199254740993',
      '4.35',
      '1.005',
      '100.01',
      '-',
      '1.2.3',
    ];
    for (let i = 0; i < 2000; i++) texts.push((Math.random() * 10 ** (i % 12)).toFixed(i % 9));
    const cols: CopyColumn[] = [{ name: 'v', type: 701, parser: num }];
    const got = columnsOf([Buffer.from(`${texts.join('\n')}\n`)], cols).map((r) => r.v);
    const want = texts.map((t) => +t);
    for (let i = 0; i < texts.length; i++) expect(Object.is(got[i], want[i]), texts[i]).toBe(true);
  });

  it('gives every distinct text its value past the number it keeps for reuse', () => {
    const cols: CopyColumn[] = [{ name: 't', type: 25 }];
    const texts = Array.from({ length: 9000 }, (_, i) => `v${i % 5000}-ü`);
    const got = columnsOf([Buffer.from(`${texts.join('\n')}\n`)], cols).map((r) => r.t);
    expect(got).toEqual(texts);
  });
});

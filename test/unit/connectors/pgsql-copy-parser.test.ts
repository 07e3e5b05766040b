/** The COPY text parser of the pgsql adapter: rows as postgres.js would give them, whatever the chunking. */
import { describe, expect, it } from 'vitest';
import { type CopyColumn, copyableServer, copyTextParser } from '../../../lib/connectors/sources/pgsql';

const num = Object.assign((x: string) => +x, {});
const intArray = Object.assign((x: string) => `array:${x}`, { array: true });
const COLUMNS: CopyColumn[] = [
  { name: 'day', type: 23, parser: num },
  { name: 'label', type: 25 },
  { name: 'amount', type: 701, parser: num },
];

// What the server writes for: (20240101, 'a\tb', 1.5), (NULL, 'x\ny\\z', NULL), (3, '', -0), (4, '\N as text', 2)
const TEXT = '20240101\ta\\tb\t1.5\n\\N\tx\\ny\\\\z\t\\N\n3\t\t-0\n4\t\\\\N as text\t2\n';
const EXPECTED = [
  { day: 20240101, label: 'a\tb', amount: 1.5 },
  { day: null, label: 'x\ny\\z', amount: null },
  { day: 3, label: '', amount: -0 },
  { day: 4, label: '\\N as text', amount: 2 },
];

function parseIn(pieces: string[], columns = COLUMNS) {
  const p = copyTextParser(columns);
  const out: Record<string, unknown>[] = [];
  for (const piece of pieces) p.push(piece, out);
  p.end(out);
  return out;
}

describe('copyTextParser', () => {
  it('reads tab-separated lines, NULLs and backslash escapes, typed by the column parsers', () => {
    expect(parseIn([TEXT])).toEqual(EXPECTED);
  });

  it('gives the same rows however the text is cut (mid-line, mid-escape, mid-field)', () => {
    for (let cut = 1; cut < TEXT.length; cut++) {
      expect(parseIn([TEXT.slice(0, cut), TEXT.slice(cut)]), `cut at ${cut}`).toEqual(EXPECTED);
    }
    expect(parseIn(TEXT.split(''))).toEqual(EXPECTED);
  });

  it('keeps a last line that has no newline', () => {
    expect(parseIn(['1\ta\t2\n5\tb\t6'])).toEqual([
      { day: 1, label: 'a', amount: 2 },
      { day: 5, label: 'b', amount: 6 },
    ]);
  });

  it('undoes every escape the server writes, and octal and hex ones', () => {
    const [row] = parseIn(['1\t\\b\\f\\n\\r\\t\\v\\\\ \\101\\x42 \\q\t0\n']);
    expect(row.label).toBe('\b\f\n\r\t\v\\ AB q');
  });

  it('hands an array parser the text without its opening brace, as postgres.js does', () => {
    const [row] = parseIn(['{1,2}\n'], [{ name: 'xs', type: 1007, parser: intArray }]);
    expect(row.xs).toBe('array:1,2}');
  });

  it('gives empty rows for a result without columns', () => {
    expect(parseIn(['\n\n'], [])).toEqual([{}, {}]);
  });
});

describe('copyableServer', () => {
  it('reads loads with COPY from PostgreSQL only', () => {
    expect(copyableServer('PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu')).toBe(true);
    expect(copyableServer('PostgreSQL 16.4 on aarch64-unknown-linux-gnu, compiled by gcc')).toBe(true);
    expect(copyableServer('PostgreSQL 17.5 on x86_64-pc-linux-gnu (PGlite 0.3)')).toBe(false);
    expect(
      copyableServer('PostgreSQL 8.0.2 on i686-pc-linux-gnu, compiled by GCC gcc, Redshift 1.0.77467'),
    ).toBe(false);
    expect(copyableServer('CockroachDB CCL v23.1.11 (x86_64-pc-linux-gnu)')).toBe(false);
    expect(copyableServer('')).toBe(false);
  });
});

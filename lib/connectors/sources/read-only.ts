/**
 * Checks of a source query's text made before it is sent, for the databases whose sessions cannot be made
 * read-only as a whole (docs/security.md, "Source queries"). Pure text work: no driver, no I/O.
 * Each check errs on the side of refusing: a name that looks like a refused keyword must be quoted.
 */
import { ReadOnlyQueryError } from './errors';

const IDENT = 'A-Za-z0-9_@#$';

/** The first `count` words of the text, upper-cased, after whitespace, comments and opening parentheses. */
export function leadingWords(text: string, count: number): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < text.length && words.length < count) {
    const ch = text[i];
    if (/\s|\(|;/.test(ch)) i++;
    else if (text.startsWith('--', i)) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end + 1;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      const m = /^[A-Za-z_][A-Za-z0-9_$#]*/.exec(text.slice(i));
      if (!m) break;
      words.push(m[0].toUpperCase());
      i += m[0].length;
    }
  }
  return words;
}

/**
 * Oracle and Snowflake run one statement per call: it must be a query (SELECT or WITH). Oracle's
 * `WITH FUNCTION`/`WITH PROCEDURE` is refused too: a function declared there may be an autonomous
 * transaction, which writes whatever the read-only transaction around it says.
 */
export function requireQuery(text: string, database: 'Oracle' | 'Snowflake'): void {
  const [first, second] = leadingWords(text, 2);
  if (first !== 'SELECT' && first !== 'WITH') {
    throw new ReadOnlyQueryError(
      `${database} source queries must be one SELECT (or WITH … SELECT) statement; this one starts with ${first ?? 'nothing'}`,
    );
  }
  if (database === 'Oracle' && first === 'WITH' && (second === 'FUNCTION' || second === 'PROCEDURE')) {
    throw new ReadOnlyQueryError(
      `Oracle source queries may not declare PL/SQL (WITH ${second}): it could write outside the read-only transaction`,
    );
  }
}

/**
 * The T-SQL text with comments (block comments nest), string literals and quoted identifiers (`"…"`,
 * `[…]`) blanked out, so that keywords are found only where the server would read them.
 */
export function maskTransactSql(text: string): string {
  const out = text.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('--', i)) {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (text.startsWith('/*', i)) {
      let depth = 1;
      let j = i + 2;
      while (j < text.length && depth > 0) {
        if (text.startsWith('/*', j)) {
          depth++;
          j += 2;
        } else if (text.startsWith('*/', j)) {
          depth--;
          j += 2;
        } else j++;
      }
      blank(i, j);
      i = j;
    } else if (text[i] === "'" || text[i] === '"' || text[i] === '[') {
      const close = text[i] === '[' ? ']' : text[i];
      let j = i + 1;
      for (; j < text.length; j++) {
        if (text[j] !== close) continue;
        // A doubled quote is one quote inside.
        if (text[j + 1] !== close) break;
        j++;
      }
      blank(i, Math.min(j + 1, text.length));
      i = j + 1;
    } else i++;
  }
  return out.join('');
}

const word = (pattern: string) => new RegExp(`(?<![A-Za-z0-9_@#])(?:${pattern})(?![${IDENT}])`, 'i');

/** Statements that could end the transaction a SQL Server batch runs in, or run text the check cannot see. */
const TRANSACTION_ENDERS: Array<[RegExp, string]> = [
  [word('COMMIT'), 'COMMIT'],
  [word('ROLLBACK'), 'ROLLBACK'],
  [word('SAVE\\s+TRAN(?:SACTION)?'), 'SAVE TRANSACTION'],
  [word('BEGIN\\s+(?:TRAN|TRANSACTION|DISTRIBUTED)'), 'BEGIN TRANSACTION'],
  [word('EXEC(?:UTE)?'), 'EXECUTE (procedures and dynamic SQL)'],
];

/**
 * A SQL Server or Fabric batch runs inside a transaction the adapter rolls back: text that could end that
 * transaction early, and so commit what it wrote, is refused.
 */
export function refuseTransactionControl(text: string): void {
  const masked = maskTransactSql(text);
  for (const [pattern, name] of TRANSACTION_ENDERS) {
    if (pattern.test(masked)) {
      throw new ReadOnlyQueryError(
        `SQL Server source queries run in a transaction that is rolled back; ${name} is refused (quote a name such as [commit])`,
      );
    }
  }
}

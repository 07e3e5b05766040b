/**
 * The text checks made before a source query is sent to SQL Server, Oracle or Snowflake: a keyword counts
 * only where the server would read it, and a keyword hidden from the server is never held against the query.
 */
import { describe, expect, it } from 'vitest';
import {
  leadingWords,
  refuseTransactionControl,
  requireQuery,
} from '../../../lib/connectors/sources/read-only';

describe('the SQL Server transaction check', () => {
  it.each([
    ['a COMMIT after a quoted name holding a quote', "select [it's] as n; commit"],
    ['a COMMIT after a line comment holding a quote', "select 1 as n -- it's\ncommit"],
    ['a COMMIT after a nested block comment', 'select 1 as n /* a /* b */ c */ commit'],
    ['a COMMIT after a string with a doubled quote', "select 'it''s' as n; commit"],
    ['a COMMIT after a double-quoted name with a doubled quote', 'select 1 as "a""b"; commit'],
    ['EXEC in any case, followed by a parenthesis', "select 1 as n; ExEc('delete from t')"],
    ['BEGIN TRAN split by a comment', 'begin/* x */tran; select 1 as n'],
  ])('refuses %s', (_, sql) => {
    expect(() => refuseTransactionControl(sql)).toThrow(/is refused/);
  });

  it.each([
    ['keywords inside strings', "select 'commit; exec x; begin tran' as n"],
    ['keywords inside quoted names', 'select 1 as [commit], 2 as "rollback"'],
    ['keywords inside comments', 'select 1 as n -- commit\n/* exec /* nested */ rollback */'],
    [
      'names that only contain a keyword',
      'select committed, rollback_count, sp_executesql_calls, @exec from t',
    ],
    ['BEGIN … END blocks and TRY', 'begin try select 1 as n end try begin catch select 0 as n end catch'],
  ])('lets through %s', (_, sql) => {
    expect(() => refuseTransactionControl(sql)).not.toThrow();
  });
});

describe('the one-query check of Oracle and Snowflake', () => {
  it('reads the first words after comments, parentheses and whitespace', () => {
    expect(leadingWords('  -- note\n /* x */ ((WITH t AS (select 1', 3)).toEqual(['WITH', 'T', 'AS']);
  });

  it.each([
    'select 1 from dual',
    ' (select 1 from dual)',
    'WITH t AS (SELECT 1 n FROM dual) SELECT n FROM t',
  ])('accepts %j', (sql) => {
    expect(() => requireQuery(sql, 'Oracle')).not.toThrow();
    expect(() => requireQuery(sql, 'Snowflake')).not.toThrow();
  });

  it.each([
    ['update t set x = 1', /starts with UPDATE/],
    ['merge into t using s on (1 = 1) when matched then delete', /starts with MERGE/],
    ['declare n number; begin null; end;', /starts with DECLARE/],
    ['', /starts with nothing/],
    ['with procedure p is begin null; end; select 1 from dual', /WITH PROCEDURE/],
  ])('refuses %j on Oracle', (sql, message) => {
    expect(() => requireQuery(sql, 'Oracle')).toThrow(message);
  });
});

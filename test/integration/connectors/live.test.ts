/**
 * Live checks against real servers, run when their connection is given in the environment:
 * MSSQL_CONN_STRING, ORACLE_CONN_STRING, SNOWFLAKE_CONN_STRING (connection strings) and
 * FABRIC_CONFIG (JSON: {server, database, tenant_id, client_id, client_secret}).
 */
import { describe, expect, it } from 'vitest';
import { type ConnectorType, openSource } from '../../../lib/connectors/index';
import { UpstreamError } from '../../../lib/shared/errors';

interface LiveCase {
  type: ConnectorType;
  variable: string;
  configuration: () => unknown;
  /** 2,500 rows with one numeric column n. */
  rowsSql: string;
  badSql: string;
  badMessage: RegExp;
  /** A write the adapter refuses before sending it. */
  writeSql: string;
  writeRefused: RegExp;
  /** SQL Server: a batch that creates a temp table, and one that tells (n = 1) whether it survived. */
  rollbackProbe?: { write: string; check: string };
}

const sqlServerProbe = {
  write: 'create table #ro_probe (n int); insert into #ro_probe values (1); select n from #ro_probe',
  check: "select case when object_id('tempdb..#ro_probe') is null then 0 else 1 end as n",
};

const sqlServerRows =
  'select top 2500 row_number() over (order by (select null)) as n from sys.all_objects a cross join sys.all_objects b';

const cases: LiveCase[] = [
  {
    type: 'mssql',
    variable: 'MSSQL_CONN_STRING',
    configuration: () => ({ conn_string: process.env.MSSQL_CONN_STRING }),
    rowsSql: sqlServerRows,
    badSql: 'select * from no_such_table_here',
    badMessage: /Invalid object name 'no_such_table_here'/,
    writeSql: 'commit; select 1 as n',
    writeRefused: /COMMIT is refused/,
    rollbackProbe: sqlServerProbe,
  },
  {
    type: 'oracle',
    variable: 'ORACLE_CONN_STRING',
    configuration: () => ({ conn_string: process.env.ORACLE_CONN_STRING }),
    rowsSql: 'select level as n from dual connect by level <= 2500',
    badSql: 'select * from no_such_table_here',
    badMessage: /ORA-00942/,
    writeSql: 'delete from no_such_table_here',
    writeRefused: /must be one SELECT/,
  },
  {
    type: 'snowflake',
    variable: 'SNOWFLAKE_CONN_STRING',
    configuration: () => ({ conn_string: process.env.SNOWFLAKE_CONN_STRING }),
    rowsSql: 'select seq4() + 1 as n from table(generator(rowcount => 2500))',
    badSql: 'select * from no_such_table_here',
    badMessage: /does not exist or not authorized/,
    writeSql: 'delete from no_such_table_here',
    writeRefused: /must be one SELECT/,
  },
  {
    type: 'fabric',
    variable: 'FABRIC_CONFIG',
    configuration: () => JSON.parse(process.env.FABRIC_CONFIG ?? '{}'),
    rowsSql: sqlServerRows,
    badSql: 'select * from no_such_table_here',
    badMessage: /Invalid object name 'no_such_table_here'/,
    writeSql: "exec('select 1 as n')",
    writeRefused: /EXECUTE .* is refused/,
  },
];

const missing = cases.filter((c) => !process.env[c.variable]).map((c) => c.variable);
if (missing.length) console.info(`live connector tests skipped: set ${missing.join(', ')} to run them`);

for (const c of cases) {
  const configured = Boolean(process.env[c.variable]);
  describe.skipIf(!configured)(`the ${c.type} connector on a live server (set ${c.variable} to run)`, () => {
    const open = () => openSource(c.type, c.configuration(), { timeoutMs: 30_000, queryTimeoutMs: 60_000 });

    it('passes the connection test', async () => {
      const src = open();
      await expect(src.test()).resolves.toBeUndefined();
      await src.close();
    });

    it('previews 10 rows and names the column', async () => {
      const src = open();
      const result = await src.preview(c.rowsSql);
      await src.close();
      expect(result.rows).toHaveLength(10);
      expect(result.columns.map((col) => col.name.toLowerCase())).toEqual(['n']);
    });

    it('streams 2,500 rows in batches of 1,000', async () => {
      const src = open();
      const sizes: number[] = [];
      for await (const batch of src.stream(c.rowsSql, { batchSize: 1_000 })) sizes.push(batch.length);
      await src.close();
      expect(sizes).toEqual([1_000, 1_000, 500]);
    });

    it('reports bad SQL with the database message', async () => {
      const src = open();
      const err = await src.preview(c.badSql).catch((e) => e);
      await src.close();
      expect(err).toBeInstanceOf(UpstreamError);
      expect(err.message).toMatch(c.badMessage);
    });

    it('refuses a write before sending it', async () => {
      const src = open();
      const err = await src.preview(c.writeSql).catch((e) => e);
      await src.close();
      expect(err).toBeInstanceOf(UpstreamError);
      expect(err.message).toMatch(c.writeRefused);
    });

    // Only SQL Server has a rollback probe (one batch that writes a temp table and answers): no such test elsewhere.
    const probe = c.rollbackProbe;
    if (probe)
      it('rolls back what a query wrote', async () => {
        const src = open();
        const written = await src.preview(probe.write);
        const after = await src.preview(probe.check);
        await src.close();
        expect(written.rows).toEqual([{ n: 1 }]);
        expect(after.rows).toEqual([{ n: 0 }]);
      });
  });
}

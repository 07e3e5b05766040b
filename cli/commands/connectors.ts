/** connectors: source database connections (admin only); secrets are never shown. */
import type { Command } from 'commander';
import { type Ctx, context, readJsonObject } from '../context';
import { CliError, ExitCode } from '../errors';
import { group } from '../help';
import { seg } from '../http-client';
import { type Column, col } from '../output';

const base = '/api/v1/connectors';

const columns: Column<any>[] = [
  col('name', 'name', 30),
  col('type', 'type'),
  col('status', 'status'),
  { header: 'last test', value: (c) => c.lastTestedAt ?? c.lastTest?.at ?? '' },
  col('description', 'description', 50),
];

function one({ out }: Ctx, c: any, heading?: string): void {
  out.result(c, () => {
    if (heading) out.line(heading);
    out.record(c);
  });
}

export function registerConnectors(program: Command): void {
  const connectors = group(program, 'connectors', 'connections to source databases (admin only)', [
    'connectors list',
    'connectors create --file connector.json   # {"name","type","description","configuration":{"conn_string":"…"}}',
    'connectors test demo_pgsql',
  ]);

  connectors
    .command('list')
    .description('every connector; connection strings masked')
    .action(async (_o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const rows = await api.get<any[]>(base);
      out.result(rows, () => out.table(rows, columns, 'No connectors.'));
    });

  connectors
    .command('get')
    .description('one connector by name (configuration masked)')
    .argument('<name>', 'connector name')
    .action(async (name: string, _o: unknown, cmd: Command) => {
      const ctx = context(cmd);
      one(ctx, await ctx.api.get(`${base}/${seg(name)}`));
    });

  connectors
    .command('test')
    .description('test connectivity now; exit code 1 when the test fails')
    .argument('<name>', 'connector name')
    .action(async (name: string, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      out.notice(`Testing connector ${name}…`);
      const r = await api.post(`${base}/${seg(name)}/test`);
      const failed = r?.ok === false || r?.success === false || r?.status === 'failed';
      out.result(r, () => {
        const message = r?.message ?? r?.error ?? '';
        out.line(
          `Connector ${name}: ${failed ? 'test failed' : 'test succeeded'}${message ? `: ${message}` : '.'}`,
        );
      });
      if (failed) throw new CliError(`The test of connector ${name} failed.`, ExitCode.failure);
    });

  connectors
    .command('create')
    .description('create a connector: {name, type, description?, configuration}')
    .requiredOption('--file <path>', 'JSON body, or - for standard input')
    .action(async (o: { file: string }, cmd: Command) => {
      const ctx = context(cmd);
      const c = await ctx.api.post(base, { body: await readJsonObject(o.file) });
      one(ctx, c, `Created connector ${c?.name ?? ''}.`);
    });

  connectors
    .command('update')
    .description('update a connector (configuration replaced when given)')
    .argument('<name>', 'connector name')
    .requiredOption('--file <path>', 'JSON body, or - for standard input')
    .action(async (name: string, o: { file: string }, cmd: Command) => {
      const ctx = context(cmd);
      const c = await ctx.api.put(`${base}/${seg(name)}`, { body: await readJsonObject(o.file) });
      one(ctx, c, `Updated connector ${name}.`);
    });

  connectors
    .command('delete')
    .description('delete a connector')
    .argument('<name>', 'connector name')
    .action(async (name: string, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      await api.delete(`${base}/${seg(name)}`);
      out.result({ deleted: true, name }, () => out.line(`Deleted connector ${name}.`));
    });
}

/** dataviews: definitions (JSON or YAML), their lifecycle (deploy, enable, ...), status and categories; jobs in dataview-jobs.ts. */
import type { Command } from 'commander';
import { type Ctx, context, readDefinition } from '../context';
import { type DataViewRef, dataViewRef, refLabel, resolveDataViewId } from '../dataview-ref';
import { group } from '../help';
import { type Column, col } from '../output';
import { registerDataViewContributions } from './dataview-contributions';
import { registerDataViewJobs } from './dataview-jobs';
import { registerDataViewReplay } from './dataview-replay';

const base = '/api/v1/dataviews';

const columns: Column<any>[] = [
  col('id', 'id'),
  col('domain', 'domain', 25),
  col('name', 'name', 35),
  col('state', 'state'),
  col('connector', 'connector', 20),
  col('tags', 'tags', 30),
  col('updated', 'updatedAt'),
];

function summary({ out }: Ctx, dv: any, heading: string): void {
  out.result(dv, () => {
    out.line(heading);
    out.record(dv, [
      ['id', dv.id],
      ['data view', `${dv.domain ?? dv.metadata?.domain}/${dv.name ?? dv.metadata?.name}`],
      ['state', dv.state],
      ['deployed at', dv.deployedAt],
    ]);
  });
}

/** A lifecycle action: POST /{id}/<action>, answered with the summary. */
function lifecycle(dataviews: Command, name: string, description: string, done: string): void {
  dataviews
    .command(name)
    .description(description)
    .argument('<dataview>', 'id or domain/name', dataViewRef)
    .action(async (ref: DataViewRef, _o: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const id = await resolveDataViewId(ctx.api, ref);
      if (name === 'deploy') ctx.out.notice(`Deploying data view ${refLabel(ref)}…`);
      summary(ctx, await ctx.api.post(`${base}/${id}/${name}`), `${done} data view ${refLabel(ref)}.`);
    });
}

export function registerDataViews(program: Command): void {
  const dataviews = group(
    program,
    'dataviews',
    'data views: definitions, deployment, jobs; <dataview> is an id or domain/name',
    [
      'dataviews list --domain retail --tag demo',
      'dataviews get retail/retail_sales > retail.yaml',
      'dataviews update retail/retail_sales --file retail.yaml',
      'dataviews deploy 4 && service-cli dataviews enable 4',
      'dataviews jobs-load retail/retail_sales --wait',
      'dataviews replay retail/retail_sales --file retail.yaml',
      "dataviews contributions demo/store_sales --categories 'country=Austria' --from 2026-10-05 --to 2026-10-11",
    ],
  );

  dataviews
    .command('list')
    .description('data views you can see, optionally filtered')
    .option('--tag <tag>', 'only views with this tag')
    .option('--domain <domain>', 'only views of this domain')
    .option('--name <text>', 'only views whose name contains this text')
    .action(async (o: { tag?: string; domain?: string; name?: string }, cmd: Command) => {
      const { api, out } = context(cmd);
      const rows = await api.get<any[]>(base, { query: { tag: o.tag, domain: o.domain, name: o.name } });
      out.result(rows, () => out.table(rows, columns, 'No data views.'));
    });

  dataviews
    .command('list-lite')
    .description('short list: id, domain, name, state')
    .action(async (_o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const rows = await api.get<any[]>(`${base}/lite`);
      out.result(rows, () =>
        out.table(
          rows,
          [col('id', 'id'), col('domain', 'domain'), col('name', 'name'), col('state', 'state')],
          'No data views.',
        ),
      );
    });

  dataviews
    .command('get')
    .description('the definition: YAML (ready for update --file), or Fact JSON with --json')
    .argument('<dataview>', 'id or domain/name', dataViewRef)
    .action(async (ref: DataViewRef, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const id = await resolveDataViewId(api, ref);
      if (out.json) out.result(await api.get(`${base}/${id}`), () => {});
      else out.raw(String(await api.get(`${base}/${id}`, { accept: 'application/yaml' })));
    });

  dataviews
    .command('status')
    .description('processing status: state, tables, row counts, active and last job')
    .argument('<dataview>', 'id or domain/name', dataViewRef)
    .action(async (ref: DataViewRef, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const s = await api.get(`${base}/${await resolveDataViewId(api, ref)}/status`);
      out.result(s, () => {
        const job = s.lastJob;
        out.record(s, [
          ['id', s.id],
          ['data view', `${s.domain}/${s.name}`],
          ['state', s.state],
          ['deployed at', s.deployedAt],
          ['schema', s.schemaName],
          ['tables', s.tables],
          ['row counts', s.rowCounts],
          ['active jobs', s.activeJobs],
          [
            'last job',
            job
              ? `${job.id} ${job.kind} ${job.status} (${job.finishedAt ?? job.startedAt ?? job.createdAt})`
              : 'none',
          ],
          ...(job?.error ? ([['last error', job.error]] as Array<[string, unknown]>) : []),
        ]);
      });
    });

  dataviews
    .command('create')
    .description('create a data view from a YAML document or Fact JSON (admin; blocked at the licence limit)')
    .requiredOption('--file <path>', 'definition (.yaml, .yml or .json), or - for standard input')
    .action(async (o: { file: string }, cmd: Command) => {
      const ctx = context(cmd);
      const dv = await ctx.api.post(base, await readDefinition(o.file));
      summary(ctx, dv, `Created data view ${dv.id} (${dv.metadata?.domain}/${dv.metadata?.name}).`);
    });

  dataviews
    .command('update')
    .description('replace the definition (admin); name, domain and categories are locked while deployed')
    .argument('<dataview>', 'id or domain/name', dataViewRef)
    .requiredOption('--file <path>', 'definition (.yaml, .yml or .json), or - for standard input')
    .action(async (ref: DataViewRef, o: { file: string }, cmd: Command) => {
      const ctx = context(cmd);
      const id = await resolveDataViewId(ctx.api, ref);
      const dv = await ctx.api.put(`${base}/${id}`, await readDefinition(o.file));
      summary(ctx, dv, `Updated data view ${refLabel(ref)}.`);
    });

  dataviews
    .command('delete')
    .description('delete a prepared data view (admin; undeploy a deployed one first)')
    .argument('<dataview>', 'id or domain/name', dataViewRef)
    .action(async (ref: DataViewRef, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const id = await resolveDataViewId(api, ref);
      await api.delete(`${base}/${id}`);
      out.result({ deleted: true, id }, () => out.line(`Deleted data view ${refLabel(ref)}.`));
    });

  lifecycle(
    dataviews,
    'deploy',
    'validate and create the tables (admin); the view becomes disabled',
    'Deployed',
  );
  lifecycle(dataviews, 'undeploy', 'delete the deployment: drop tables, data and jobs (admin)', 'Undeployed');
  lifecycle(dataviews, 'clean', 'empty the data tables and remove the jobs; tables stay (admin)', 'Cleaned');
  lifecycle(dataviews, 'enable', 'enable a deployed view: loads and analytics may run (admin)', 'Enabled');
  lifecycle(dataviews, 'disable', 'disable a deployed view (admin)', 'Disabled');

  dataviews
    .command('categories')
    .description('categories with label, parent and (once deployed) their values (admin)')
    .argument('<dataview>', 'id or domain/name', dataViewRef)
    .action(async (ref: DataViewRef, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const rows = await api.get<any[]>(`${base}/${await resolveDataViewId(api, ref)}/categories`);
      out.result(rows, () =>
        out.table(
          rows,
          [
            col('name', 'name'),
            col('label', 'label'),
            col('parent', 'parent'),
            { header: 'values', value: (c) => `${c.values.length}${c.valuesTruncated ? '+' : ''}` },
            col('examples', 'values', 60),
          ],
          'No categories.',
        ),
      );
    });

  registerDataViewJobs(dataviews);
  registerDataViewReplay(dataviews);
  registerDataViewContributions(dataviews);
}

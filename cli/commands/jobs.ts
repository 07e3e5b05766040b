/** jobs: job lists, one job's status (optionally followed to its end), and the monitoring overview. */
import { type Command, Option } from 'commander';
import { context, positiveInt, seconds } from '../context';
import { dataViewRef, type DataViewRef, resolveDataViewId } from '../dataview-ref';
import { group } from '../help';
import { type Column, col } from '../output';
import { followJob, jobOf, type WaitOptions } from '../wait';

const jobColumns: Column<any>[] = [
  col('id', 'id'),
  col('data view', 'dataView', 35),
  col('kind', 'kind'),
  col('status', 'status'),
  col('trigger', 'trigger'),
  col('created', 'createdAt'),
  col('finished', 'finishedAt'),
  col('error', 'error', 50),
];

const waitOptions = (cmd: Command) =>
  cmd
    .option('--wait', 'follow the job to its end; exit code 7 when it fails')
    .addOption(
      new Option('--timeout <seconds>', 'with --wait: give up after this long (0: never)')
        .argParser(seconds)
        .default(0),
    )
    .addOption(
      new Option('--interval <seconds>', 'with --wait: seconds between status checks')
        .argParser(seconds)
        .default(2),
    );

interface ListOptions {
  dataview?: DataViewRef;
  status?: string;
  kind?: string;
  limit?: number;
}

/** The newest job of a kind in a few characters: "finished", "running 3/8 shards", "failed". */
function kindText(job: any): string {
  if (!job) return '';
  const p = job.progress;
  return p && job.status === 'running' ? `running ${p.done}/${p.total} ${p.unit}` : String(job.status);
}

export function registerJobs(program: Command): void {
  const jobs = group(
    program,
    'jobs',
    'load and analytics jobs (start them with the dataviews jobs-* commands)',
    [
      'jobs list --dataview retail/retail_sales --status failed',
      'jobs get 42 --wait --timeout 600',
      'jobs monitoring',
    ],
  );

  jobs
    .command('list')
    .description('jobs, newest first')
    .option('--dataview <dataview>', 'only jobs of this data view (id or domain/name)', dataViewRef)
    .addOption(
      new Option('--status <status>', 'only jobs in this status').choices([
        'pending',
        'running',
        'failed',
        'finished',
      ]),
    )
    .addOption(
      new Option('--kind <kind>', 'only jobs of this kind').choices(['Load', 'Process', 'CustomLoad']),
    )
    .option('--limit <n>', 'at most this many (≤ 1000)', positiveInt)
    .action(async (o: ListOptions, cmd: Command) => {
      const { api, out } = context(cmd);
      const dataViewId = o.dataview ? await resolveDataViewId(api, o.dataview) : undefined;
      const rows = await api.get<any[]>('/api/v1/jobs', {
        query: { dataViewId, status: o.status, kind: o.kind, limit: o.limit },
      });
      out.result(rows, () => out.table(rows, jobColumns, 'No jobs.'));
    });

  waitOptions(
    jobs
      .command('get')
      .description("a job's kind, status, times and error")
      .argument('<id>', 'job id', positiveInt),
  ).action(async (id: number, o: WaitOptions & { wait?: boolean }, cmd: Command) => {
    const { api, out } = context(cmd);
    const job = o.wait ? await followJob(api, out, id, o) : jobOf(await api.get(`/api/v1/jobs/${id}`));
    out.result(job, () => out.record(job));
  });

  jobs
    .command('monitoring')
    .description(
      'per data view: last import, series range, series, anomalies, job counts and the newest load and detection (with progress), with totals',
    )
    .argument('[dataview]', 'only this data view (id or domain/name)', dataViewRef)
    .action(async (ref: DataViewRef | undefined, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const path = ref ? `/api/v1/monitoring/${await resolveDataViewId(api, ref)}` : '/api/v1/monitoring';
      const m = await api.get(path);
      out.result(m, () => {
        out.table(
          m.dataViews ?? [],
          [
            col('id', 'dataViewId'),
            col('data view', 'dataView', 35),
            col('state', 'state'),
            col('last import', 'lastDataImport'),
            {
              header: 'series range',
              value: (r) => (r.seriesStart ? `${r.seriesStart}..${r.seriesEnd}` : ''),
            },
            col('series', 'series'),
            col('anomalies', 'anomalies'),
            col('pending', 'pending'),
            col('running', 'running'),
            col('failed', 'failed'),
            { header: 'last load', value: (r) => kindText(r.jobsByKind?.load) },
            { header: 'last detection', value: (r) => kindText(r.jobsByKind?.process) },
          ],
          'No data views.',
        );
        if (m.totals)
          out.line(
            `\nTotals: ${Object.entries(m.totals)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')}`,
          );
      });
    });
}

/** The job commands of `dataviews`: enqueue a load, an analytics run or a custom load (optionally following it), clear the queue. */
import { type Command, Option } from 'commander';
import { type Ctx, context, seconds } from '../context';
import { type DataViewRef, dataViewRef, refLabel, resolveDataViewId } from '../dataview-ref';
import { seg } from '../http-client';
import { followJob, jobIdOf, jobOf, type WaitOptions } from '../wait';

const kinds = [
  ['jobs-load', 'load', 'enqueue the normal load with the main query (deployed and enabled views)'],
  ['jobs-process', 'process', 'enqueue the detection analytics (deployed and enabled views)'],
  [
    'jobs-custom-load',
    'custom-load',
    'enqueue a load with the custom load query (deployed views that have one)',
  ],
] as const;

interface JobOptions extends WaitOptions {
  wait?: boolean;
}

/** By id: /dataviews/{id}/jobs/<kind>; by domain/name: the orchestration alias /jobs/{domain}/{name}/<kind>. */
function enqueuePath(ref: DataViewRef, kind: string): string {
  if ('id' in ref) return `/api/v1/dataviews/${ref.id}/jobs/${kind}`;
  return `/api/v1/jobs/${seg(ref.domain)}/${seg(ref.name)}/${kind}`;
}

function warningsOf(answer: any): string[] {
  const list = [answer?.warning, answer?.licenseWarning, ...(answer?.warnings ?? [])];
  return list.filter((w): w is string => typeof w === 'string' && w !== '');
}

async function enqueue({ api, out }: Ctx, ref: DataViewRef, kind: string, opts: JobOptions): Promise<void> {
  const answer = await api.post(enqueuePath(ref, kind));
  const job = jobOf(answer);
  const id = jobIdOf(answer);
  for (const w of warningsOf(answer)) out.notice(`Warning: ${w}`);
  if (!opts.wait || id === undefined) {
    out.result(answer, () =>
      out.line(
        `Queued ${job?.kind ?? kind} job ${id ?? '?'} for data view ${refLabel(ref)} (${job?.status ?? 'pending'}).`,
      ),
    );
    return;
  }
  out.notice(`Queued ${job?.kind ?? kind} job ${id} for data view ${refLabel(ref)}; waiting for it to end…`);
  const done = await followJob(api, out, id, opts);
  out.result(done, () => out.line(`Job ${id} finished.`));
}

export function registerDataViewJobs(dataviews: Command): void {
  for (const [name, kind, description] of kinds) {
    dataviews
      .command(name)
      .description(description)
      .argument('<dataview>', 'id or domain/name', dataViewRef)
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
      )
      .action((ref: DataViewRef, o: JobOptions, cmd: Command) => enqueue(context(cmd), ref, kind, o));
  }

  dataviews
    .command('jobs-clear')
    .description('remove every queued (pending) job of a view (admin); fails when none are queued')
    .argument('<dataview>', 'id or domain/name', dataViewRef)
    .action(async (ref: DataViewRef, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const id = await resolveDataViewId(api, ref);
      const answer = await api.post(`/api/v1/dataviews/${id}/jobs/clear`);
      const n = answer?.removed ?? answer?.cleared ?? answer?.deleted ?? answer?.count;
      out.result(answer ?? { cleared: true, id }, () =>
        out.line(`Removed ${n ?? 'the'} queued job${n === 1 ? '' : 's'} of data view ${refLabel(ref)}.`),
      );
    });
}

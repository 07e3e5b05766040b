/** `dataviews replay`: what a changed definition (a file, not saved) would do to a deployed view's anomalies. */
import { type Command, Option } from 'commander';
import { context, readDefinition, seconds } from '../context';
import { type DataViewRef, dataViewRef, refLabel, resolveDataViewId } from '../dataview-ref';
import { type Column, col } from '../output';
import { followJob, jobIdOf, type WaitOptions } from '../wait';

const categories = (r: any) =>
  Object.entries(r.categories ?? {})
    .map(([k, v]) => `${k}=${v ?? 'all'}`)
    .join(', ') || 'total';

const rowColumns: Column<any>[] = [
  { header: 'change', value: (r) => r.change },
  { header: 'series', value: categories },
  col('measure', 'measure'),
  col('type', 'type'),
  col('start', 'startDate'),
  col('end', 'endDate'),
  col('actual', 'actualValue'),
  col('expected', 'predictedValue'),
  col('change %', 'changePct'),
  col('result', 'result'),
];

/** A replayed incident of a split or merge: the stored incidents it shares records with. */
const storedIdText = (r: any) =>
  r.storedIds
    ? `${r.storedId ?? 'new'} (shares ${r.storedIds.map((id: number) => `#${id}`).join(' ') || 'none'})`
    : (r.storedId ?? '');

const incidentColumns: Column<any>[] = [
  { header: 'incident', value: (r) => r.change },
  { header: 'stored id', value: storedIdText },
  { header: 'head series', value: (r) => categories(r.head) },
  { header: 'measures', value: (r) => r.measures.join(', ') },
  { header: 'types', value: (r) => r.types.join(', ') },
  col('start', 'startDate'),
  col('end', 'endDate'),
  col('records', 'size'),
  col('result', 'result'),
];

const byTypeColumns: Column<any>[] = [
  col('type', 'type'),
  col('measure', 'measure'),
  col('now', 'before'),
  col('after', 'after'),
  col('added', 'added'),
  col('removed', 'removed'),
  col('changed', 'changed'),
];

/** The incident counts, split and merged among them when the service tells them apart. */
function incidentCounts(i: any): string {
  const regrouped = i.split === undefined ? '' : `${i.split} split, ${i.merged} merged, `;
  const other = i.regrouped ? `${i.regrouped} regrouped, ` : '';
  return `${i.added} added, ${i.removed} removed, ${i.changed} changed, ${regrouped}${other}${i.unchanged} unchanged (${i.before} now, ${i.after} after)`;
}

/** A split or merge as rows: the stored incidents (was), then the replayed ones (now) with the stored ids they share records with. */
function regroupedRows(list: any[]): any[] {
  return list.flatMap((g) => [
    ...g.before.map((x: any) => ({ ...x, change: `${g.kind}: was` })),
    ...g.after.map((x: any) => ({ ...x, change: `${g.kind}: now` })),
  ]);
}

export function registerDataViewReplay(dataviews: Command): void {
  dataviews
    .command('replay')
    .description(
      'replay a changed definition over the loaded history without saving it (admin): the anomalies it would add, remove and change',
    )
    .argument('<dataview>', 'id or domain/name of a deployed view', dataViewRef)
    .requiredOption('--file <path>', 'the changed definition (.yaml, .yml or .json), or - for standard input')
    .addOption(
      new Option('--timeout <seconds>', 'give up waiting after this long (0: never)')
        .argParser(seconds)
        .default(0),
    )
    .addOption(
      new Option('--interval <seconds>', 'seconds between status checks').argParser(seconds).default(2),
    )
    .action(async (ref: DataViewRef, o: WaitOptions & { file: string }, cmd: Command) => {
      const { api, out } = context(cmd);
      const id = await resolveDataViewId(api, ref);
      const queued = await api.post(`/api/v1/dataviews/${id}/replay`, await readDefinition(o.file));
      const jobId = jobIdOf(queued) as number;
      out.notice(`Replaying the changed definition of ${refLabel(ref)} (job ${jobId})…`);
      await followJob(api, out, jobId, o);
      const answer = await api.get<any>(`/api/v1/dataviews/${id}/replay/${jobId}`);
      const r = answer.result;
      out.result(answer, () => {
        const c = r.counts;
        out.line(
          `${refLabel(ref)}: ${c.added} added, ${c.removed} removed, ${c.changed} changed, ${c.unchanged} unchanged (${c.before} anomalies now, ${c.after} after).`,
        );
        // A service from before incidents were regrouped answers no incident counts.
        const inc = r.incidents?.counts ? r.incidents : { added: [], removed: [], changed: [] };
        const i = r.incidents?.counts;
        if (i) out.line(`Incidents: ${incidentCounts(i)}.`);
        out.line();
        out.table(r.byType, byTypeColumns, 'No anomalies before or after.');
        const incidents = [
          ...inc.added.map((x: any) => ({ ...x, change: 'added' })),
          ...inc.removed.map((x: any) => ({ ...x, change: 'removed' })),
          ...inc.changed.map((x: any) => ({
            ...x.after,
            change: `changed (+${x.joined} −${x.left})`,
          })),
          ...regroupedRows(inc.regrouped ?? []),
        ];
        if (incidents.length > 0) {
          out.line();
          out.table(incidents, incidentColumns, '');
        }
        const rows = [
          ...r.added.map((x: any) => ({ ...x, change: 'added' })),
          ...r.removed.map((x: any) => ({ ...x, change: 'removed' })),
          ...r.changed.map((x: any) => ({ ...x.after, change: 'changed' })),
        ];
        if (rows.length > 0) {
          out.line();
          out.table(rows, rowColumns, '');
        }
        if (r.truncated) out.line(`(at most ${r.rowLimit} rows of each kind shown; the counts are whole)`);
      });
    });
}

/** feedback: mark anomaly records confirmed, expected or not an anomaly (docs/feedback.md). */
import { type Command, Option } from 'commander';
import { type Ctx, context, isoDate, positiveInt } from '../context';
import { group } from '../help';
import { CliError } from '../errors';
import { type Column, col } from '../output';

const base = '/api/v1/anomalies/feedback';
const STATUSES = ['confirmed', 'expected', 'not-anomaly'];

const columns: Column<any>[] = [
  col('id', 'id'),
  col('data view', 'dataViewId'),
  col('series', 'seriesId'),
  col('measure', 'measure'),
  col('type', 'type'),
  col('from', 'startDate'),
  col('to', 'endDate'),
  col('status', 'status'),
  col('author', 'email', 30),
  col('note', 'note', 50),
];

function one({ out }: Ctx, f: any, heading?: string): void {
  out.result(f, () => {
    if (heading) out.line(heading);
    out.record(f, [
      ['id', f.id],
      ['data view', f.dataViewId],
      ['series', f.seriesId],
      ['measure', f.measure],
      ['type', f.type],
      ['window', `${f.startDate} .. ${f.endDate}`],
      ['status', f.status],
      ['note', f.note],
      ['author', f.email],
      ['updated', f.updatedAt],
    ]);
  });
}

export function registerFeedback(program: Command): void {
  const feedback = group(
    program,
    'feedback',
    'mark anomaly records confirmed, expected or not an anomaly (kept across re-detection)',
    [
      'feedback set --dataview-id 4 --series-id 17 --type DOD --start-date 2025-03-02 --status expected --note "Promotion"',
      'feedback incident --dataview-id 4 --incident-id 12 --status not-anomaly --note "Test traffic"',
      'feedback list --dataview-id 4 --status not-anomaly',
    ],
  );

  feedback
    .command('list')
    .description('feedback on the data views you can read')
    .option('--dataview-id <id>', 'only this data view', positiveInt)
    .option('--series-id <id>', 'only this series', positiveInt)
    .addOption(new Option('--status <status>', 'only this status').choices(STATUSES))
    .action(async (o: { dataviewId?: number; seriesId?: number; status?: string }, cmd: Command) => {
      const ctx = context(cmd);
      const rows = await ctx.api.get(base, {
        query: { dataViewId: o.dataviewId, seriesId: o.seriesId, status: o.status },
      });
      ctx.out.result(rows, () => ctx.out.table(rows, columns, 'No feedback.'));
    });

  feedback
    .command('get')
    .description('one feedback')
    .argument('<id>', 'feedback id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const ctx = context(cmd);
      one(ctx, await ctx.api.get(`${base}/${id}`));
    });

  feedback
    .command('set')
    .description("give or change the feedback on a record, named by its key (the record's fields)")
    .requiredOption('--dataview-id <id>', 'the record dataViewId', positiveInt)
    .requiredOption('--series-id <id>', 'the record seriesId', positiveInt)
    .requiredOption('--type <type>', 'the record type (e.g. DOD)')
    .requiredOption('--start-date <date>', 'the record startDate, yyyy-MM-dd', isoDate)
    .addOption(
      new Option('--measure <measure>', 'the record measure')
        .choices(['value', 'count', 'ratio'])
        .default('value'),
    )
    .addOption(new Option('--status <status>', 'the feedback').choices(STATUSES).makeOptionMandatory())
    .option('--note <text>', 'optional note')
    .action(
      async (
        o: {
          dataviewId: number;
          seriesId: number;
          type: string;
          startDate: string;
          measure: string;
          status: string;
          note?: string;
        },
        cmd: Command,
      ) => {
        const ctx = context(cmd);
        const saved = await ctx.api.put(base, {
          body: {
            dataViewId: o.dataviewId,
            seriesId: o.seriesId,
            measure: o.measure,
            type: o.type,
            startDate: o.startDate,
            status: o.status,
            note: o.note ?? '',
          },
        });
        one(ctx, saved, `Feedback ${saved.id}: ${saved.status}.`);
      },
    );

  feedback
    .command('incident')
    .description(
      'give or change the feedback on a whole incident: stored on every member record (every series, measure and level of the event); --remove takes it off',
    )
    .requiredOption('--dataview-id <id>', 'the data view', positiveInt)
    .requiredOption('--incident-id <id>', "the incident's id (a record's incidentId)", positiveInt)
    .addOption(new Option('--status <status>', 'the feedback').choices(STATUSES))
    .option('--note <text>', 'optional note')
    .option('--remove', 'remove the feedback given on the incident from every member')
    .action(
      async (
        o: { dataviewId: number; incidentId: number; status?: string; note?: string; remove?: boolean },
        cmd: Command,
      ) => {
        const ctx = context(cmd);
        if (o.remove) {
          await ctx.api.delete(`${base}/incident/${o.dataviewId}/${o.incidentId}`);
          ctx.out.result({ deleted: true, incidentId: o.incidentId }, () =>
            ctx.out.line(`Removed the feedback on incident ${o.incidentId}.`),
          );
          return;
        }
        if (!o.status) throw CliError.usage('Give --status (or --remove).');
        const saved = await ctx.api.put(`${base}/incident`, {
          body: { dataViewId: o.dataviewId, incidentId: o.incidentId, status: o.status, note: o.note ?? '' },
        });
        ctx.out.result(saved, () => {
          ctx.out.line(
            `Incident ${saved.incidentId}: ${saved.status} on ${saved.members.length} member record(s).`,
          );
          ctx.out.table(saved.members, columns, 'No members.');
        });
      },
    );

  feedback
    .command('delete')
    .description('remove a feedback (its author or an admin)')
    .argument('<id>', 'feedback id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      await api.delete(`${base}/${id}`);
      out.result({ deleted: true, id }, () => out.line(`Removed feedback ${id}.`));
    });
}

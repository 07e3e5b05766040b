/** anomalies: run a saved filter, or unsaved filter settings, and show the ranked anomalies and aggregates. */
import type { Command } from 'commander';
import { type Ctx, context, positiveInt, readJsonObject } from '../context';
import { group } from '../help';
import { type Column, cell, col } from '../output';

const pct = (v: unknown) => (typeof v === 'number' ? `${Math.round(v * 10) / 10}%` : '');

/** The type, or every type of an event (filter setting mergeEvents), the strongest first. */
const typesOf = (a: any) => (Array.isArray(a.types) && a.types.length ? a.types.join('+') : a.type);

/** A combination as `name=value, …` without the categories at "all" (`all` for the total). */
const combination = (c: Record<string, string | null> | undefined) => {
  const set = Object.entries(c ?? {}).filter(([, v]) => v !== null);
  return set.length ? set.map(([k, v]) => `${k}=${v}`).join(', ') : 'all';
};

/** An incident row's root causes, each with the share of the change it explains. */
const rootCauseOf = (a: any) =>
  (a.incident?.rootCauses ?? [])
    .map((c: any) => `${c.broad ? 'broad: ' : ''}${combination(c.categories)} (${pct(c.explainsPct)})`)
    .join(' + ');

/** One root cause with its own figures over the window and what it explains of the broad series (and why, when held at 100 % or 0). */
const causeLine = (c: any, broad: string) =>
  `  root cause: ${c.broad ? 'broad: ' : ''}${combination(c.categories)} (${pct(c.explainsPct)}): actual ${cell(c.actual)}, expected ${cell(
    c.expected,
  )}, change ${cell(c.change)} (${pct(c.changePct)}), explains ${pct(c.explainsPct)} of ${broad}${c.explainsNote ? ` (${c.explainsNote})` : ''}`;

const anomalyColumns: Column<any>[] = [
  col('start', 'startDate'),
  { header: 'type', value: typesOf },
  col('days', 'duration'),
  col('data view', 'dataView', 30),
  col('categories', 'categories', 45),
  col('actual', 'actualValue'),
  col('expected', 'predictedValue'),
  { header: 'change %', value: (a) => pct(a.changePct) },
  { header: 'share %', value: (a) => pct(a.sharePct) },
  col('rec', 'recurrence'),
  col('result', 'result'),
  { header: 'measure', value: (a) => a.measure ?? 'value' },
  col('sin', 'sin'),
  col('sim', 'sim'),
  { header: 'comments', value: (a) => a.comments?.length || '' },
];

/** Incident rows: the incident id and its root cause first. */
const incidentColumns: Column<any>[] = [
  { header: 'incident', value: (a) => a.incidentId ?? '' },
  { header: 'root cause', value: (a) => (a.incident ? rootCauseOf(a) : combination(a.categories)), max: 60 },
  ...anomalyColumns.filter((c) => c.header !== 'categories'),
];

const aggregateColumns: Column<any>[] = [
  col('start', 'startDate'),
  col('types', 'types', 30),
  col('days', 'duration'),
  col('n', 'n'),
  col('data view', 'dataView', 30),
  col('common categories', 'commonCategories', 45),
  col('different', 'differentCategories', 30),
  { header: 'change %', value: (a) => pct(a.changePct) },
  { header: 'share %', value: (a) => pct(a.sharePct) },
  col('result', 'result'),
  { header: 'measure', value: (a) => a.measure ?? 'value' },
  col('sin', 'sin'),
];

function show({ out }: Ctx, answer: any): void {
  out.result(answer, () => {
    const title = answer.filter ? `Filter ${answer.filter.id} "${answer.filter.name}"` : 'Preview';
    const tr = answer.timeRange;
    out.line(`${title}: ${tr ? `${tr.preset} (${tr.dateFrom} to ${tr.dateTo})` : ''}`.trim());
    for (const w of answer.warnings ?? []) out.notice(`Warning: ${w}`);
    if (answer.aggregates) {
      out.line(`\n${answer.aggregates.length} aggregate(s):`);
      out.table(answer.aggregates, aggregateColumns, 'No aggregates.');
    }
    const rows = answer.anomalies ?? [];
    const incidents = rows.some((a: any) => a.incident);
    out.line(
      incidents
        ? `\n${rows.length} incident(s) and event(s), one row each, named by the root cause:`
        : `\n${rows.length} anomal${rows.length === 1 ? 'y' : 'ies'}:`,
    );
    out.table(rows, incidents ? incidentColumns : anomalyColumns, 'No anomalies in this time range.');
    for (const a of rows.filter((r: any) => r.incident)) {
      const i = a.incident;
      out.line(
        `\nIncident ${i.id} (${a.dataView}), ${i.startDate} to ${i.endDate}, ${i.size} record(s), ${i.types.join('+')} on ${i.measures.join(' and ')}:`,
      );
      for (const c of i.rootCauses) out.line(causeLine(c, combination(i.broad.categories)));
      out.line(
        `  broad series (context): ${combination(i.broad.categories)}, actual ${cell(i.broad.actual)}, expected ${cell(
          i.broad.expected,
        )}, change ${cell(i.broad.change)} (${pct(i.broad.changePct)})`,
      );
      if (Array.isArray(a.members) && a.members.length) out.table(a.members, anomalyColumns, '');
    }
    const events = rows.filter((a: any) => !a.incident && Array.isArray(a.members) && a.members.length > 1);
    for (const e of events) {
      out.line(`\nEvent ${e.startDate} ${typesOf(e)} (${e.measure ?? 'value'}): ${e.members.length} records`);
      out.table(e.members, anomalyColumns, '');
    }
  });
}

interface ByFilterOptions {
  csv?: boolean;
  members?: boolean;
  offset?: string;
  pageSize?: string;
  sortBy?: string;
  order?: string;
}

export function registerAnomalies(program: Command): void {
  const anomalies = group(program, 'anomalies', 'anomalies selected, ranked and aggregated by filters', [
    'anomalies by-filter 3',
    'anomalies by-filter 3 --json > anomalies.json',
    'anomalies by-filter 3 --csv > anomalies.csv',
    'anomalies by-filter 3 --page-size 20 --offset 20 --sort-by changePct --order desc',
    'anomalies query --file settings.json   # unsaved filter settings',
    'anomalies by-filter 3 --members        # incidents and events with the records they merge',
  ]);

  anomalies
    .command('by-filter')
    .description('run a saved filter: its anomalies (and aggregates when it aggregates)')
    .argument('<id>', 'filter id', positiveInt)
    .option('--csv', 'print every anomaly as CSV (every field, categories as columns)')
    .option('--offset <n>', 'page: skip this many anomalies of the result')
    .option('--page-size <n>', 'page: at most this many anomalies (1-1000)')
    .option('--sort-by <column>', 'order by rank (default), a record field or categories.<name>')
    .option('--order <asc|desc>', 'sort direction (default asc)')
    .option('--members', 'each event or incident (filter settings mergeEvents, incidents) with its records')
    .action(async (id: number, o: ByFilterOptions, cmd: Command) => {
      const ctx = context(cmd);
      const query = {
        offset: o.offset,
        pageSize: o.pageSize,
        sortBy: o.sortBy,
        order: o.order,
        ...(o.members ? { members: 'true' } : {}),
      };
      if (o.csv) {
        const { offset: _o, pageSize: _p, ...sort } = query;
        ctx.out.raw(
          String(
            await ctx.api.get(`/api/v1/anomalies/by-filter/${id}`, {
              query: { ...sort, format: 'csv' },
              accept: 'text/csv',
            }),
          ),
        );
        return;
      }
      const answer = await ctx.api.get(`/api/v1/anomalies/by-filter/${id}`, { query });
      show(ctx, answer);
      const page = answer?.page;
      if (page && !ctx.out.json) {
        const last = Math.min(page.offset + page.pageSize, page.total);
        ctx.out.line(
          `Anomalies ${page.total ? page.offset + 1 : 0}-${last} of ${page.total} (sorted by ${page.sortBy} ${page.order}).`,
        );
      }
    });

  anomalies
    .command('query')
    .description('run filter settings without saving them (a preview)')
    .requiredOption('--file <path>', 'JSON body with filter fields, or - for standard input')
    .option('--members', 'each event (mergeEvents) with the records it merges')
    .action(async (o: { file: string; members?: boolean }, cmd: Command) => {
      const ctx = context(cmd);
      show(
        ctx,
        await ctx.api.post('/api/v1/anomalies/query', {
          body: await readJsonObject(o.file),
          ...(o.members ? { query: { members: 'true' } } : {}),
        }),
      );
    });
}

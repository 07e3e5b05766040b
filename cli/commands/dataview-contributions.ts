/** `dataviews contributions`: what drove the change of a series over a window (GET /dataviews/{id}/contributions). */
import type { Command } from 'commander';
import { context } from '../context';
import { type DataViewRef, dataViewRef, resolveDataViewId } from '../dataview-ref';
import { cell } from '../output';

interface ContributionOptions {
  categories?: string;
  from: string;
  to: string;
  measure?: string;
  weeks?: string;
  limit?: string;
}

const pct = (v: unknown) => (typeof v === 'number' ? `${Math.round(v * 10) / 10}%` : '–');
const signed = (v: number) => `${v > 0 ? '+' : ''}${cell(v)}`;

/** A combination as `name=value, …` without the categories at all (`all` for the total). */
function combination(categories: Record<string, string | null>): string {
  const set = Object.entries(categories).filter(([, v]) => v !== null);
  return set.length ? set.map(([k, v]) => `${k}=${v}`).join(', ') : 'all';
}

/** A bar of ▇ as long as the change's share of the largest change listed (at most 20). */
function bar(change: number, largest: number): string {
  if (largest <= 0) return '';
  const n = Math.max(change === 0 ? 0 : 1, Math.round((Math.abs(change) / largest) * 20));
  return (change < 0 ? '-' : '+') + '▇'.repeat(n);
}

export function registerDataViewContributions(dataviews: Command): void {
  dataviews
    .command('contributions')
    .description(
      'what drove the change of a series over a window: each category’s values by contribution, and the best explaining set',
    )
    .argument('<dataview>', 'id or domain/name', dataViewRef)
    .option('--categories <pairs>', 'the series as name=value;name=value (left out: the total)')
    .requiredOption('--from <date>', 'first day of the window (yyyy-MM-dd)')
    .requiredOption('--to <date>', 'last day of the window (yyyy-MM-dd)')
    .option('--measure <value|count|ratio>', 'the measure (default value; ratio: rate and mix effects)')
    .option('--weeks <n>', 'weeks before the window that make the expectation (default 4)')
    .option('--limit <n>', 'values per category (default 10)')
    .action(async (ref: DataViewRef, o: ContributionOptions, cmd: Command) => {
      const { api, out } = context(cmd);
      const id = await resolveDataViewId(api, ref);
      const answer = await api.get<any>(`/api/v1/dataviews/${id}/contributions`, {
        query: {
          categories: o.categories,
          from: o.from,
          to: o.to,
          measure: o.measure,
          weeks: o.weeks,
          limit: o.limit,
        },
      });
      out.result(answer, () => {
        out.line(
          `${answer.dataView}, ${combination(answer.categories)} (${answer.measure}), ${answer.from} to ${answer.to}: ` +
            `actual ${cell(answer.actual)}, expected ${cell(answer.expected)}, change ${signed(answer.change)} (${pct(answer.changePct)})`,
        );
        out.line(
          answer.baseline.source === 'anomaly'
            ? `Expected as the ${answer.baseline.anomaly.type} anomaly ${answer.baseline.anomaly.id} expected it${answer.baseline.anomaly.incidentId ? ` (incident ${answer.baseline.anomaly.incidentId})` : ''}, shared out by the leaves' last ${answer.baseline.weeks} weeks.`
            : `Expected from each leaf's weekdays in the ${answer.baseline.weeks} weeks before (${answer.baseline.from} to ${answer.baseline.to}).`,
        );
        const x = answer.explanation;
        out.line(
          x.broad
            ? '\nNo smaller set explains it: every part moved alike.'
            : `\nBest explaining set: ${x.causes.map((c: any) => `${combination(c.categories)} (${signed(c.change)}, explains ${pct(c.explainsPct)})`).join('; ')}`,
        );
        for (const d of answer.dimensions) {
          out.line(`\n${d.label || d.name}: surprise ${cell(d.surprise)} bit, ${d.count} value(s)`);
          const largest = Math.max(0, ...d.values.map((v: any) => Math.abs(v.change)));
          out.table(
            d.values,
            [
              { header: d.name, value: (v: any) => v.value, max: 30 },
              { header: 'change', value: (v: any) => signed(v.change) },
              { header: 'change %', value: (v: any) => pct(v.changePct) },
              { header: 'explains', value: (v: any) => pct(v.explainsPct) },
              { header: 'share before', value: (v: any) => pct(v.shareBefore) },
              { header: 'share during', value: (v: any) => pct(v.shareDuring) },
              { header: 'surprise', value: (v: any) => v.surprise },
              { header: '', value: (v: any) => bar(v.change, largest) },
            ],
            'No values.',
          );
        }
      });
    });
}

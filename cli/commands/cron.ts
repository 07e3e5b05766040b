/** cron: check a load schedule and preview its next runs. */
import { type Command, Option } from 'commander';
import { context, positiveInt } from '../context';
import { group } from '../help';

export function registerCron(program: Command): void {
  const cron = group(program, 'cron', 'load schedules of data views', [
    'cron validate "0 30 5 * * *"',
    'cron validate "*/15 * * * 1-5" --count 10 --time-zone Europe/Prague',
  ]);

  cron
    .command('validate')
    .description('check a cron expression (six fields from the second, or five) and list its next runs')
    .argument('<expression>', 'the schedule, quoted')
    .addOption(new Option('--count <n>', 'how many next runs to list (1-50)').argParser(positiveInt))
    .option('--time-zone <zone>', 'IANA time zone (default: the service time zone)')
    .action(async (expression: string, o: { count?: number; timeZone?: string }, cmd: Command) => {
      const { api, out } = context(cmd);
      const r = await api.post('/api/v1/cron/validate', {
        body: { expression, count: o.count, timeZone: o.timeZone },
      });
      out.result(r, () => {
        out.line(`Valid: ${r.expression} (runs as ${r.normalized} in ${r.timeZone}).`);
        out.line('Next runs:');
        for (const at of r.nextRuns) out.line(`  ${at}`);
      });
    });
}

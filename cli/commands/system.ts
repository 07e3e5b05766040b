/** system: licence usage and service health. */
import type { Command } from 'commander';
import { context } from '../context';
import { group } from '../help';

export function registerSystem(program: Command): void {
  const system = group(program, 'system', 'the service itself: licence usage and health', [
    'system license --json',
    'system health',
  ]);

  system
    .command('license')
    .description('licence plan and usage: data views allowed, existing and remaining')
    .action(async (_o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const l = await api.get('/api/v1/system/license');
      out.result(l, () =>
        out.record(l, [
          ['plan', l.plan],
          ['data views', `${l.dataViews} of ${l.maxDataViews}`],
          ['remaining', l.remaining],
        ]),
      );
    });

  system
    .command('health')
    .description('whether the service and its database answer (no sign-in needed)')
    .action(async (_o: unknown, cmd: Command) => {
      const { api, out, settings } = context(cmd);
      const h = await api.get('/api/v1/health', { auth: false });
      out.result(h, () => out.record(h, [['service', settings.url], ...Object.entries(h)]));
    });
}

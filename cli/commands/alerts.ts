/** alerts: subscribe saved filters to webhooks, Slack or e-mail; see deliveries; admins set SMTP (docs/alerts.md). */
import { type Command, Option } from 'commander';
import { type Ctx, context, positiveInt, readJsonObject } from '../context';
import { group } from '../help';
import { type Column, col } from '../output';

const base = '/api/v1/anomaly-filters';

const columns: Column<any>[] = [
  col('id', 'id'),
  col('name', 'name', 30),
  col('filter', 'filterName', 30),
  col('channel', 'channel'),
  col('target', 'target', 40),
  col('mode', 'mode'),
  col('enabled', 'enabled'),
  col('last sent', 'lastSentAt'),
  col('last error', 'lastError', 40),
];

function one({ out }: Ctx, s: any, heading?: string): void {
  out.result(s, () => {
    if (heading) out.line(heading);
    out.record(s, [
      ['id', s.id],
      ['name', s.name],
      ['filter', `${s.filterName} (${s.filterId})`],
      ['channel', s.channel],
      ['target', s.target],
      [
        'mode',
        s.mode === 'immediate'
          ? 'immediate'
          : `${s.mode} at ${s.digestHour}:00${s.mode === 'weekly' ? ` on day ${s.digestWeekday}` : ''}`,
      ],
      ['enabled', s.enabled],
      ['last sent', s.lastSentAt ?? '-'],
      ['last error', s.lastError ? `${s.lastError} (${s.lastErrorAt})` : '-'],
      ['failed deliveries', s.failedDeliveries],
      ['waiting for digest', s.pendingDigest],
    ]);
    if (s.secret) out.line(`Signing secret (shown only now): ${s.secret}`);
  });
}

interface SubscribeOptions {
  channel: string;
  name?: string;
  hookUrl?: string;
  email?: string;
  mode?: string;
  hour?: number;
  weekday?: number;
}

const hour = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 23) throw new Error(`hour must be 0..23, got '${v}'`);
  return n;
};

function body(o: Partial<SubscribeOptions> & { enabled?: boolean }) {
  return {
    ...(o.channel ? { channel: o.channel } : {}),
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.hookUrl !== undefined ? { url: o.hookUrl } : {}),
    ...(o.email !== undefined ? { email: o.email } : {}),
    ...(o.mode !== undefined ? { mode: o.mode } : {}),
    ...(o.hour !== undefined ? { digestHour: o.hour } : {}),
    ...(o.weekday !== undefined ? { digestWeekday: o.weekday } : {}),
    ...(o.enabled !== undefined ? { enabled: o.enabled } : {}),
  };
}

export function registerAlerts(program: Command): void {
  const alerts = group(program, 'alerts', 'alert subscriptions on saved filters (webhook, Slack, e-mail)', [
    'alerts subscribe 3 --channel webhook --hook-url https://hooks.example.com/anomalies',
    'alerts subscribe 3 --channel email --mode daily --hour 8',
    'alerts list',
    'alerts deliveries 5',
  ]);

  alerts
    .command('list')
    .description('my subscriptions ("My alerts"); --filter: those on one filter; --all (admin): everyone’s')
    .option('--filter <id>', 'only this filter', positiveInt)
    .option('--all', 'every subscription (admin)')
    .action(async (o: { filter?: number; all?: boolean }, cmd: Command) => {
      const ctx = context(cmd);
      const rows = o.filter
        ? await ctx.api.get(`${base}/${o.filter}/alerts`)
        : await ctx.api.get(`${base}/alerts`, { query: { all: o.all ? 'true' : undefined } });
      ctx.out.result(rows, () => ctx.out.table(rows, columns, 'No alert subscriptions.'));
    });

  alerts
    .command('get')
    .description('one subscription')
    .argument('<id>', 'subscription id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const ctx = context(cmd);
      one(ctx, await ctx.api.get(`${base}/alerts/${id}`));
    });

  alerts
    .command('subscribe')
    .description('subscribe a filter you can read; a webhook’s signing secret is printed once')
    .argument('<filterId>', 'filter id', positiveInt)
    .addOption(
      new Option('--channel <channel>', 'where to send')
        .choices(['webhook', 'slack', 'email'])
        .makeOptionMandatory(),
    )
    .option('--name <name>', 'unique among your subscriptions (default <channel>-<id>)')
    .option('--hook-url <url>', 'webhook / slack: the URL to post to')
    .option('--email <address>', 'email: the address (default: yours)')
    .addOption(new Option('--mode <mode>', 'immediate or a digest').choices(['immediate', 'daily', 'weekly']))
    .option('--hour <hour>', 'digest hour 0..23 (service time zone)', hour)
    .option('--weekday <n>', 'weekly digest day, 1 = Monday .. 7 = Sunday', positiveInt)
    .action(async (filterId: number, o: SubscribeOptions, cmd: Command) => {
      const ctx = context(cmd);
      const s = await ctx.api.post(`${base}/${filterId}/alerts`, { body: body(o) });
      one(ctx, s, `Subscribed: alert ${s.id}.`);
    });

  alerts
    .command('update')
    .description('change mode, hour, weekday, URL / address, or enable / disable')
    .argument('<id>', 'subscription id', positiveInt)
    .option('--name <name>', 'a new name')
    .option('--hook-url <url>', 'webhook / slack: a new URL')
    .option('--email <address>', 'email: a new address')
    .addOption(new Option('--mode <mode>', 'immediate or a digest').choices(['immediate', 'daily', 'weekly']))
    .option('--hour <hour>', 'digest hour 0..23', hour)
    .option('--weekday <n>', 'weekly digest day, 1..7', positiveInt)
    .option('--enable', 'enable')
    .option('--disable', 'disable')
    .option('--file <path>', 'a JSON body instead of the options, or - for standard input')
    .action(
      async (
        id: number,
        o: Partial<SubscribeOptions> & { enable?: boolean; disable?: boolean; file?: string },
        cmd: Command,
      ) => {
        const ctx = context(cmd);
        const enabled = o.enable ? true : o.disable ? false : undefined;
        const payload = o.file ? await readJsonObject(o.file) : body({ ...o, channel: undefined, enabled });
        one(ctx, await ctx.api.put(`${base}/alerts/${id}`, { body: payload }), `Updated alert ${id}.`);
      },
    );

  alerts
    .command('delete')
    .description('unsubscribe')
    .argument('<id>', 'subscription id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      await api.delete(`${base}/alerts/${id}`);
      out.result({ deleted: true, id }, () => out.line(`Deleted alert ${id}.`));
    });

  alerts
    .command('test')
    .description('send a test message now')
    .argument('<id>', 'subscription id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const r = await api.post(`${base}/alerts/${id}/test`);
      out.result(r, () =>
        out.line(r.status === 'sent' ? 'Test message sent.' : `Test message failed: ${r.error}`),
      );
    });

  alerts
    .command('rotate-secret')
    .description('a new webhook signing secret, printed once')
    .argument('<id>', 'subscription id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const ctx = context(cmd);
      one(ctx, await ctx.api.post(`${base}/alerts/${id}/rotate-secret`), `New secret for alert ${id}.`);
    });

  alerts
    .command('deliveries')
    .description('the latest deliveries: status, attempts, next attempt, error')
    .argument('<id>', 'subscription id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const rows = await ctx.api.get(`${base}/alerts/${id}/deliveries`);
      ctx.out.result(rows, () =>
        ctx.out.table(
          rows,
          [
            col('id', 'id'),
            col('kind', 'kind'),
            col('status', 'status'),
            col('attempts', 'attempts'),
            col('records', 'records'),
            col('created', 'createdAt'),
            col('sent', 'sentAt'),
            col('next attempt', 'nextAttemptAt'),
            col('error', 'lastError', 50),
          ],
          'No deliveries yet.',
        ),
      );
    });

  alerts
    .command('settings')
    .description(
      'show the alert settings (admin); with --file: save them (publicUrl, allowPrivateNetwork, smtp)',
    )
    .option('--file <path>', 'JSON body to save, or - for standard input')
    .action(async (o: { file?: string }, cmd: Command) => {
      const ctx = context(cmd);
      const s = o.file
        ? await ctx.api.put('/api/v1/settings/alerts', { body: await readJsonObject(o.file) })
        : await ctx.api.get('/api/v1/settings/alerts');
      ctx.out.result(s, () =>
        ctx.out.record(s, [
          ['public URL', s.publicUrl || '-'],
          ['private networks', s.allowPrivateNetwork],
          [
            'SMTP',
            s.smtp
              ? `${s.smtp.host}:${s.smtp.port} from ${s.smtp.from}${s.smtp.username ? ` as ${s.smtp.username}` : ''}`
              : 'not configured',
          ],
          ['updated', s.updatedAt ?? '-'],
        ]),
      );
    });
}

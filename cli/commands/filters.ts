/** filters: saved anomaly filters, their pins, shares and AI summaries. */
import type { Command } from 'commander';
import { type Ctx, context, intList, positiveInt, readJsonObject } from '../context';
import { CliError } from '../errors';
import { group } from '../help';
import { type Column, col } from '../output';

const base = '/api/v1/anomaly-filters';

const columns: Column<any>[] = [
  col('id', 'id'),
  col('name', 'name', 40),
  col('time range', 'timeRange'),
  col('data views', 'dataViews', 40),
  col('owner', 'ownerEmail', 30),
  { header: 'pinned', value: (f) => (f.pinned ? 'yes' : '') },
  { header: 'shared', value: (f) => (f.isOwner === false ? 'with me' : f.sharedWith?.length ? 'yes' : '') },
];

function list({ out }: Ctx, rows: any[]): void {
  out.result(rows, () => out.table(rows, columns, 'No filters.'));
}

const HEAD = ['id', 'name', 'comment', 'ownerEmail', 'isOwner', 'pinned', 'sharedWith'];

/** Who and what first, then the settings that are set. */
function one({ out }: Ctx, f: any, heading?: string): void {
  out.result(f, () => {
    if (heading) out.line(heading);
    const { summary, ...rest } = f;
    const set = Object.entries(rest).filter(
      ([k, v]) => !HEAD.includes(k) && v !== null && v !== undefined && v !== '',
    );
    out.record(rest, [...HEAD.filter((k) => k in rest).map((k): [string, unknown] => [k, rest[k]]), ...set]);
    if (summary?.text) out.record({}, [['summary', `${summary.text} (${summary.generatedAt ?? ''})`]]);
  });
}

function summaryOut({ out }: Ctx, s: any): void {
  out.result(s, () => {
    if (s?.text) {
      if (s.generatedAt) out.line(`Generated at ${s.generatedAt}:`);
      out.line(s.text);
    } else out.line('No summary yet.');
    if (s?.lastError) out.notice(`The last refresh failed: ${s.lastError}`);
  });
}

export function registerFilters(program: Command): void {
  const filters = group(program, 'filters', 'saved anomaly filters: list, edit, pin, share and summarise', [
    'filters list',
    'filters create --file filter.json     # {"name": …, "mergeEvents": true, "measures": "value"}',
    'filters update 7 --file filter.json',
    'filters pin 7 --file pin.json        # {"pinned": true}',
    'filters refresh-summarization 7 --instructions "Three bullet points for managers"',
  ]);

  filters
    .command('list')
    .description('filters you own or that are shared with you')
    .action(async (_o: unknown, cmd: Command) => {
      const ctx = context(cmd);
      list(ctx, await ctx.api.get(base));
    });

  filters
    .command('list-little')
    .description('compact list: id, name, description')
    .action(async (_o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const rows = await api.get<any[]>(`${base}/little`);
      out.result(rows, () =>
        out.table(
          rows,
          [col('id', 'id'), col('name', 'name', 40), col('description', 'description', 70)],
          'No filters.',
        ),
      );
    });

  filters
    .command('pinned')
    .description('filters you pinned')
    .action(async (_o: unknown, cmd: Command) => {
      const ctx = context(cmd);
      list(ctx, await ctx.api.get(`${base}/pinned`));
    });

  filters
    .command('get')
    .description('one filter with its settings, owner, shares and summary')
    .argument('<id>', 'filter id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const ctx = context(cmd);
      one(ctx, await ctx.api.get(`${base}/${id}`));
    });

  filters
    .command('create')
    .description('create a filter (you become its owner)')
    .requiredOption('--file <path>', 'JSON body with the filter fields, or - for standard input')
    .action(async (o: { file: string }, cmd: Command) => {
      const ctx = context(cmd);
      const f = await ctx.api.post(base, { body: await readJsonObject(o.file) });
      one(ctx, f, `Created filter ${f.id}.`);
    });

  filters
    .command('update')
    .description('update a filter you own; the id is taken from the body, or from [id]')
    .argument('[id]', 'filter id (else the body must hold it)', positiveInt)
    .requiredOption('--file <path>', 'JSON body with the filter fields, or - for standard input')
    .action(async (id: number | undefined, o: { file: string }, cmd: Command) => {
      const ctx = context(cmd);
      const body = await readJsonObject(o.file);
      if (id !== undefined) body.id = id;
      if (body.id === undefined)
        throw CliError.usage('Give the filter id as an argument or as "id" in the body.');
      const f = await ctx.api.put(base, { body });
      one(ctx, f, `Updated filter ${body.id}.`);
    });

  filters
    .command('delete')
    .description('delete a filter you own, for everyone')
    .argument('<id>', 'filter id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      await api.delete(`${base}/${id}`);
      out.result({ deleted: true, id }, () => out.line(`Deleted filter ${id}.`));
    });

  filters
    .command('pin')
    .description('pin or unpin a filter for yourself: --file with {"pinned": true|false}, or --unpin')
    .argument('<id>', 'filter id', positiveInt)
    .option('--file <path>', 'JSON body {"pinned": boolean}, or - for standard input')
    .option('--unpin', 'unpin (without --file)')
    .action(async (id: number, o: { file?: string; unpin?: boolean }, cmd: Command) => {
      const ctx = context(cmd);
      const body = o.file ? await readJsonObject(o.file) : { pinned: !o.unpin };
      const f = await ctx.api.put(`${base}/${id}/pin`, { body });
      const pinned = f?.pinned ?? body.pinned;
      ctx.out.result(f ?? { id, pinned }, () =>
        ctx.out.line(`${pinned ? 'Pinned' : 'Unpinned'} filter ${id}.`),
      );
    });

  filters
    .command('share')
    .description('set who a filter you own is shared with (replaces the list; empty to stop sharing)')
    .argument('<id>', 'filter id', positiveInt)
    .requiredOption('--users <ids>', 'comma-separated user ids (see shareable-users), or "" for none', (v) =>
      v.trim() === '' ? [] : intList(v),
    )
    .action(async (id: number, o: { users: number[] }, cmd: Command) => {
      const { api, out } = context(cmd);
      const r = await api.post(`${base}/${id}/share`, { body: { targetUserIds: o.users } });
      out.result(r ?? { id, targetUserIds: o.users }, () =>
        out.line(`Filter ${id} is shared with ${o.users.length ? `users ${o.users.join(', ')}` : 'nobody'}.`),
      );
    });

  filters
    .command('shares')
    .description('user ids a filter is shared with')
    .argument('<id>', 'filter id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const r = await api.get(`${base}/${id}/shares`);
      out.result(r, () => out.line(Array.isArray(r) ? r.join(', ') || 'Not shared.' : JSON.stringify(r)));
    });

  filters
    .command('shareable-users')
    .description('users you can share filters with')
    .action(async (_o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const rows = await api.get<any[]>(`${base}/shareable-users`);
      out.result(rows, () =>
        out.table(rows, [col('id', 'id'), col('email', 'email')], 'Nobody to share with.'),
      );
    });

  filters
    .command('unshare')
    .description('leave a filter shared with you (drops your share and pin; the filter stays)')
    .argument('<id>', 'filter id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      await api.delete(`${base}/${id}/share`);
      out.result({ left: true, id }, () => out.line(`Left shared filter ${id}.`));
    });

  filters
    .command('summarization')
    .description("the filter's stored AI summary")
    .argument('<id>', 'filter id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const ctx = context(cmd);
      summaryOut(ctx, await ctx.api.get(`${base}/${id}/summarization`));
    });

  filters
    .command('refresh-summarization')
    .description('regenerate the AI summary now, optionally with other instructions')
    .argument('<id>', 'filter id', positiveInt)
    .option('--instructions <text>', 'instructions for this run instead of the saved ones')
    .option('--file <path>', 'JSON body {"instructions": string|null}, or - for standard input')
    .action(async (id: number, o: { instructions?: string; file?: string }, cmd: Command) => {
      const ctx = context(cmd);
      let body: Record<string, unknown> | undefined;
      if (o.file) body = await readJsonObject(o.file);
      else if (o.instructions !== undefined) body = { instructions: o.instructions };
      ctx.out.notice(`Summarising filter ${id}…`);
      summaryOut(ctx, await ctx.api.post(`${base}/${id}/summarization/refresh`, { body: body ?? {} }));
    });

  filters
    .command('prompt')
    .description('the prompt a summary refresh would send to the language model')
    .argument('<id>', 'filter id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const p = await api.get(`${base}/${id}/summarization/prompt`);
      out.result(p, () => out.line(typeof p === 'string' ? p : (p?.prompt ?? JSON.stringify(p, null, 2))));
    });
}

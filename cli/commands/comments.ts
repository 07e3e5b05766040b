/** comments: read, query and (admins) write comments on data views. */
import type { Command } from 'commander';
import { type Ctx, context, isoDate, positiveInt, readJsonObject } from '../context';
import { group } from '../help';
import { seg } from '../http-client';
import { type Column, col } from '../output';

const base = '/api/v1/comments';

const columns: Column<any>[] = [
  col('id', 'id'),
  col('data view', 'dataViewId'),
  col('from', 'dateFrom'),
  col('to', 'dateTo'),
  col('author', 'email', 30),
  col('categories', 'categories', 40),
  col('text', 'text', 60),
];

function list({ out }: Ctx, rows: any[]): void {
  out.result(rows, () => out.table(rows, columns, 'No comments.'));
}

function one({ out }: Ctx, comment: any, heading?: string): void {
  out.result(comment, () => {
    if (heading) out.line(heading);
    out.record(comment, [
      ['id', comment.id],
      ['data view', comment.dataViewId],
      ['from', comment.dateFrom],
      ['to', comment.dateTo],
      ['author', comment.email],
      ['categories', comment.categories ?? {}],
      ['text', comment.text],
    ]);
  });
}

interface WindowOptions {
  dataviewId?: number;
  dateFrom?: string;
  dateTo?: string;
}

export function registerComments(program: Command): void {
  const comments = group(
    program,
    'comments',
    'notes on anomalies of a data view (create, update, delete need an admin)',
    [
      'comments by-dataview 4 --date-from 2025-01-01 --date-to 2025-01-31',
      'comments query --date-from 2025-03-01',
      'comments create --file comment.json',
    ],
  );

  comments
    .command('get')
    .description('one comment')
    .argument('<id>', 'comment id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const ctx = context(cmd);
      one(ctx, await ctx.api.get(`${base}/${id}`));
    });

  comments
    .command('by-dataview')
    .description('comments of a data view, optionally only those overlapping a date window')
    .argument('<dataViewId>', 'data view id', positiveInt)
    .option('--date-from <date>', 'window start, yyyy-MM-dd (with --date-to)', isoDate)
    .option('--date-to <date>', 'window end, yyyy-MM-dd (with --date-from)', isoDate)
    .action(async (dataViewId: number, o: WindowOptions, cmd: Command) => {
      const ctx = context(cmd);
      const path = `${base}/by-dataview/${dataViewId}`;
      const windowed = o.dateFrom !== undefined || o.dateTo !== undefined;
      list(
        ctx,
        windowed
          ? await ctx.api.get(`${path}/daterange`, { query: { dateFrom: o.dateFrom, dateTo: o.dateTo } })
          : await ctx.api.get(path),
      );
    });

  comments
    .command('query')
    .description('comments by data view and/or date window (at least one of them)')
    .option('--dataview-id <id>', 'data view id', positiveInt)
    .option('--date-from <date>', 'comments valid on or after this day, yyyy-MM-dd', isoDate)
    .option('--date-to <date>', 'comments valid on or before this day, yyyy-MM-dd', isoDate)
    .action(async (o: WindowOptions, cmd: Command) => {
      const ctx = context(cmd);
      list(
        ctx,
        await ctx.api.get(base, {
          query: { dataViewId: o.dataviewId, dateFrom: o.dateFrom, dateTo: o.dateTo },
        }),
      );
    });

  comments
    .command('by-email')
    .description('comments written by an e-mail address (data users: only their own)')
    .argument('<email>', 'author e-mail')
    .action(async (email: string, _o: unknown, cmd: Command) => {
      const ctx = context(cmd);
      list(ctx, await ctx.api.get(`${base}/by-email/${seg(email)}`));
    });

  comments
    .command('create')
    .description('create a comment (admin): {text, email, dataViewId, dateFrom, dateTo, categories?}')
    .requiredOption('--file <path>', 'JSON body, or - for standard input')
    .action(async (o: { file: string }, cmd: Command) => {
      const ctx = context(cmd);
      const comment = await ctx.api.post(base, { body: await readJsonObject(o.file) });
      one(ctx, comment, `Created comment ${comment.id}.`);
    });

  comments
    .command('update')
    .description('replace a comment (admin); an id in the body must equal <id>')
    .argument('<id>', 'comment id', positiveInt)
    .requiredOption('--file <path>', 'JSON body, or - for standard input')
    .action(async (id: number, o: { file: string }, cmd: Command) => {
      const ctx = context(cmd);
      const comment = await ctx.api.put(`${base}/${id}`, { body: await readJsonObject(o.file) });
      one(ctx, comment, `Updated comment ${id}.`);
    });

  comments
    .command('delete')
    .description('delete a comment (admin)')
    .argument('<id>', 'comment id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      await api.delete(`${base}/${id}`);
      out.result({ deleted: true, id }, () => out.line(`Deleted comment ${id}.`));
    });
}

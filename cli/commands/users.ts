/** users: accounts, roles and assigned data views (admin only). */
import type { Command } from 'commander';
import { type Ctx, context, intList, positiveInt, readInput, readJsonObject } from '../context';
import { CliError } from '../errors';
import { group } from '../help';
import { type Column, col } from '../output';

const base = '/api/v1/users';

const columns: Column<any>[] = [
  col('id', 'id'),
  col('email', 'email', 40),
  col('role', 'role'),
  { header: 'enabled', value: (u) => (u.enabled ? 'yes' : 'no') },
  { header: 'data views', value: (u) => (u.role === 'admin' ? 'all' : u.dataViewIds), max: 40 },
];

interface UserOptions {
  file?: string;
  email?: string;
  role?: string;
  passwordStdin?: boolean;
  enabled?: boolean;
  dataViews?: number[];
}

/** The body from --file, overridden by the flags given. */
async function body(o: UserOptions): Promise<Record<string, unknown>> {
  const b = o.file ? await readJsonObject(o.file) : {};
  if (o.email !== undefined) b.email = o.email;
  if (o.role !== undefined) b.role = o.role;
  if (o.enabled !== undefined) b.enabled = o.enabled;
  if (o.dataViews !== undefined) b.dataViewIds = o.dataViews;
  if (o.passwordStdin) {
    if (o.file === '-') throw CliError.usage('--password-stdin and --file - both want standard input.');
    b.password = (await readInput('-')).replace(/\r?\n$/, '');
  }
  return b;
}

function one({ out }: Ctx, u: any, heading?: string): void {
  out.result(u, () => {
    if (heading) out.line(heading);
    out.record(u);
  });
}

/** The flags create and update share. */
function userFlags(cmd: Command): Command {
  return cmd
    .option(
      '--file <path>',
      'JSON body {email, role, password, enabled, dataViewIds}, or - for standard input',
    )
    .option('--email <email>', 'e-mail address')
    .option('--role <role>', 'admin or data-user')
    .option('--password-stdin', 'read the new password from standard input')
    .option('--enabled', 'the account may sign in')
    .option('--disabled', 'the account may not sign in')
    .option('--data-views <ids>', 'comma-separated data view ids (replaces the assignment)', (v) =>
      v.trim() === '' ? [] : intList(v),
    )
    .hook('preAction', (_p, action) => {
      const o = action.opts();
      if (o.enabled && o.disabled) throw CliError.usage('Give --enabled or --disabled, not both.');
      if (o.disabled) action.setOptionValue('enabled', false);
    });
}

export function registerUsers(program: Command): void {
  const users = group(program, 'users', 'user accounts (admin only)', [
    'users list',
    'echo "$PW" | service-cli users create --email ann@example.com --role data-user --password-stdin --data-views 1,4',
    'users update 7 --disabled',
  ]);

  users
    .command('list')
    .description('every user with role, state and assigned data views')
    .action(async (_o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const rows = await api.get<any[]>(base);
      out.result(rows, () => out.table(rows, columns, 'No users.'));
    });

  users
    .command('get')
    .description('one user')
    .argument('<id>', 'user id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const ctx = context(cmd);
      one(ctx, await ctx.api.get(`${base}/${id}`));
    });

  userFlags(users.command('create').description('create a user from --file and/or the flags')).action(
    async (o: UserOptions, cmd: Command) => {
      const ctx = context(cmd);
      const u = await ctx.api.post(base, { body: await body(o) });
      one(ctx, u, `Created user ${u.id}.`);
    },
  );

  userFlags(
    users
      .command('update')
      .description('change a user: only the fields given change')
      .argument('<id>', 'user id', positiveInt),
  ).action(async (id: number, o: UserOptions, cmd: Command) => {
    const ctx = context(cmd);
    const u = await ctx.api.put(`${base}/${id}`, { body: await body(o) });
    one(ctx, u, `Updated user ${id}.`);
  });

  users
    .command('delete')
    .description('delete a user')
    .argument('<id>', 'user id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      await api.delete(`${base}/${id}`);
      out.result({ deleted: true, id }, () => out.line(`Deleted user ${id}.`));
    });
}

/** api-keys: keys for scripts and orchestration tools (admin only); a key is shown once, at creation. */
import { type Command, InvalidArgumentError } from 'commander';
import { context, positiveInt } from '../context';
import { group } from '../help';
import { col } from '../output';

const base = '/api/v1/api-keys';
const PERMISSIONS = ['read', 'write', 'process', 'admin'];

function permissions(value: string): string[] {
  const list = value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const bad = list.filter((p) => !PERMISSIONS.includes(p));
  if (list.length === 0 || bad.length)
    throw new InvalidArgumentError(`give one or more of ${PERMISSIONS.join(', ')}.`);
  return list;
}

export function registerApiKeys(program: Command): void {
  const keys = group(
    program,
    'api-keys',
    'API keys: read, write (filters, feedback, alerts, summaries), process (jobs) and admin permissions (admin only)',
    ['api-keys create --name airflow --permissions process', 'api-keys list', 'api-keys revoke 3'],
  );

  keys
    .command('list')
    .description('every key (never the key itself)')
    .action(async (_o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      const rows = await api.get<any[]>(base);
      out.result(rows, () =>
        out.table(
          rows,
          [
            col('id', 'id'),
            col('name', 'name', 30),
            col('permissions', 'permissions'),
            col('user', 'userId'),
            col('created', 'createdAt'),
          ],
          'No API keys.',
        ),
      );
    });

  keys
    .command('create')
    .description('create a key; it is printed once and cannot be shown again')
    .requiredOption('--name <name>', 'what the key is for')
    .requiredOption('--permissions <list>', `comma-separated: ${PERMISSIONS.join(', ')}`, permissions)
    .option('--user-id <id>', 'the user the key acts for (default: you)', positiveInt)
    .action(async (o: { name: string; permissions: string[]; userId?: number }, cmd: Command) => {
      const { api, out } = context(cmd);
      const k = await api.post(base, {
        body: { name: o.name, permissions: o.permissions, userId: o.userId },
      });
      out.result(k, () => {
        out.line(
          `Created API key ${k.id} "${k.name}" (${k.permissions?.join(', ')}). Store it now; it is not shown again:`,
        );
        out.line(k.key);
      });
    });

  keys
    .command('revoke')
    .description('revoke a key: it stops working at once')
    .argument('<id>', 'key id', positiveInt)
    .action(async (id: number, _o: unknown, cmd: Command) => {
      const { api, out } = context(cmd);
      await api.delete(`${base}/${id}`);
      out.result({ revoked: true, id }, () => out.line(`Revoked API key ${id}.`));
    });
}

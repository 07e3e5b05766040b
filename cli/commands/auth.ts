/** Session commands: login (stores a token in the config file), logout, whoami. */
import type { Command } from 'commander';
import { configPath, type GlobalOptions, removeStoredConfig, writeStoredConfig } from '../config';
import { type Ctx, context, readInput } from '../context';
import { CliError } from '../errors';
import { exitCodesHelp } from '../help';
import { Output } from '../output';
import { ask, interactive } from '../prompt';

interface LoginOptions {
  email?: string;
  password?: string;
  passwordStdin?: boolean;
  printToken?: boolean;
}

async function credentials(opts: LoginOptions): Promise<{ email: string; password: string }> {
  let email = opts.email;
  let password = opts.password;
  if (opts.passwordStdin) password = (await readInput('-')).replace(/\r?\n$/, '');
  if (!email && interactive()) email = await ask('E-mail: ');
  if (!password && interactive()) password = await ask('Password: ', true);
  if (!email) throw CliError.usage('--email is required when the terminal cannot ask for it.');
  if (!password)
    throw CliError.usage('Give the password with --password-stdin (or --password, or type it when asked).');
  return { email, password };
}

async function login({ api, out, settings }: Ctx, opts: LoginOptions): Promise<void> {
  const who = await credentials(opts);
  const answer = await api.post<{ accessToken: string; expiresIn: number }>('/api/v1/auth/token', {
    body: who,
    auth: false,
  });
  const expiresAt = new Date(Date.now() + answer.expiresIn * 1000).toISOString();
  writeStoredConfig(settings.configPath, {
    url: settings.url,
    token: answer.accessToken,
    email: who.email,
    expiresAt,
  });
  const result = { url: settings.url, email: who.email, expiresAt, configPath: settings.configPath };
  out.result(opts.printToken ? { ...result, accessToken: answer.accessToken } : result, () => {
    if (opts.printToken) {
      out.line(answer.accessToken);
      return;
    }
    out.line(`Signed in to ${settings.url} as ${who.email}.`);
    out.line(`The token is saved in ${settings.configPath} and expires at ${expiresAt}.`);
  });
}

export function registerAuth(program: Command): void {
  program
    .command('login')
    .description('sign in with e-mail and password; saves the service address and a token in the config file')
    .option('--email <email>', 'your e-mail address (asked when omitted on a terminal)')
    .option('--password-stdin', 'read the password from standard input')
    .option('--password <password>', 'the password (visible to other local users; prefer --password-stdin)')
    .option('--print-token', 'also print the token on stdout, e.g. for SERVICE_CLI_TOKEN')
    .addHelpText(
      'after',
      `\nExamples:\n  $ service-cli login --url http://127.0.0.1:3000 --email admin@example.com\n  $ echo "$PASSWORD" | service-cli login --email admin@example.com --password-stdin\n${exitCodesHelp()}`,
    )
    .action((opts: LoginOptions, cmd: Command) => login(context(cmd), opts));

  program
    .command('logout')
    .description('forget the saved token (deletes the config file)')
    .action((_opts: unknown, cmd: Command) => {
      // No context: a config file too damaged to read must still be removable.
      const out = new Output(cmd.optsWithGlobals<GlobalOptions>().json === true);
      const file = configPath();
      const removed = removeStoredConfig(file);
      out.result({ removed, configPath: file }, () =>
        out.line(removed ? `Signed out: removed ${file}.` : `Not signed in: no ${file}.`),
      );
    });

  program
    .command('whoami')
    .description('who the current credential belongs to: e-mail, role, permissions, data views')
    .action(async (_opts: unknown, cmd: Command) => {
      const { api, out, settings } = context(cmd);
      const me = await api.get('/api/v1/auth/me');
      out.result(me, () =>
        out.record(me, [
          ['service', settings.url],
          ['email', me.email],
          ['role', me.role],
          ['signed in with', me.via],
          ['permissions', me.permissions],
          ['data views', me.dataViewIds],
        ]),
      );
    });
}

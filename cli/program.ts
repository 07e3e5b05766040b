/** The service-cli command tree: global options, exit codes in --help, and one group per file in ./commands. */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { registerAnomalies } from './commands/anomalies';
import { registerApiKeys } from './commands/api-keys';
import { registerApply } from './commands/apply';
import { registerAuth } from './commands/auth';
import { registerComments } from './commands/comments';
import { registerFeedback } from './commands/feedback';
import { registerAlerts } from './commands/alerts';
import { registerConnectors } from './commands/connectors';
import { registerCron } from './commands/cron';
import { registerDataViews } from './commands/dataviews';
import { registerFilters } from './commands/filters';
import { registerJobs } from './commands/jobs';
import { registerSystem } from './commands/system';
import { registerUsers } from './commands/users';
import { DEFAULT_URL } from './config';
import { exitCodesHelp } from './help';

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    return String(pkg.version);
  } catch {
    return 'unknown';
  }
}

const ENVIRONMENT_HELP = `
Settings (a flag wins over the environment, which wins over the config file):
  --url,     SERVICE_CLI_URL       service address (default ${DEFAULT_URL})
  --token,   SERVICE_CLI_TOKEN     Bearer token (from \`service-cli login\` or your identity provider)
  --api-key, SERVICE_CLI_API_KEY   API key (X-API-Key), e.g. one with the process permission for jobs
  SERVICE_CLI_CONFIG               config file \`login\` writes (default
                                   $XDG_CONFIG_HOME/service-cli/config.json or ~/.config/service-cli/config.json)`;

const EXAMPLES = `
Examples:
  $ service-cli login --email admin@example.com
  $ service-cli dataviews list --tag retail
  $ service-cli dataviews create --file retail.yaml
  $ service-cli dataviews jobs-load retail/retail_sales --wait
  $ service-cli anomalies by-filter 3 --json
  $ service-cli <group> --help        every command of a group`;

/** Builds a fresh program; `main` parses argv with it, tests may too. */
export function buildProgram(): Command {
  const program = new Command('service-cli');
  // Settings inherited by every command added below: they must be set before the groups.
  program
    .description('Command line client of the anomaly monitoring service: every command calls its REST API.')
    .version(version(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .addOption(new Option('--url <url>', 'service address').helpGroup('Connection:'))
    .addOption(new Option('--token <token>', 'Bearer token').helpGroup('Connection:'))
    .addOption(new Option('--api-key <key>', 'API key, sent as X-API-Key').helpGroup('Connection:'))
    .option('--json', 'machine-readable output: the answer as JSON on stdout, errors as JSON on stderr')
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError(true)
    .exitOverride();
  program.addHelpText('after', `${ENVIRONMENT_HELP}\n${exitCodesHelp()}\n${EXAMPLES}`);

  program.commandsGroup('Session:');
  program.helpCommand('help [command]', 'show help for a command');
  registerAuth(program);
  program.commandsGroup('Anomalies and comments:');
  registerAnomalies(program);
  registerFilters(program);
  registerComments(program);
  registerFeedback(program);
  registerAlerts(program);
  program.commandsGroup('Data views and jobs:');
  registerDataViews(program);
  registerJobs(program);
  registerCron(program);
  program.commandsGroup('Configuration as code:');
  registerApply(program);
  program.commandsGroup('Administration:');
  registerConnectors(program);
  registerUsers(program);
  registerApiKeys(program);
  registerSystem(program);
  return program;
}

/** service-cli entry: parse the command line, run the command, turn every failure into a message and an exit code. */
import { CommanderError } from 'commander';
import { CliError, ExitCode } from './errors';
import { Output } from './output';
import { buildProgram } from './program';

/** Runs one command line; resolves to the exit code. */
export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return ExitCode.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Commander has printed its message (or the help) already.
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return ExitCode.ok;
      return ExitCode.usage;
    }
    const out = new Output(program.opts().json === true || argv.includes('--json'));
    if (e instanceof CliError) {
      out.error(e.message, e.problem);
      return e.exitCode;
    }
    out.error(`Unexpected failure: ${(e as Error)?.stack ?? String(e)}`);
    return ExitCode.failure;
  }
}

// A closed pipe (`service-cli ... | head`) is not an error of ours.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

process.exitCode = await run(process.argv);

/** Help text shared by the program and its groups. */
import type { Command } from 'commander';
import { EXIT_CODE_HELP } from './errors';

/** The exit code table every help page ends with. */
export function exitCodesHelp(): string {
  return `\nExit codes:\n${EXIT_CODE_HELP.map(([code, text]) => `  ${code}  ${text}`).join('\n')}`;
}

/** A command group whose help ends with examples and the exit codes. */
export function group(program: Command, name: string, description: string, examples: string[] = []): Command {
  const cmd = program.command(name).description(description);
  const ex = examples.length
    ? `\nExamples:\n${examples.map((e) => `  $ service-cli ${e}`).join('\n')}\n`
    : '';
  cmd.addHelpText('after', `${ex}${exitCodesHelp()}`);
  return cmd;
}

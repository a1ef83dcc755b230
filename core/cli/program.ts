/**
 * The commander program built from the command table: `--version`/`-v`,
 * `--help`, `help CMD` and `CMD --help` with each command's own flags and
 * examples, did-you-mean for unknown commands and flags, and
 * `completion bash|zsh|fish` (shell scripts from @bomb.sh/tab that call back
 * into this program for each completion).
 */
import { Command, Option } from 'commander';
import tab from '@bomb.sh/tab/commander';
import { UsageError } from '../../boundary/errors.js';
import { didYouMean } from '../text/suggest.js';
import { TOOLSHED_VERSION } from '../../boundary/version.js';
import { COMMANDS, HOST_FLAGS, type CliValues, type CommandSpec, type FlagSpec } from './commands.js';
import type { CliIo } from './io.js';

function addFlag(command: Command, flag: FlagSpec): void {
  const option = new Option(flag.flags, flag.description);
  if (flag.choices) option.choices(flag.choices);
  command.addOption(option);
}

function flagsOf(spec: CommandSpec): FlagSpec[] {
  return [...(spec.flags ?? []), ...(spec.host === false ? [] : HOST_FLAGS)];
}

function examples(spec: CommandSpec): string {
  return `\nExample${spec.examples.length > 1 ? 's' : ''}:\n${spec.examples.map((e) => `  $ ${e}`).join('\n')}`;
}

/** Runs a command's handler and records its exit code. */
function action(spec: CommandSpec, io: CliIo, exit: { code: number }) {
  return async (...received: unknown[]) => {
    const command = received[received.length - 1] as Command;
    const declared = spec.args?.length ?? 0;
    // The default command takes no arguments: a word left over is a command name that does not exist.
    if (spec === COMMANDS[0] && command.args.length > 0) {
      const word = command.args[0]!;
      throw new UsageError(
        `unknown command '${word}'.${didYouMean(
          word,
          COMMANDS.map((c) => c.name),
        )} Run toolshed --help.`,
      );
    }
    const args = received.slice(0, declared) as Array<string | undefined>;
    exit.code = await spec.run({ args, values: command.optsWithGlobals<CliValues>(), io });
  };
}

/** The program; `exit.code` holds the exit code of the command that ran. */
export function buildProgram(io: CliIo, exit: { code: number }): Command {
  const program = new Command('toolshed')
    .description('A plugin host for LLM tools: toolsets as npm plugins, filtered, isolated in workers.')
    .version(TOOLSHED_VERSION, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text.replace(/\n$/, '')),
      writeErr: (text) => io.err(text.replace(/\n$/, '')),
      outputError: () => {},
    });
  // Host flags on the program too, so `toolshed --config x list` works as well as `toolshed list --config x`.
  for (const flag of [...HOST_FLAGS, ...(COMMANDS[0]!.flags ?? [])]) addFlag(program, flag);
  for (const spec of COMMANDS) {
    const command = program
      .command(spec.name, spec === COMMANDS[0] ? { isDefault: true } : {})
      .description(spec.summary);
    for (const arg of spec.args ?? []) command.argument(arg.syntax, arg.description);
    for (const flag of flagsOf(spec)) addFlag(command, flag);
    if (spec === COMMANDS[0]) command.allowExcessArguments(true);
    command.addHelpText('after', examples(spec));
    command.action(action(spec, io, exit));
  }
  tab(program, { completionCommandName: 'completion' });
  program.commands
    .find((c) => c.name() === 'completion')
    ?.description('print a shell completion script (bash, zsh, fish or powershell)')
    .addHelpText(
      'after',
      `\nExamples:\n  $ source <(toolshed completion bash)      # in ~/.bashrc\n  $ toolshed completion fish > ` +
        `~/.config/fish/completions/toolshed.fish`,
    );
  program.addHelpText('after', `\nRun toolshed help <command> for a command's flags and an example.`);
  return program;
}

/**
 * The `structrank` command tree on commander: one subcommand per entry of lib/commands/index.ts
 * ('eval parse' and 'kernel trees' are subcommands of the groups 'eval' and 'kernel'). Only
 * the command being run is loaded; its options come from its declared fields (options.ts).
 *
 * Exit codes come from the error's code (EXIT_CODES in lib/errors.ts): 0 done, 1 bad input,
 * model file or I/O, 2 bad usage, 70 internal error, 130 cancelled.
 */
import { Command as Commander, CommanderError } from 'commander';
import { commands, groups } from '../commands/index.js';
import { EXIT_CODES, UsageError } from '../errors.js';
import { reportRunError } from './report.js';
import { Progress, setQuiet } from '../progress.js';
import type { Command } from '../commands/command.js';
import {
  addOptions,
  checkArgs,
  givenFlags,
  optionRows,
  parseOptions,
  valueFlags,
  type OptionFields,
} from '../commands/options.js';
import { quiet } from '../options/common.js';
import { releaseAllLocks } from '../io/folder-lock.js';
import { packageVersion } from '../io/package-info.js';

/** Options every command takes, besides its own. */
export const globalOptions = { quiet };

/** A command's options and the global ones: what the command line accepts. */
export function allOptions(command: Command): OptionFields {
  return { ...command.options, ...globalOptions };
}

/** The usage line: the command, its required options, then [options] and its arguments. */
export function usageLine(name: string, command: Command): string {
  const required = optionRows(command.options)
    .filter((r) => r.required)
    .map((r) => (r.value === undefined ? r.flag : `${r.flag} ${r.value}`));
  return ['structrank', name, ...required, '[options]', command.arguments ?? ''].filter((p) => p !== '').join(' ');
}

/** Joins the lines of each paragraph, so commander wraps them to the terminal's width. */
function paragraphs(text: string): string {
  return text.replace(/([^\n])\n(?=[^\n])/g, '$1 ');
}

/** The help text after the options: examples. */
function examplesText(command: Command): string {
  return command.examples.length === 0 ? '' : `\nExamples:\n${command.examples.map((e) => `  $ ${e}`).join('\n')}\n`;
}

interface Target {
  name: string;
  command: Command;
}

function newProgram(out: CliOutput): Commander {
  const program = new Commander('structrank');
  program
    .description('structured prediction and discriminative reranking: taggers, a chart parser, kernels and rerankers')
    .version(packageVersion(), '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .configureOutput({ writeOut: out.write, writeErr: out.error, outputError: () => {} })
    .showSuggestionAfterError(true)
    .configureHelp({ helpWidth: out.width ?? 100 })
    .addHelpText(
      'after',
      "\nRun 'structrank <command> --help' for a command's options and examples.\n" +
        'Exit codes: 0 done, 1 bad input, 2 bad usage, 70 internal error, 130 cancelled.',
    );
  const parents = new Map<string, Commander>();
  for (const [key, entry] of Object.entries(commands)) {
    const words = key.split(' ');
    let parent = program;
    if (words.length === 2) {
      let group = parents.get(words[0]);
      if (!group) {
        group = program.command(words[0]).description(groups[words[0]] ?? '');
        parents.set(words[0], group);
      }
      parent = group;
    }
    parent.command(words[words.length - 1]).description(entry.summary);
  }
  return program;
}

function subcommand(program: Commander, name: string): Commander {
  let cmd = program;
  for (const word of name.split(' ')) cmd = cmd.commands.find((c) => c.name() === word) as Commander;
  return cmd;
}

/** Declares a loaded command's options, arguments, help and action on its commander node. */
function configure(node: Commander, target: Target, done: (code: number) => void): void {
  const { name, command } = target;
  addOptions(node, allOptions(command), command.optionGroups);
  node
    .usage(
      usageLine(name, command)
        .split(' ')
        .slice(1 + name.split(' ').length)
        .join(' '),
    )
    .description(`${commands[name].summary}\n\n${paragraphs(command.description)}`)
    .addHelpText('after', examplesText(command));
  if (command.arguments !== undefined) node.arguments(command.arguments);
  node.action(async () => {
    const raw = node.opts();
    const values = parseOptions(name, command.options, raw);
    if (parseOptions(name, globalOptions, raw).quiet) setQuiet(true);
    try {
      const code = await command.run(values, {
        positionals: node.args,
        given: new Set(givenFlags(command.options, raw, node)),
      });
      done(code ?? 0);
    } finally {
      // The output files' locks (lib/io/outputs.ts) end with the command, also in-process.
      releaseAllLocks();
    }
  });
}

function findTarget(argv: readonly string[]): { name: string; rest: string[] } | undefined {
  const pair = argv.length >= 2 ? `${argv[0]} ${argv[1]}` : '';
  if (commands[pair]) return { name: pair, rest: argv.slice(2) };
  if (commands[argv[0]]) return { name: argv[0], rest: argv.slice(1) };
  return undefined;
}

/** One line: commander's "error: x\n(Did you mean y?)" becomes "x (did you mean y?)". */
function commanderMessage(err: CommanderError): string {
  return err.message
    .replace(/^error: /, '')
    .replace(/\s*\n\s*\(Did you mean/g, ' (did you mean')
    .replace(/\s*\n\s*/g, ' ');
}

export interface CliOutput {
  write: (s: string) => void;
  error: (s: string) => void;
  /** Width --help wraps to (default 100: off a terminal, --help is the same everywhere). */
  width?: number;
}

const processOutput: CliOutput = {
  write: (s) => process.stdout.write(s),
  error: (s) => process.stderr.write(s),
  width: process.stdout.isTTY ? Math.min(process.stdout.columns ?? 100, 100) : 100,
};

/** Runs the CLI on `argv` (without node and the script) and returns the exit code. */
export async function main(argv: string[], out: CliOutput = processOutput): Promise<number> {
  const program = newProgram(out);
  // 'structrank help eval parse' is 'structrank eval parse --help'.
  if (argv[0] === 'help' && argv.length > 1) argv = [...argv.slice(1), '--help'];
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT_CODES.ERR_STRUCTRANK_USAGE;
  }
  const found = findTarget(argv);
  let target: Target | undefined;
  if (found) target = { name: found.name, command: await commands[found.name].load() };
  else if (
    groups[argv[0]] !== undefined &&
    (argv.length === 1 || argv[1].startsWith('-')) &&
    !argv.includes('--help') &&
    !argv.includes('-h')
  ) {
    const subs = Object.keys(commands)
      .filter((k) => k.startsWith(`${argv[0]} `))
      .map((k) => k.split(' ')[1]);
    out.error(`structrank: '${argv[0]}' needs one of: ${subs.join(', ')}\n`);
    return EXIT_CODES.ERR_STRUCTRANK_USAGE;
  }
  let code: number = 0;
  try {
    if (target) {
      checkArgs(target.name, found?.rest ?? [], valueFlags(allOptions(target.command)));
      configure(subcommand(program, target.name), target, (c) => (code = c));
    }
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) return 0;
      if (!target) {
        // In a group ('eval pars'), the unknown command and the suggestion are the group's two words.
        const group = groups[argv[0]] !== undefined && err.code === 'commander.unknownCommand' ? argv[0] : undefined;
        const message =
          group === undefined
            ? commanderMessage(err)
            : commanderMessage(err)
                .replace(/^unknown command '([^']*)'/, `unknown command '${group} $1'`)
                .replace(/\(did you mean ([^?]+)\?\)/, `(did you mean '${group} $1'?)`);
        out.error(
          `structrank: ${message}\nrun 'structrank ${group === undefined ? '' : `${group} `}--help' for the list of commands\n`,
        );
        return EXIT_CODES.ERR_STRUCTRANK_USAGE;
      }
      return reportError(new UsageError(`${target.name}: ${commanderMessage(err)}`), target, out);
    }
    return reportError(err, target, out);
  }
}

/** Prints an error as one line (plus the usage line for usage errors); the exit code comes from its code. */
function reportError(err: unknown, target: Target | undefined, out: CliOutput): number {
  Progress.stopAll();
  if (err instanceof UsageError) {
    out.error(`structrank: ${err.message}\n${target ? `usage: ${usageLine(target.name, target.command)}\n` : ''}`);
    return EXIT_CODES[err.code];
  }
  return reportRunError(err, out.error);
}

/** A command's full --help text (for tests and docs). */
export async function commandHelp(name: string): Promise<string> {
  let text = '';
  const sink = { write: (s: string) => (text += s), error: (s: string) => (text += s) };
  await main([...name.split(' '), '--help'], sink);
  return text;
}

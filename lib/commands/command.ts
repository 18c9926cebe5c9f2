/** The shape every CLI command module exports. */
import type { OptionFields, OptionValues } from '../options/field.js';

export interface CommandContext {
  /** Options shown under their own heading in --help and the docs: heading -> field names. */
  optionGroups?: Record<string, string[]>;
  /** Positional arguments (only for commands that declare `arguments`). */
  positionals: string[];
  /** The flags given on the command line, e.g. '--eps' (not the defaults). */
  given: ReadonlySet<string>;
}

export interface Command<F extends OptionFields = OptionFields> {
  /** What --help prints between the usage line and the options. */
  description: string;
  /** The options, declared once: flags, --help lines, validation and docs come from them. */
  options: F;
  /** Options shown under their own heading in --help and the docs: heading -> field names. */
  optionGroups?: Record<string, string[]>;
  /** Positional arguments in commander's syntax, e.g. '<A.mrg> [B.mrg]'. */
  arguments?: string;
  /** Command lines shown under "Examples:" in --help and in docs/cli.md. */
  examples: string[];
  /** Runs with validated options; returns the process exit code (0 when omitted). */
  run(values: OptionValues<F>, context: CommandContext): Promise<number | void>;
}

/** Checks a command module's shape and keeps its option types. */
export function defineCommand<F extends OptionFields>(command: Command<F>): Command<F> {
  return command;
}

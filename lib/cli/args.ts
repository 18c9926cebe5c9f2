/** Thin wrapper over node:util parseArgs that reports problems as UsageError. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

type OptionValue<S> = S extends { type: 'boolean' }
  ? S extends { multiple: true } ? boolean[] : boolean
  : S extends { multiple: true } ? string[] : string;

export interface ParsedArgs<O extends OptionSpec> {
  values: { [K in keyof O]?: OptionValue<O[K]> };
  positionals: string[];
}

export function parseCommandArgs<O extends OptionSpec>(
  command: string,
  args: string[],
  options: O,
  allowPositionals = true,
): ParsedArgs<O> {
  // `--epochs -1` would be refused as an ambiguous option: pass a negative number on as the
  // value, so the option's own check names the flag and the bad value in one line.
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const name = args[i].startsWith('--') ? args[i].slice(2) : undefined;
    if (name !== undefined && options[name]?.type === 'string' && i + 1 < args.length && /^-(\d|\.\d|inf)/i.test(args[i + 1])) {
      joined.push(`${args[i]}=${args[++i]}`);
    } else joined.push(args[i]);
  }
  try {
    const parsed = parseArgs({ args: joined, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals, strict: true });
    return { values: parsed.values as ParsedArgs<O>['values'], positionals: parsed.positionals };
  } catch (err) {
    // node:util's messages can span lines; the CLI reports usage errors on one.
    throw new UsageError(`${command}: ${(err as Error).message.replace(/\s*\n\s*/g, ' ')}`);
  }
}

export function requireOption(command: string, value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`${command}: missing required option --${flag}`);
  return value;
}

export function numberOption(command: string, value: string | undefined, flag: string, fallback: number, check?: (n: number) => boolean): number {
  if (value === undefined) return fallback;
  // Number('') and Number(' ') are 0: a blank value must not pass as zero.
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isFinite(n) || (check && !check(n))) throw new UsageError(`${command}: invalid value for --${flag}: '${value}'`);
  return n;
}

export function intOption(command: string, value: string | undefined, flag: string, fallback: number, min = 0): number {
  return numberOption(command, value, flag, fallback, (n) => Number.isInteger(n) && n >= min);
}

/**
 * Options declared once. A command's (or trainer's) options are a record of zod fields, each
 * with its type, range, default and a one-line description (`.describe()`). From that one
 * record come the command-line flags and their --help lines (`addOptions`), the validation
 * of the values typed on the command line (`parseOptions`, errors name the flag), the JSON
 * Schema of the pipeline config (zod's own `z.toJSONSchema`) and the option tables of
 * docs/cli.md (`optionRows`).
 *
 * A field's flag is its name in kebab case (`sgdWarmup` -> `--sgd-warmup`). A boolean that
 * defaults to true is spelled `--no-<flag>` (`verbFeatures` -> `--no-verb-features`).
 */
import { Option, type Command as Commander } from 'commander';
import { z } from 'zod';
import { UsageError } from '../errors.js';
import {
  baseOf,
  cliMeta,
  defaultOf,
  defOf,
  descriptionOf,
  type OptionFields,
  type OptionValues,
} from '../options/field.js';

export { defaultOf, descriptionOf, option, type OptionFields, type OptionValues } from '../options/field.js';

type Kind = 'boolean' | 'number' | 'numberList' | 'stringList' | 'string';

function kindOf(schema: z.ZodType): Kind {
  const d = defOf(baseOf(schema));
  if (d.type === 'boolean') return 'boolean';
  if (d.type === 'number') return 'number';
  if (d.type === 'literal') return typeof d.values?.[0] === 'number' ? 'number' : 'string';
  if (d.type === 'union' && d.options?.every((o) => kindOf(o) === 'number')) return 'number';
  if (d.type === 'array') return d.element && kindOf(d.element) === 'number' ? 'numberList' : 'stringList';
  return 'string';
}

/** The allowed values of an enum (or a union of literals), else undefined. */
export function choicesOf(schema: z.ZodType): string[] | undefined {
  const d = defOf(baseOf(schema));
  if (d.type === 'enum' && d.entries) return Object.values(d.entries).map(String);
  if (d.type === 'union' && d.options?.every((o) => defOf(o).type === 'literal'))
    return d.options.map((o) => String(defOf(o).values?.[0]));
  return undefined;
}

const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The flag of a field as typed, without the dashes (`no-verb-features` for negated booleans). */
export function flagOf(name: string, schema: z.ZodType): string {
  const flag = cliMeta.get(schema)?.flag ?? kebab(name);
  return kindOf(schema) === 'boolean' && defaultOf(schema) === true ? `no-${flag}` : flag;
}

function placeholderOf(schema: z.ZodType): string {
  const given = cliMeta.get(schema)?.value;
  if (given !== undefined) return given;
  const choices = choicesOf(schema);
  if (choices) return choices.join('|');
  const kind = kindOf(schema);
  if (kind === 'numberList') return 'X[,X...]';
  if (kind === 'stringList') return 'A[,B...]';
  if (kind === 'number') return rangeOf(schema).integer ? 'N' : 'X';
  return 'F';
}

interface Range {
  integer: boolean;
  text: string;
}

/** The numeric range a schema accepts, as text ('integer >= 1', '> 0 and <= 1'). */
function rangeOf(schema: z.ZodType): Range {
  let s = baseOf(schema);
  if (defOf(s).type === 'array' && defOf(s).element) s = baseOf(defOf(s).element as z.ZodType);
  if (defOf(s).type !== 'number') return { integer: false, text: '' };
  const j = z.toJSONSchema(s, { unrepresentable: 'any' }) as Record<string, number | string | undefined>;
  const integer = j.type === 'integer';
  const parts: string[] = [];
  if (j.exclusiveMinimum !== undefined) parts.push(`> ${j.exclusiveMinimum}`);
  else if (j.minimum !== undefined && j.minimum !== Number.MIN_SAFE_INTEGER) parts.push(`>= ${j.minimum}`);
  if (j.exclusiveMaximum !== undefined) parts.push(`< ${j.exclusiveMaximum}`);
  else if (j.maximum !== undefined && j.maximum !== Number.MAX_SAFE_INTEGER) parts.push(`<= ${j.maximum}`);
  return { integer, text: [integer ? 'integer' : 'number', parts.join(' and ')].filter((p) => p !== '').join(' ') };
}

function formatDefault(value: unknown): string {
  if (Array.isArray(value)) return value.join(',');
  if (value === Number.POSITIVE_INFINITY) return 'none';
  return String(value);
}

/** One row of a command's option table: what --help and docs/cli.md show. */
export interface OptionRow {
  /** The field's name. */
  name: string;
  flag: string;
  value?: string;
  description: string;
  type: string;
  default?: string;
  required: boolean;
}

export function optionRows(fields: OptionFields): OptionRow[] {
  const rows: OptionRow[] = [];
  for (const [name, schema] of Object.entries(fields)) {
    if (cliMeta.get(schema)?.cli === false) continue;
    const kind = kindOf(schema);
    const dflt = defaultOf(schema);
    const choices = choicesOf(schema);
    const range = rangeOf(schema).text;
    const type = choices
      ? `one of ${choices.join(', ')}`
      : kind === 'boolean'
        ? 'flag'
        : kind === 'numberList'
          ? `list of ${range}`
          : kind === 'stringList'
            ? 'list'
            : kind === 'number'
              ? range
              : 'text';
    rows.push({
      name,
      flag: `--${flagOf(name, schema)}`,
      value: kind === 'boolean' ? undefined : placeholderOf(schema),
      description: descriptionOf(schema),
      type,
      default: dflt === undefined || kind === 'boolean' ? undefined : formatDefault(dflt),
      required: !schema.safeParse(undefined).success,
    });
  }
  return rows;
}

/** Declares the fields as commander options (for parsing and --help). */
export function addOptions(command: Commander, fields: OptionFields, groups: Record<string, string[]> = {}): void {
  for (const row of optionRows(fields)) {
    const extras = [row.required ? 'required' : '', row.default !== undefined ? `default ${row.default}` : ''].filter(
      (t) => t !== '',
    );
    const text = `${row.description}${extras.length > 0 ? ` (${extras.join('; ')})` : ''}`;
    const opt = new Option(row.value === undefined ? row.flag : `${row.flag} <${row.value}>`, text);
    const group = Object.entries(groups).find(([, names]) => names.includes(row.name));
    opt.helpGroup(group ? group[0] : 'Options:');
    command.addOption(opt);
  }
}

/** Options that take a value, by flag: for the ambiguity check of `checkArgs`. */
export function valueFlags(fields: OptionFields): Set<string> {
  return new Set(
    optionRows(fields)
      .filter((r) => r.value !== undefined)
      .map((r) => r.flag),
  );
}

/**
 * Refuses `--model --input x`: commander would read '--input' as the model file. A value
 * starting with a dash that is not a number must be written `--model=-x`.
 */
export function checkArgs(command: string, args: readonly string[], flags: Set<string>): void {
  for (let i = 0; i + 1 < args.length; i++) {
    if (args[i] === '--') return;
    const next = args[i + 1];
    if (flags.has(args[i]) && next.startsWith('-') && next !== '-' && !/^-(\d|\.\d|inf)/i.test(next)) {
      throw new UsageError(
        `${command}: Option '${args[i]}' argument is ambiguous. Did you forget to specify the option argument for '${args[i]}'? ` +
          `To specify an option argument starting with a dash use '${args[i]}=-XYZ'.`,
      );
    }
  }
}

function coerce(kind: Kind, raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  // Number('') and Number(' ') are 0: a blank value must not pass as zero.
  const num = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text));
  if (kind === 'number') return num(raw);
  if (kind === 'numberList') return raw.split(',').map(num);
  if (kind === 'stringList') return raw.split(',').map((t) => t.trim());
  return raw;
}

function englishList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/**
 * Validates the values commander collected (strings and booleans, keyed by camel-case
 * name) against the fields, and returns them typed with the defaults filled in. A missing
 * required option or a bad value is a UsageError naming the flag.
 */
export function parseOptions<F extends OptionFields>(
  command: string,
  fields: F,
  raw: Record<string, unknown>,
): OptionValues<F> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(fields)) {
    const flag = `--${flagOf(name, schema)}`;
    const given = raw[commanderKey(flagOf(name, schema))];
    if (given === undefined && !schema.safeParse(undefined).success)
      throw new UsageError(`${command}: missing required option ${flag}`);
    const r = schema.safeParse(coerce(kindOf(schema), given));
    if (!r.success) {
      // What is allowed: the choices, else the numeric range ('integer >= 1').
      const choices = choicesOf(schema);
      const allowed = choices ? englishList(choices) : rangeOf(schema).text;
      throw new UsageError(
        `${command}: invalid value for ${flag}: '${String(given)}'${allowed ? ` (${kindOf(schema) === 'numberList' ? 'a list, each ' : ''}${allowed})` : ''}`,
      );
    }
    out[name] = r.data;
  }
  return out as OptionValues<F>;
}

/** commander's attribute name of a flag: camel case, without a `no-` prefix. */
function commanderKey(flag: string): string {
  return flag.replace(/^no-/, '').replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * The flag of the first of `names` (default: every field) that was given on the command line,
 * or undefined: for "applies only to" checks against a command's `given` set.
 */
export function firstGivenFlag(
  fields: OptionFields,
  given: ReadonlySet<string>,
  names: readonly string[] = Object.keys(fields),
): string | undefined {
  return names.map((name) => `--${flagOf(name, fields[name])}`).find((flag) => given.has(flag));
}

/** Which of the fields were given on the command line (for "applies only to" checks). */
export function givenFlags(fields: OptionFields, raw: Record<string, unknown>, command: Commander): string[] {
  return Object.entries(fields)
    .filter(([name, schema]) => {
      const key = commanderKey(flagOf(name, schema));
      return raw[key] !== undefined && command.getOptionValueSource(key) === 'cli';
    })
    .map(([name, schema]) => `--${flagOf(name, schema)}`);
}

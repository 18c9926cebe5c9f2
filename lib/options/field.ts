/**
 * One option field: a zod schema with its type, range, default and a one-line description,
 * plus, apart from zod's global registry (so it stays out of JSON Schemas), how it is
 * spelled on the command line. Trainers, commands and the pipeline config declare their
 * options with `option()`; lib/commands/options.ts turns them into flags, --help and docs.
 */
import { z } from 'zod';

/** How a field is spelled on the command line, beyond what the schema says. */
export interface CliMeta {
  /** Placeholder of the value in --help, e.g. 'F' or 'word,pos,...' (default: from the type). */
  value?: string;
  /** The flag when it is not the kebab-case field name. */
  flag?: string;
  /** Not a command-line flag (an API or config-only field). */
  cli?: false;
}

export const cliMeta = z.registry<CliMeta>();

export type OptionFields = Record<string, z.ZodType>;
export type OptionValues<F extends OptionFields> = z.output<z.ZodObject<F>>;

/** A field: `schema` with its one-line description (and optional CLI spelling). */
export function option<T extends z.ZodType>(schema: T, description: string, meta?: CliMeta): T {
  const described = schema.describe(description) as T;
  const inherited = cliMeta.get(schema);
  if (meta || inherited) cliMeta.add(described, { ...inherited, ...meta });
  return described;
}

/** The fields of `fields` named in `names`, as declared (their schemas, defaults and CLI spelling). */
export function pickFields<F extends OptionFields, K extends keyof F & string>(
  fields: F,
  names: readonly K[],
): Pick<F, K> {
  return Object.fromEntries(names.map((name) => [name, fields[name]])) as Pick<F, K>;
}

/** The defaults of the fields that have one (fields without a default are left out). */
export function defaultsOf<F extends OptionFields>(fields: F): Partial<OptionValues<F>> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(fields)) {
    const r = schema.safeParse(undefined);
    if (r.success && r.data !== undefined) out[name] = r.data;
  }
  return out as Partial<OptionValues<F>>;
}

export interface Def {
  type: string;
  innerType?: z.ZodType;
  out?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  values?: unknown[];
  entries?: Record<string, unknown>;
  defaultValue?: unknown;
}

export const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under default / optional / preprocess wrappers. */
export function baseOf(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    const d = defOf(s);
    if (
      (d.type === 'default' || d.type === 'optional' || d.type === 'nullable' || d.type === 'prefault') &&
      d.innerType
    )
      s = d.innerType;
    else if (d.type === 'pipe' && d.out) s = d.out;
    else return s;
  }
}

/** The field's default, when the schema has one. */
export function defaultOf(schema: z.ZodType): unknown {
  let s = schema;
  for (;;) {
    const d = defOf(s);
    if (d.type === 'default') return d.defaultValue;
    if ((d.type === 'optional' || d.type === 'nullable') && d.innerType) s = d.innerType;
    else return undefined;
  }
}

/** The one-line description given with `option()` / `.describe()`. */
export function descriptionOf(schema: z.ZodType): string {
  return schema.description ?? baseOf(schema).description ?? '';
}

/** What a field accepts, in words: 'a positive integer', 'a number in (0, 1]', '1 or 2'. */
export function acceptedValues(schema: z.ZodType): string {
  const base = baseOf(schema);
  const d = defOf(base);
  const or = (items: string[]): string =>
    items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
  if (d.type === 'enum' && d.entries) return or(Object.values(d.entries).map((v) => `'${String(v)}'`));
  if (d.type === 'union' && d.options?.every((o) => defOf(o).type === 'literal'))
    return or(d.options.map((o) => String(defOf(o).values?.[0])));
  if (d.type === 'boolean') return 'true or false';
  if (d.type === 'string') return 'a non-empty string';
  if (d.type === 'array')
    return `a non-empty list of ${d.element ? acceptedValues(d.element).replace(/^an? /, '') + 's' : 'values'}`;
  if (d.type !== 'number') return 'valid';
  const j = z.toJSONSchema(base, { unrepresentable: 'any' }) as {
    type?: string;
    minimum?: number;
    maximum?: number;
    exclusiveMinimum?: number;
    exclusiveMaximum?: number;
  };
  const kind = j.type === 'integer' ? 'integer' : 'number';
  const lo =
    j.exclusiveMinimum ?? (j.minimum !== undefined && j.minimum > Number.MIN_SAFE_INTEGER ? j.minimum : undefined);
  const hi =
    j.exclusiveMaximum ?? (j.maximum !== undefined && j.maximum < Number.MAX_SAFE_INTEGER ? j.maximum : undefined);
  if (hi === undefined) {
    if (lo === undefined) return `a finite ${kind}`;
    if (lo === 0 && j.exclusiveMinimum !== undefined) return `a positive ${kind}`;
    if (lo === 1 && kind === 'integer') return 'a positive integer';
    if (lo === 0) return `a non-negative ${kind}`;
    return `a ${kind} ${j.exclusiveMinimum !== undefined ? '>' : '>='} ${lo}`;
  }
  const open = j.exclusiveMinimum !== undefined ? '(' : '[';
  const close = j.exclusiveMaximum !== undefined ? ')' : ']';
  return `a ${kind} in ${open}${lo ?? '-inf'}, ${hi}${close}`;
}

/**
 * Checks the given (not undefined) options of an API call against their fields; the first
 * bad one is an error naming it: `<options>: epochs must be a positive integer`.
 */
export function checkOptions(fields: OptionFields, options: object, fail: (message: string) => Error): void {
  for (const [name, schema] of Object.entries(fields)) {
    const value = (options as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (!schema.safeParse(value).success) throw fail(`${name} must be ${acceptedValues(schema)}`);
  }
}

/**
 * A trainer's API options completed once at its entry: the given values checked against
 * their option fields (lib/options/*), the missing ones filled with the fields' defaults, so
 * the code past the entry reads a complete object and never falls back on a default itself.
 */
import type { z } from 'zod';
import { checkOptions, defaultsOf, type OptionFields } from '../options/field.js';
import { optionError } from '../errors.js';

/** The fields of `F` that have a default, with their output types. */
export type Defaulted<F extends OptionFields> = {
  [K in keyof F as F[K] extends z.ZodDefault<z.ZodType> ? K : never]: z.output<F[K]>;
};

/** `options` with every field of `fields` that has a default filled in. */
export type Completed<O, F extends OptionFields> = Omit<O, keyof Defaulted<F>> & Defaulted<F>;

/**
 * Checks the given options against `fields` (the first bad one is a UsageError naming it)
 * and fills in the defaults of those not given.
 */
export function completeOptions<O extends object, F extends OptionFields>(fields: F, options: O): Completed<O, F> {
  checkOptions(fields, options, (message) => optionError(message));
  return withDefaults(fields, options);
}

/** Fills in the defaults of the fields not given (no check: for values checked otherwise). */
export function withDefaults<O extends object, F extends OptionFields>(fields: F, options: O): Completed<O, F> {
  return fillDefaults(defaultsOf(fields), options) as unknown as Completed<O, F>;
}

/** `options` with the entries of `defaults` it does not give (or gives as undefined) filled in. */
export function fillDefaults<D extends object, O extends object>(
  defaults: D,
  options: O,
): Omit<O, keyof D> & { [K in keyof D]: K extends keyof O ? Exclude<O[K], undefined> | D[K] : D[K] } {
  const out = { ...options } as Record<string, unknown>;
  for (const [name, value] of Object.entries(defaults)) if (out[name] === undefined) out[name] = value;
  return out as Omit<O, keyof D> & { [K in keyof D]: K extends keyof O ? Exclude<O[K], undefined> | D[K] : D[K] };
}

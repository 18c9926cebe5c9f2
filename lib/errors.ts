/**
 * One error family: every error structrank throws on purpose is a `StructrankError` with a
 * stable `code` (docs/errors.md). The C++ core throws typed exceptions that the binding turns
 * into these classes (`nativeError` below is the factory it calls), so a script tells errors
 * apart by class or `code`, never by message. The CLI maps codes to exit codes.
 */

/** The stable codes, one per error class. */
export type StructrankErrorCode =
  | 'ERR_STRUCTRANK_INPUT'
  | 'ERR_STRUCTRANK_MODEL'
  | 'ERR_STRUCTRANK_MODEL_KIND'
  | 'ERR_STRUCTRANK_IO'
  | 'ERR_STRUCTRANK_USAGE'
  | 'ABORT_ERR'
  | 'ERR_STRUCTRANK_INTERNAL';

/**
 * Base class of every error structrank throws on purpose.
 *
 * @example
 * ```ts
 * try {
 *   await Tagger.load('model.bin');
 * } catch (err) {
 *   if (err instanceof StructrankError && err.code === 'ERR_STRUCTRANK_MODEL_KIND') console.error('not a tagger model');
 * }
 * ```
 */
export abstract class StructrankError extends Error {
  abstract readonly code: StructrankErrorCode;
}

/**
 * Bad input data: names the file, the line (when known) and the problem. `file` is '' for
 * input that came from memory (e.g. the native core checking arrays), then the message is
 * the problem alone. Code `ERR_STRUCTRANK_INPUT`; CLI exit code 1.
 *
 * @example
 * ```ts
 * readTreesSync('bad.mrg'); // InputError: bad.mrg:12: unbalanced brackets (err.file, err.line, err.problem)
 * ```
 */
export class InputError extends StructrankError {
  readonly code: StructrankErrorCode = 'ERR_STRUCTRANK_INPUT';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly problem: string,
  ) {
    super(file === '' ? problem : line === undefined ? `${file}: ${problem}` : `${file}:${line}: ${problem}`);
    this.name = 'InputError';
  }
}

/**
 * A model file that cannot be read: not a model, truncated, corrupted, from a newer
 * structrank, or a payload the native core rejects. Code `ERR_STRUCTRANK_MODEL`; exit code 1.
 *
 * @example
 * ```ts
 * await Tagger.load('truncated.model'); // ModelFileError: truncated.model: model file is truncated
 * ```
 */
export class ModelFileError extends InputError {
  override readonly code: StructrankErrorCode = 'ERR_STRUCTRANK_MODEL';
  constructor(file: string, problem: string) {
    super(file, undefined, problem);
    this.name = 'ModelFileError';
  }
}

/**
 * A valid model file of another kind than the one asked for (e.g. a parser model given to
 * `Tagger.load`). Code `ERR_STRUCTRANK_MODEL_KIND`; exit code 1.
 *
 * @example
 * ```ts
 * await Tagger.load('parser.model'); // ModelKindError: err.expected 'tagger', err.found 'chart-parser'
 * ```
 */
export class ModelKindError extends ModelFileError {
  override readonly code: StructrankErrorCode = 'ERR_STRUCTRANK_MODEL_KIND';
  constructor(
    file: string,
    readonly expected: string,
    readonly found: string,
  ) {
    super(file, `expected a '${expected}' model, found '${found}'`);
    this.name = 'ModelKindError';
  }
}

/**
 * A file or folder that cannot be read or written (missing, a directory, no permission,
 * disk full). `cause` is Node's error (its `code`, e.g. ENOENT). Code `ERR_STRUCTRANK_IO`;
 * exit code 1.
 *
 * @example
 * ```ts
 * readTreesSync('missing.mrg'); // IoError: missing.mrg: no such file ((err.cause as NodeJS.ErrnoException).code === 'ENOENT')
 * ```
 */
export class IoError extends InputError {
  override readonly code: StructrankErrorCode = 'ERR_STRUCTRANK_IO';
  constructor(file: string, problem: string, options?: { cause?: unknown }) {
    super(file, undefined, problem);
    this.name = 'IoError';
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/**
 * A bad option or command-line usage (an out-of-range value, an unknown flag, a missing
 * argument). Code `ERR_STRUCTRANK_USAGE`; the CLI prints it with a pointer to --help, exit code 2.
 *
 * @example
 * ```ts
 * parseColumns('word,pos,word'); // UsageError: --columns: column 'word' named twice
 * ```
 */
export class UsageError extends StructrankError {
  readonly code: StructrankErrorCode = 'ERR_STRUCTRANK_USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A bad option given to an API call (a trainer's or a batch verb's options object): a
 * UsageError whose message starts with `<options>:`.
 *
 * @example
 * ```ts
 * await Tagger.train(rows, { algo: 'crf', columns: ['word', 'ne'], label: 'pos' }); // UsageError: <options>: label column 'pos' is not among the columns [word, ne]
 * ```
 */
export function optionError(problem: string): UsageError {
  return new UsageError(`<options>: ${problem}`);
}

/** A long job stopped by its AbortSignal (or Ctrl-C). Code `ABORT_ERR` (Node's); exit code 130. *
 * @example
 * ```ts
 * await Tagger.train(rows, options, { signal: AbortSignal.timeout(1000) }); // AbortError when the second is up
 * ```
 */
export class AbortError extends StructrankError {
  readonly code: StructrankErrorCode = 'ABORT_ERR';
  constructor(message = 'The operation was aborted') {
    super(message);
    this.name = 'AbortError';
  }
}

/** A bug: a state structrank should never reach (please report it). Code `ERR_STRUCTRANK_INTERNAL`; exit code 70. *
 * @example
 * ```ts
 * if (err instanceof InternalError) console.error('please report:', err.message);
 * ```
 */
export class InternalError extends StructrankError {
  readonly code: StructrankErrorCode = 'ERR_STRUCTRANK_INTERNAL';
  constructor(message: string) {
    super(message);
    this.name = 'InternalError';
  }
}

/** Throws AbortError when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError();
}

/**
 * A check for long synchronous loops on the JS thread. A Ctrl-C reaches its handler only when
 * the event loop runs, so a loop that never awaits cannot be stopped. The returned function
 * yields to the event loop once `intervalMs` have passed since its last yield, then throws
 * AbortError when the signal has fired.
 */
export function abortCheckpoint(signal: AbortSignal | undefined, intervalMs = 100): () => Promise<void> {
  let last = Date.now();
  return async () => {
    if (signal === undefined) return;
    if (Date.now() - last >= intervalMs) {
      // Signals are read in the poll phase; setImmediate's callback runs right after it.
      await new Promise((resolve) => setImmediate(resolve));
      last = Date.now();
    }
    throwIfAborted(signal);
  };
}

/** The error kinds of the C++ core (native/core/errors.h), as the binding names them. */
export type NativeErrorKind = 'input' | 'model' | 'cancelled' | 'internal';

/**
 * The factory the binding calls to turn a C++ exception into a JS error: each native kind
 * maps to one class here (registered once in lib/native.ts).
 */
export function nativeError(kind: NativeErrorKind, message: string): StructrankError {
  switch (kind) {
    case 'input':
      return new InputError('', undefined, message);
    case 'model':
      return new ModelFileError('', message);
    case 'cancelled':
      return new AbortError();
    default:
      return new InternalError(`native error: ${message}`);
  }
}

/**
 * The native core reads model payloads without knowing their file: its ModelFileError names
 * none. This returns the same error naming `file` (any other error unchanged), for the
 * loaders to rethrow; the class decides, never the message.
 */
export function inModelFile(err: unknown, file: string): unknown {
  if (err instanceof ModelFileError && !(err instanceof ModelKindError) && err.file === '')
    return new ModelFileError(file, err.problem);
  return err;
}

/** CLI exit codes by error code (docs/errors.md). */
export const EXIT_CODES: Readonly<Record<StructrankErrorCode, number>> = {
  ERR_STRUCTRANK_INPUT: 1,
  ERR_STRUCTRANK_MODEL: 1,
  ERR_STRUCTRANK_MODEL_KIND: 1,
  ERR_STRUCTRANK_IO: 1,
  ERR_STRUCTRANK_USAGE: 2,
  ABORT_ERR: 130,
  ERR_STRUCTRANK_INTERNAL: 70,
};

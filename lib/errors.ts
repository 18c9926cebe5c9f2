/** Errors that structrank reports to users as one line, without a stack trace. */

/** Bad input data: names the file, the line (when known) and the problem. */
export class InputError extends Error {
  readonly code = 'ERR_STRUCTRANK_INPUT';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly problem: string,
  ) {
    super(line === undefined ? `${file}: ${problem}` : `${file}:${line}: ${problem}`);
    this.name = 'InputError';
  }
}

/** Bad command-line usage or options: the CLI prints it with a pointer to --help. */
export class UsageError extends Error {
  readonly code = 'ERR_STRUCTRANK_USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Raised when an AbortSignal stops a long job. */
export class AbortError extends Error {
  readonly code = 'ABORT_ERR';
  constructor(message = 'The operation was aborted') {
    super(message);
    this.name = 'AbortError';
  }
}

/** Throws AbortError when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError();
}

/** The shape every CLI command module exports. */
export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Full usage text for --help. */
  usage: string;
  /** Returns the process exit code (0 when omitted). */
  run(args: string[]): Promise<number | void>;
}

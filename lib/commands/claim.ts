/**
 * A command's claim on its outputs (lib/io/outputs.ts: no output is an input, one writer per
 * output file), with Ctrl-C handled from then on: the first stops the run, the second exits
 * at once; either way the output locks and temp files are removed (lib/commands/signal.ts).
 *
 * Not while an input is a pipe: reading one blocks the JS thread (lib/io/lines.ts), where no
 * signal handler could run, so Ctrl-C keeps its default action there until the command
 * installs the handler itself after reading; a lock left by a process killed that way names
 * a dead pid and is taken over by the next run.
 */
import { isStream } from '../io/lines.js';
import { claimOutputs as claim, type NamedFiles, type OutputClaim } from '../io/outputs.js';
import { cliSignal } from './signal.js';

export function claimOutputs(command: string, inputs: NamedFiles, outputs: NamedFiles): OutputClaim {
  // First: a Ctrl-C once the lock files exist must find the handler that removes them.
  if (!Object.values(inputs).some((file) => file !== undefined && isStream(file))) cliSignal();
  return claim(command, inputs, outputs);
}

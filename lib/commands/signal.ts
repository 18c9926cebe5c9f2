/**
 * The CLI's cancellation signal: the first Ctrl-C (SIGINT) or SIGTERM aborts it, so long
 * native jobs stop at their next check and nothing half-written is left behind; a second
 * Ctrl-C exits at once.
 */
import { removePendingTempFiles } from '../io/atomic-writer.js';
import { releaseAllLocks } from '../io/folder-lock.js';

const controller = new AbortController();
let installed = false;

export function cliSignal(): AbortSignal {
  if (!installed) {
    installed = true;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (controller.signal.aborted) {
        // Not process.exit: it waits for native work still running on the thread pool. Drop
        // the temp files and output locks, then let the signal's default action end the process at once.
        removePendingTempFiles();
        releaseAllLocks();
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        process.kill(process.pid, signal);
        return;
      }
      process.stderr.write('\nstructrank: stopping (press Ctrl-C again to exit at once)\n');
      controller.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  return controller.signal;
}

/**
 * Lets a Ctrl-C that arrived during synchronous work reach its handler: the event loop runs
 * its timers, then polls (where signals are read), then its check phase.
 */
export async function deliverPendingSignals(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  await new Promise((resolve) => setImmediate(resolve));
}

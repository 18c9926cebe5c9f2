/**
 * The CLI's cancellation signal: the first Ctrl-C (SIGINT) or SIGTERM aborts it, so long
 * native jobs stop at their next check and nothing half-written is left behind; a second
 * Ctrl-C exits at once.
 */
import { removePendingTempFiles } from '../io/atomic-writer.js';

const controller = new AbortController();
let installed = false;

export function cliSignal(): AbortSignal {
  if (!installed) {
    installed = true;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (controller.signal.aborted) {
        // Not process.exit: it waits for native work still running on the thread pool. Drop
        // the temp files, then let the signal's default action end the process at once.
        removePendingTempFiles();
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

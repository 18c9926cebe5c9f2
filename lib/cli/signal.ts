/**
 * The CLI's cancellation signal: the first Ctrl-C (SIGINT) or SIGTERM aborts it, so long
 * native jobs stop at their next check and nothing half-written is left behind; a second
 * Ctrl-C exits at once.
 */
const controller = new AbortController();
let installed = false;

export function cliSignal(): AbortSignal {
  if (!installed) {
    installed = true;
    const onSignal = (): void => {
      if (controller.signal.aborted) process.exit(130);
      process.stderr.write('\nstructrank: stopping (press Ctrl-C again to exit at once)\n');
      controller.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  return controller.signal;
}

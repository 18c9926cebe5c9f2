#!/usr/bin/env node
/** The `structrank` command line: dispatches to lib/commands/* (see lib/cli/program.ts). */
import { main } from './cli/program.js';

// Output piped into `head` closes early: stop quietly instead of printing EPIPE traces.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(`structrank: ${(err as Error)?.message ?? String(err)}`);
    process.exitCode = 70;
  },
);

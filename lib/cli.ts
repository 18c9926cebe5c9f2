#!/usr/bin/env node
/** The `structrank` command line: dispatches to lib/commands/* (see lib/cli/program.ts). */

// Output piped into `head` closes early: stop quietly instead of printing EPIPE traces.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

const argv = process.argv.slice(2);
// A plain `tag` runs without loading the whole command tree (lib/cli/fast-tag.ts).
const fast = argv[0] === 'tag' ? await (await import('./cli/fast-tag.js')).fastTag(argv) : undefined;
if (fast !== undefined) process.exitCode = fast;
else (await import('./cli/program.js')).main(argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(`structrank: ${(err as Error)?.message ?? String(err)}`);
    process.exitCode = 70;
  },
);

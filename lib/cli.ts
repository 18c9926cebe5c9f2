#!/usr/bin/env node
/** The `structrank` command line: dispatches to lib/commands/* (see lib/cli/program.ts). */

// Output piped into `head` closes early: stop quietly instead of printing EPIPE traces.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

/** A plain `tag` runs without loading the whole command tree (lib/cli/fast-tag.ts). */
async function run(argv: string[]): Promise<number> {
  if (argv[0] === 'tag') {
    const code = await (await import('./cli/fast-tag.js')).fastTag(argv);
    if (code !== undefined) return code;
  }
  return (await import('./cli/program.js')).main(argv);
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(`structrank: ${(err as Error)?.message ?? String(err)}`);
    process.exitCode = 70;
  },
);

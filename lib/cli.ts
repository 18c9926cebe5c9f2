#!/usr/bin/env node
/** The `structrank` command line: dispatches to lib/commands/*. */
import { commands } from './commands/index.js';
import { AbortError, EXIT_CODES, InputError, StructrankError, UsageError } from './errors.js';
import { setQuiet } from './progress.js';

const VERSION = '0.1.0';

async function listCommands(): Promise<string> {
  const lines = ['usage: structrank <command> [options]', '', 'commands:'];
  for (const [name, load] of Object.entries(commands)) {
    const cmd = await load();
    lines.push(`  ${name.padEnd(16)} ${cmd.summary}`);
  }
  lines.push('', "run 'structrank <command> --help' for a command's options; --quiet (any command) silences progress lines");
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(await listCommands());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    console.log(VERSION);
    return 0;
  }
  // Two-word commands ('eval parse', 'kernel trees') are keys with a space.
  const pair = rest.length > 0 ? `${name} ${rest[0]}` : '';
  const twoWord = pair !== '' && commands[pair] !== undefined;
  const load = twoWord ? commands[pair] : commands[name];
  if (twoWord) rest.shift();
  if (!load) {
    const subs = Object.keys(commands).filter((k) => k.startsWith(`${name} `));
    if (subs.length > 0) {
      console.error(`structrank: '${name}' needs one of: ${subs.map((k) => k.split(' ')[1]).join(', ')}`);
      return 2;
    }
    console.error(`structrank: unknown command '${name}'\n\n${await listCommands()}`);
    return 2;
  }
  const cmd = await load();
  // --quiet, accepted by every command, silences progress lines (lib/progress.ts).
  if (rest.includes('--quiet')) {
    setQuiet(true);
    rest.splice(0, rest.length, ...rest.filter((a) => a !== '--quiet'));
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(cmd.usage);
    return 0;
  }
  try {
    return (await cmd.run(rest)) ?? 0;
  } catch (err) {
    // One line per error; the exit code comes from the error's code (docs/errors.md).
    if (err instanceof UsageError) {
      console.error(`structrank: ${err.message}\nusage: ${cmd.usage.split('\n')[0]}`);
      return EXIT_CODES[err.code];
    }
    if (err instanceof AbortError || (err as Error)?.name === 'AbortError') {
      console.error('structrank: cancelled');
      return EXIT_CODES.ABORT_ERR;
    }
    if (err instanceof StructrankError && err.code !== 'ERR_STRUCTRANK_INTERNAL') {
      console.error(`structrank: ${err.message}`);
      return EXIT_CODES[err.code];
    }
    console.error(`structrank: internal error: ${(err as Error)?.message ?? String(err)}`);
    if (process.env.STRUCTRANK_DEBUG) console.error((err as Error)?.stack);
    return 70;
  }
}

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

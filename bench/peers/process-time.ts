/**
 * A child process's whole cost, as the benchmarks compare tools: run under /usr/bin/time
 * (user + sys CPU seconds and max RSS from getrusage of the child), with its last stdout
 * line parsed when it is JSON (a tool's own phase timings).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

export interface Measure {
  cpu: number; // whole process, user + sys
  rssMb: number;
  json?: Record<string, number>; // the tool's own phase timings, when it prints them
}

/** Runs `cmd args` under /usr/bin/time (its report goes to `timeFile`); throws when it fails. */
export function measure(cmd: string, args: string[], options: { timeFile: string; stdout?: string }): Measure {
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S %M', '-o', options.timeFile, cmd, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr.slice(-2000)}`);
  if (options.stdout) writeFileSync(options.stdout, r.stdout);
  const [u, s, m] = readFileSync(options.timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  const last = r.stdout.trim().split('\n').pop() ?? '';
  let json: Record<string, number> | undefined;
  if (last.startsWith('{')) json = JSON.parse(last) as Record<string, number>;
  return { cpu: u + s, rssMb: m / 1024, json };
}

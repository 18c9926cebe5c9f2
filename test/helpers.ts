/** Shared test utilities: the shared data sets (test-support/shared-data.ts), the built CLI, temp folders. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { missingDataLine, repoRoot, type SharedDataSet } from '../test-support/shared-data.js';

export {
  repoRoot,
  sharedData,
  dataFile,
  NEEDS_DATA,
  hasData,
  missingDataLine,
  type SharedDataSet,
} from '../test-support/shared-data.js';

/** True on CI, where every test must run: a missing data set fails instead of skipping. */
const onCi = /^(1|true|yes)$/i.test(process.env.CI ?? '');

function standIn(line: string): void {
  if (onCi) {
    it(line, () => {
      throw new Error(`CI=true, so tests may not be skipped: ${line}`);
    });
  } else it.skip(line, () => {});
}

/**
 * describe() for tests that need shared data sets: when one is missing the body is not run
 * (so it may read the data at its top) and a single skipped test names what is missing.
 */
export function describeWithData(sets: readonly SharedDataSet[], title: string, body: () => void): void {
  const line = missingDataLine(sets);
  if (line === undefined) describe(title, body);
  else describe(title, () => standIn(line));
}

/** it() for one test that needs shared data sets; see describeWithData. */
export function itWithData(sets: readonly SharedDataSet[], title: string, fn: () => unknown, timeout?: number): void {
  const line = missingDataLine(sets);
  if (line === undefined) it(title, fn, timeout);
  else standIn(`${line} [${title}]`);
}

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI (dist/cli.js) with the given arguments. */
export function runCli(args: string[], options: { cwd?: string; input?: string } = {}): CliResult {
  const r = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...args], {
    cwd: options.cwd ?? repoRoot,
    input: options.input,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A fresh temporary folder, removed by the returned cleanup function. */
export function tempDir(): {
  dir: string;
  file: (name: string, content?: string | Buffer) => string;
  cleanup: () => void;
} {
  const dir = mkdtempSync(join(tmpdir(), 'structrank-test-'));
  return {
    dir,
    file: (name, content) => {
      const path = join(dir, name);
      if (content !== undefined) writeFileSync(path, content);
      return path;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

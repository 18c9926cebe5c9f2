/** Shared test utilities: paths to the shared data sets and to the built CLI. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** ../shared/data next to the repository (CI places it there), or $STRUCTRANK_SHARED_DATA. */
export const sharedData = process.env.STRUCTRANK_SHARED_DATA ?? resolve(repoRoot, '..', 'shared', 'data');

export function dataFile(...parts: string[]): string {
  return join(sharedData, ...parts);
}

/** The data sets tests read from the shared folder; only gum-open ships in the package (data/). */
export type SharedDataSet = 'ptb-sample' | 'conll2000' | 'conll2002-esp' | 'ud-ewt' | 'floresta-pt';

/** Start of the title of the one test standing in for tests skipped for missing data (scripts/run-tests.mjs counts them). */
export const NEEDS_DATA = 'needs shared data:';

export function hasData(set: SharedDataSet): boolean {
  return existsSync(join(sharedData, set));
}

/** The one line saying what is missing and how to get it; undefined when everything is there. */
export function missingDataLine(sets: readonly SharedDataSet[]): string | undefined {
  const missing = sets.filter((set) => !hasData(set));
  if (missing.length === 0) return undefined;
  const where = missing.map((set) => join(sharedData, set)).join(', ');
  return `${NEEDS_DATA} ${where} missing (put the data sets in ../shared/data or set STRUCTRANK_SHARED_DATA); see README "Tests and data"`;
}

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
export function tempDir(): { dir: string; file: (name: string, content?: string | Buffer) => string; cleanup: () => void } {
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

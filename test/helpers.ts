/** Shared test utilities: paths to the shared data sets and to the built CLI. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** ../shared/data next to the repository (CI places it there), or $STRUCTRANK_SHARED_DATA. */
export const sharedData = process.env.STRUCTRANK_SHARED_DATA ?? resolve(repoRoot, '..', 'shared', 'data');

export function dataFile(...parts: string[]): string {
  return join(sharedData, ...parts);
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

import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** Runs the README's library example as a user would (`npx tsx examples/pipeline.ts <folder>`). */
function runExample(output: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, ['--import', 'tsx', join('examples', 'pipeline.ts'), output], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
}

describe('examples/pipeline.ts', () => {
  it('runs the pipeline through the library API, then resumes from its cache', () => {
    const output = join(tmp.dir, 'example');
    const first = runExample(output);
    expect(first.stderr).not.toMatch(/Error/);
    expect(first.status).toBe(0);
    for (const system of ['base', 'oracle', 'boosting', 'log-linear'])
      expect(first.stdout).toMatch(new RegExp(`^${system}\\b.*\\d+\\.\\d\\d`, 'm'));
    expect(first.stdout).toMatch(/^log-linear: \d+\.\d\d F1 \(-?\d+\.\d% relative error reduction\)$/m);
    expect(existsSync(join(output, 'report.html'))).toBe(true);

    const second = runExample(output);
    expect(second.status).toBe(0);
    expect(second.stderr).toMatch(/^train-fold1of3: cached/m);
    expect(second.stderr).toMatch(/^rerank-log-linear: cached/m);
    // Seeded steps: the resumed run reports the same table (times aside).
    const withoutTimes = (s: string): string => s.replace(/\b\d+(m\d+)?s\b/g, '<time>');
    expect(withoutTimes(second.stdout)).toBe(withoutTimes(first.stdout));
  }, 300_000);
});

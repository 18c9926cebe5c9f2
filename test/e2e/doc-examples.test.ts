/**
 * scripts/check-doc-examples.mjs (CI: .ci/run, "doc examples") on a fixture page: an unmarked
 * block that fails fails the check, a marked one is listed as skipped with its reason and not
 * run, a marked block's options are still checked against `--help`, and ts blocks are
 * type-checked (with a marker's declarations) and run.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

describe('check-doc-examples', () => {
  it('fails on a failing unmarked block and lists the marked ones as skipped', () => {
    const r = spawnSync(
      process.execPath,
      [join(root, 'scripts', 'check-doc-examples.mjs'), 'test/fixtures/doc-examples/page.md'],
      { cwd: root, encoding: 'utf8' },
    );
    const out = r.stdout + r.stderr;
    expect(r.status, out).toBe(1);
    const page = 'test/fixtures/doc-examples/page.md';
    // run: the working sh block and the ts block
    expect(out).toMatch(new RegExp(`ran ${page}:5 \\(sh,`));
    expect(out).toMatch(new RegExp(`ran ${page}:38 \\(ts,`));
    // the unmarked failure fails, with its exit code and its stderr
    expect(out).toContain(`FAIL ${page}:12: exit 3`);
    expect(out).toContain('an unmarked failure');
    // the marked block is listed with its reason, and never ran (it would exit 4)
    expect(out).toContain(`${page}:20 (sh, options checked against --help): not run in CI: trains for an hour`);
    expect(out).not.toMatch(/exit 4/);
    // a marked block's unknown option still fails
    expect(out).toContain(`FAIL ${page}:27: 'structrank train-parser' has no option --no-such-option`);
    expect(out).toContain(`${page}:32 (sh, not checked): needs convert (merging)`);
    // the type error of the marked fragment (its declaration from the marker) fails
    expect(out).toMatch(new RegExp(`FAIL ${page}:46: type errors:[\\s\\S]*TS2322`));
    expect(out).toMatch(/doc examples: 2 run, 1 type-checked, 4 skipped, 3 failed; [\d.]+ CPU s/);
  });
});

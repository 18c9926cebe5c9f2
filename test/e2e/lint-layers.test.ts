/**
 * lib/ is layered (scripts/layers.mjs): the lint rules (scripts/eslint-layers.mjs) fail on an
 * upward import and on a circle, shown on a fixture tree that has both
 * (test/fixtures/layers/lib), and the import-graph check passes on lib/ itself.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixture = join(repo, 'test', 'fixtures', 'layers');

function graph(...args: string[]): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, [join(repo, 'scripts', 'import-graph.mjs'), '--check', ...args], {
    encoding: 'utf8',
  });
  return { status: run.status, out: run.stdout + run.stderr };
}

describe('layers of lib/', () => {
  it('lint fails on an upward import, a lazy one, and on a circle', async () => {
    const eslint = new ESLint({ cwd: repo, overrideConfigFile: join(fixture, 'layers.eslint.config.mjs') });
    const results = await eslint.lintFiles([join(fixture, 'lib')]);
    const found = results
      .flatMap((r) => r.messages.map((m) => `${r.filePath.slice(fixture.length + 5)}:${m.line} ${m.ruleId}`))
      .sort();
    expect(found).toEqual([
      'commands/run.ts:2 layers/no-cycle',
      'distributed/loads-command.ts:3 layers/no-upward-import',
      'io/reads-command.ts:2 layers/no-cycle',
      'io/reads-command.ts:2 layers/no-upward-import',
    ]);
    const io = results.find((r) => r.filePath.endsWith(join('io', 'reads-command.ts')));
    expect(io?.messages.find((m) => m.ruleId === 'layers/no-upward-import')?.message).toBe(
      "layer 'io' may not import '../commands/run.js' (layer 'commands'): lib/ imports only downwards (scripts/layers.mjs)",
    );
  });

  it('the graph check fails on the fixture and names what is wrong', () => {
    const { status, out } = graph('--root', join(fixture, 'lib'));
    expect(status).toBe(1);
    expect(out).toContain('circles: 1 (2 files in them)');
    expect(out).toContain('circle of 2: commands/run.ts io/reads-command.ts');
    expect(out).toContain('upward imports: 2');
    expect(out).toContain('io/reads-command.ts (io) -> commands/run.ts (commands)');
    expect(out).toContain('distributed/loads-command.ts (distributed) -> commands/run.ts (commands) [dynamic]');
  });

  it('lib/ has no circle, no upward import and no file outside a layer', () => {
    const { status, out } = graph();
    expect(out).toContain('circles: 0');
    expect(out).toContain('upward imports: 0');
    expect(out).not.toContain('files in no layer');
    expect(status).toBe(0);
  });
});

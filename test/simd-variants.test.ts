/**
 * Every vector variant of the native hot loops (native/core/simd.h) trains the same model
 * bytes and tags the same labels as the portable one; STRUCTRANK_SIMD picks the variant.
 * A variant the CPU cannot run is skipped, and the test's name says why.
 */
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { native } from '../lib/native.js';
import { Tagger, type TokenRows } from '../lib/tagger/tagger.js';
import { repoRoot, tempDir } from './helpers.js';

const tmp = tempDir();
const info = native().nativeInfo().simd;
afterAll(() => {
  native().forceSimd(info.active);
  tmp.cleanup();
});

/** Sentences of (word, pos, label) with `labels` labels, label mostly a function of the word. */
function corpus(sentences: number, labels: number, seed: number): TokenRows[] {
  let s = seed;
  const next = (n: number): number => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
  const out: TokenRows[] = [];
  for (let i = 0; i < sentences; i++) {
    const rows: string[][] = [];
    const n = 1 + next(25);
    for (let j = 0; j < n; j++) {
      const w = next(300);
      const label = next(5) === 0 ? next(labels) : w % labels;
      rows.push([`w${w}`, `P${w % 11}`, `L${label}`]);
    }
    out.push(rows);
  }
  return out;
}

const columns = ['word', 'pos', 'chunk'];

async function runAll(variant: 'portable' | 'avx2' | 'avx512'): Promise<{ models: Buffer[]; tags: string[][][] }> {
  expect(native().forceSimd(variant)).toBe(true);
  expect(native().nativeInfo().simd.active).toBe(variant);
  const models: Buffer[] = [];
  const tags: string[][][] = [];
  // 23 labels: rows padded to 24; 9: to 16; 40: past the padded widths.
  for (const labels of [23, 9, 40]) {
    const train = corpus(300, labels, labels);
    const test = corpus(60, labels, 1000 + labels);
    for (const algo of ['crf', 'perceptron'] as const) {
      const t = await Tagger.train(train, {
        algo,
        columns,
        label: 'chunk',
        templates: 'chunk',
        epochs: algo === 'crf' ? 8 : 3,
        threads: 1,
      });
      const file = tmp.file(`${variant}-${algo}-${labels}.model`);
      t.save(file);
      models.push(readFileSync(file));
      tags.push(await t.tag(test, { threads: 1 }));
    }
  }
  return { models, tags };
}

describe('vector variants of the native loops', () => {
  let portable: Awaited<ReturnType<typeof runAll>> | undefined;
  it('portable trains and tags (the reference)', async () => {
    portable = await runAll('portable');
    expect(portable.models.length).toBe(6);
  }, 120_000);

  for (const variant of ['avx2', 'avx512'] as const) {
    const supported = info.supported.includes(variant);
    it.skipIf(!supported)(
      `${variant} gives the portable model bytes and tags${supported ? '' : ` (skipped: this CPU lacks ${variant})`}`,
      async () => {
        const got = await runAll(variant);
        expect(portable).toBeDefined();
        for (let i = 0; i < got.models.length; i++) expect(got.models[i].equals(portable!.models[i])).toBe(true);
        expect(got.tags).toEqual(portable!.tags);
      },
      120_000,
    );
  }

  it('refuses a variant the CPU lacks and names unknown ones', () => {
    for (const v of ['avx2', 'avx512'] as const) {
      if (!info.supported.includes(v)) expect(native().forceSimd(v)).toBe(false);
    }
    expect(() => native().forceSimd('sse9' as 'avx2')).toThrow(/portable, avx2 or avx512/);
  });

  /** nativeInfo().simd of a fresh process with STRUCTRANK_SIMD set. */
  const fresh = (value: string): { active: string; description: string } => {
    const script = `const i = require('node-gyp-build')(${JSON.stringify(repoRoot)}).nativeInfo().simd; console.log(JSON.stringify(i));`;
    const r = spawnSync(process.execPath, ['-e', script], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, STRUCTRANK_SIMD: value },
    });
    expect(r.status).toBe(0);
    return JSON.parse(r.stdout) as { active: string; description: string };
  };

  it('STRUCTRANK_SIMD forces a supported variant, and ignores others with the reason', () => {
    const best = info.supported[info.supported.length - 1];
    expect(fresh('portable')).toMatchObject({
      active: 'portable',
      description: expect.stringMatching(/forced by STRUCTRANK_SIMD=portable/),
    });
    expect(fresh('auto').active).toBe(best);
    const unknown = fresh('sse9');
    expect(unknown.active).toBe(best);
    expect(unknown.description).toMatch(/STRUCTRANK_SIMD=sse9 unknown/);
    if (!info.supported.includes('avx512')) {
      const refused = fresh('avx512');
      expect(refused.active).toBe(best);
      expect(refused.description).toMatch(/not supported by this CPU/);
    }
  });
});

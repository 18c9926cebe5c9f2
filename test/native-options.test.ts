// The addon reads every option without a fallback (native/binding/options.h): a missing or
// mistyped field, or an unresolved thread count, is one TypeError naming it, and the process
// carries on. The defaults live in lib/options/, and the TypeScript side passes them all.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { native, resolveThreads } from '../lib/native.js';
import { LBFGS_DEFAULTS } from '../lib/options/lbfgs.js';
import { SYNTHETIC_RERANK_DEFAULTS } from '../lib/options/rerank.js';
import { rerankData, syntheticRerankData, type BoostAddon } from '../lib/rerank/boost.js';

interface LbfgsAddon {
  NativeLbfgs: new (start: { x: Float64Array; f: number; g: Float64Array }, settings: object) => unknown;
}
interface TaggerCtorAddon {
  NativeTagger: new (options: object) => unknown;
}

const small = {
  ...SYNTHETIC_RERANK_DEFAULTS,
  sentences: 20,
  features: 50,
  sharedPerSentence: 5,
  privatePerCandidate: 2,
  candidatesPerSentence: 4,
};
const lbfgsStart = { x: new Float64Array([1, 2]), f: 5, g: new Float64Array([2, 4]) };
const templates = new Int32Array([1, 0, 0, 0]);

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to throw');
}

describe('native option objects', () => {
  it('names the missing field of an option object in a TypeError', () => {
    const { RerankData } = native<BoostAddon>();
    const { features: _f, ...noFeatures } = small;
    void _f;
    const err = thrown(() =>
      RerankData.synthetic({ ...noFeatures, threads: 1 } as Parameters<typeof RerankData.synthetic>[0]),
    );
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toBe("missing option 'features': expected an integer");

    const { armijo: _a, ...noArmijo } = LBFGS_DEFAULTS;
    void _a;
    const { NativeLbfgs } = native<LbfgsAddon>();
    expect(() => new NativeLbfgs(lbfgsStart, noArmijo)).toThrow(
      new TypeError("missing option 'armijo': expected a number"),
    );

    const { NativeTagger } = native<TaggerCtorAddon>();
    expect(() => new NativeTagger({ algorithm: 0, order: 1, numColumns: 1, templates })).toThrow(
      new TypeError("missing option 'beam': expected an integer"),
    );
  });

  it('names a field of the wrong type', () => {
    const { NativeLbfgs } = native<LbfgsAddon>();
    expect(() => new NativeLbfgs(lbfgsStart, { ...LBFGS_DEFAULTS, memory: '6' })).toThrow(
      new TypeError("bad option 'memory': expected an integer"),
    );
    expect(() => new NativeLbfgs(lbfgsStart, { ...LBFGS_DEFAULTS, memory: 6.5 })).toThrow(
      new TypeError("bad option 'memory': expected an integer"),
    );
  });

  it('takes thread counts only as resolveThreads returns them', async () => {
    const { RerankData } = native<BoostAddon>();
    expect(() => RerankData.synthetic({ ...small, threads: 0 })).toThrow(
      /bad option 'threads': expected a thread count >= 1/,
    );
    const data = await syntheticRerankData(small);
    const addon = native<BoostAddon>();
    expect(() => addon.rerankScores(data, 1, new Float64Array(data.numFeatures), 0)).toThrow(/bad threads argument/);
    // The native side uses a count as given, up to its per-thread buffer limit.
    const { maxThreads } = addon.nativeInfo();
    expect(() => addon.rerankScores(data, 1, new Float64Array(data.numFeatures), maxThreads + 1)).toThrow(
      /bad threads argument/,
    );
    expect(resolveThreads(maxThreads + 1, () => {})).toBeLessThanOrEqual(maxThreads);
    expect(() =>
      (addon.rerankScores as (...a: unknown[]) => unknown)(data, 1, new Float64Array(data.numFeatures)),
    ).toThrow(/missing threads argument/);
    // The API resolves an absent or 0 request to the cores, once, in lib/native.ts.
    expect(resolveThreads(undefined)).toBeGreaterThanOrEqual(1);
    expect(addon.rerankScores(data, 1, new Float64Array(data.numFeatures), resolveThreads(0)).chosen).toHaveLength(
      data.sentences,
    );
    const arrays = data.arrays();
    expect((await rerankData(arrays)).candidates).toBe(data.candidates);
  });

  it('leaves the process running after the error', () => {
    const script = [
      "import { native } from './dist/native.js';",
      'try { new (native().NativeLbfgs)({ x: new Float64Array([1]), f: 1, g: new Float64Array([1]) }, { memory: 6 }); }',
      'catch (err) { console.log(err.constructor.name + ": " + err.message); }',
      "console.log('still running');",
    ].join('\n');
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("TypeError: missing option 'gradientTolerance': expected a number\nstill running\n");
  });
});

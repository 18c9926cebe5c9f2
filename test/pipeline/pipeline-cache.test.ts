import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StepCache, stableStringify, stepKey } from '../../lib/pipeline/step-cache.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('step cache', () => {
  it('hashes options independently of key order and reacts to input content', async () => {
    expect(stableStringify({ b: 1, a: [2, { d: 1, c: 2 }] })).toBe('{"a":[2,{"c":2,"d":1}],"b":1}');
    const input = tmp.file('in.txt', 'one');
    const k1 = await stepKey('parse', { k: 50 }, [input]);
    expect(await stepKey('parse', { k: 50 }, [input])).toBe(k1);
    expect(await stepKey('parse', { k: 10 }, [input])).not.toBe(k1);
    writeFileSync(input, 'two');
    expect(await stepKey('parse', { k: 50 }, [input])).not.toBe(k1);
  });

  it('skips a finished step and resumes after an interrupted one', async () => {
    const cache = new StepCache(join(tmp.dir, 'run'));
    const input = tmp.file('train.txt', 'data');
    let calls = 0;
    const interrupted = cache.run('fold', { i: 1 }, [input], async (dir) => {
      calls++;
      writeFileSync(join(dir, 'half'), 'x');
      throw new Error('killed');
    });
    await expect(interrupted).rejects.toThrow('killed');
    expect(readdirSync(cache.root).filter((n) => !n.endsWith('.partial'))).toEqual([]);
    const first = await cache.run('fold', { i: 1 }, [input], async (dir) => {
      calls++;
      writeFileSync(join(dir, 'out.txt'), 'result');
    });
    expect(first.cached).toBe(false);
    expect(existsSync(join(first.dir, 'half'))).toBe(false);
    const second = await cache.run('fold', { i: 1 }, [input], async () => {
      calls++;
    });
    expect(second).toEqual({ dir: first.dir, cached: true });
    expect(readFileSync(join(second.dir, 'out.txt'), 'utf8')).toBe('result');
    expect(calls).toBe(2);
  });
});

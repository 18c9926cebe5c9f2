import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadModel, saveModel, decodeModel, encodeModel } from '../../lib/io/model-file.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const model = {
  kind: 'test-model',
  kindVersion: 3,
  meta: { labels: ['B-NP', 'I-NP'] },
  payload: new Uint8Array([1, 2, 3, 250]),
};

describe('model file container', () => {
  it('round-trips through a file and leaves no temp files', () => {
    const f = tmp.file('m.bin');
    saveModel(f, model);
    const back = loadModel(f, 'test-model');
    expect(back.kind).toBe('test-model');
    expect(back.kindVersion).toBe(3);
    expect(back.meta).toEqual(model.meta);
    expect([...back.payload]).toEqual([1, 2, 3, 250]);
    expect(readdirSync(tmp.dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('writes in parts the bytes encodeModel gives as one buffer', () => {
    for (const options of [{}, { alignPayload: true }]) {
      const f = tmp.file('parts.bin');
      saveModel(f, model, options);
      expect(readFileSync(f).equals(encodeModel(model, options))).toBe(true);
    }
  });

  it('starts the payload at a multiple of 8 bytes when asked, whatever the metadata', () => {
    for (let n = 0; n < 10; n++) {
      const m = { ...model, meta: { labels: ['x'.repeat(n)] } };
      const bytes = encodeModel(m, { alignPayload: true });
      const back = decodeModel(bytes);
      expect(back.payload.byteOffset % 8).toBe(0);
      expect([...back.payload]).toEqual([1, 2, 3, 250]);
      expect(back.meta).toEqual(m.meta);
      expect(encodeModel(m).length).toBeLessThanOrEqual(bytes.length);
    }
  });

  it('detects truncation, corruption, wrong kind and foreign files', () => {
    const bytes = encodeModel(model);
    expect(() => decodeModel(bytes.subarray(0, bytes.length - 5), 'm.bin')).toThrow(/m\.bin: .*(truncated|checksum)/);
    const flipped = Buffer.from(bytes);
    flipped[30] ^= 0xff;
    expect(() => decodeModel(flipped, 'm.bin')).toThrow(/m\.bin: .*(corrupted|truncated)/);
    expect(() => decodeModel(bytes, 'm.bin', 'other')).toThrow(/expected a 'other' model/);
    const f = tmp.file('foreign.bin', 'hello world, not a model at all');
    expect(() => loadModel(f)).toThrow(/bad magic number/);
    expect(() => loadModel(tmp.dir + '/missing.bin')).toThrow(/missing\.bin: no such file/);
  });

  it('does not replace an existing model when the write fails', () => {
    const f = tmp.file('keep.bin');
    saveModel(f, model);
    const before = readFileSync(f);
    expect(() => saveModel(tmp.dir + '/no-such-dir/x.bin', model)).toThrow(/cannot write model/);
    writeFileSync(tmp.dir + '/other', 'x');
    expect(readFileSync(f).equals(before)).toBe(true);
  });
});

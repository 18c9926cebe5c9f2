/**
 * The error family (lib/errors.ts, docs/errors.md): each code from a real bad input, through
 * the package's public entry points, and the native core's errors arriving as the same classes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  AbortError, InputError, IoError, ModelFileError, ModelKindError, StructrankError, Tagger, UsageError, readTreesSync,
} from 'structrank';
import { parseColumns } from 'structrank/formats';
import { rerankData } from 'structrank/rerank';
import * as libErrors from '../lib/errors.js';

const { EXIT_CODES, nativeError } = libErrors;
import { encodeModel } from '../lib/io/model-file.js';
import { runCli, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const rows = [
  [['The', 'DT', 'O'], ['Madrid', 'NNP', 'B-LOC'], ['club', 'NN', 'O']],
  [['Ana', 'NNP', 'B-PER'], ['runs', 'VBZ', 'O']],
];

async function caught(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}

describe('every error code from a real bad input', () => {
  it('ERR_STRUCTRANK_INPUT: a malformed tree names file and line', async () => {
    const f = tmp.file('bad.mrg', '(S (NP a))\n(S (NP b)\n');
    const err = await caught(() => readTreesSync(f));
    expect(err).toBeInstanceOf(InputError);
    expect(err).toBeInstanceOf(StructrankError);
    expect((err as InputError).code).toBe('ERR_STRUCTRANK_INPUT');
    expect((err as InputError).file).toBe(f);
    expect((err as InputError).line).toBe(2);
  });

  it('ERR_STRUCTRANK_IO: a missing file', async () => {
    const err = await caught(() => readTreesSync(tmp.file('x') + '-missing'));
    expect(err).toBeInstanceOf(IoError);
    expect(err).toBeInstanceOf(InputError); // old handlers keep working
    expect((err as IoError).code).toBe('ERR_STRUCTRANK_IO');
    expect(((err as IoError).cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  it('ERR_STRUCTRANK_MODEL and ERR_STRUCTRANK_MODEL_KIND: a truncated model, a model of another kind', async () => {
    const tagger = await Tagger.train(rows, { algo: 'perceptron', columns: ['word', 'pos', 'ne'], label: 'ne', epochs: 2, threads: 1 });
    const file = tmp.file('t.model');
    tagger.save(file);
    const bytes = readFileSync(file);
    const truncated = tmp.file('trunc.model', bytes.subarray(0, bytes.length - 50));
    const bad = await caught(() => Tagger.load(truncated));
    expect(bad).toBeInstanceOf(ModelFileError);
    expect((bad as ModelFileError).code).toBe('ERR_STRUCTRANK_MODEL');
    const other = tmp.file('other.model', encodeModel({ kind: 'chart-parser', kindVersion: 1, meta: {}, payload: new Uint8Array(4) }));
    const kind = await caught(() => Tagger.load(other));
    expect(kind).toBeInstanceOf(ModelKindError);
    expect(kind).toMatchObject({ code: 'ERR_STRUCTRANK_MODEL_KIND', expected: 'tagger', found: 'chart-parser' });
    expect((kind as Error).message).toMatch(/other\.model: expected a 'tagger' model, found 'chart-parser'/);
  });

  it('ERR_STRUCTRANK_USAGE: a column layout that names a column twice', async () => {
    const err = await caught(() => parseColumns('word,pos,word'));
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).code).toBe('ERR_STRUCTRANK_USAGE');
  });

  it('ABORT_ERR: a training stopped by its signal', async () => {
    const err = await caught(() => Tagger.train(rows, { algo: 'crf', columns: ['word', 'pos', 'ne'], label: 'ne', signal: AbortSignal.abort() }));
    expect(err).toBeInstanceOf(AbortError);
    expect((err as AbortError).code).toBe('ABORT_ERR');
  });

  it('the native core throws the same classes: bad arrays give InputError, by kind, not by message', () => {
    const err = (() => {
      try {
        rerankData({
          sentencePtr: new Float64Array([0, 2]), logprob: new Float64Array([0, 0]), score: new Float64Array([1]),
          rowPtr: new Float64Array([0, 0, 0]), cols: new Int32Array(0), numFeatures: 1,
        });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).code).toBe('ERR_STRUCTRANK_INPUT');
    // (lib/errors.ts directly: the classes above come from the built package, a second copy)
    expect(nativeError('model', 'payload truncated')).toBeInstanceOf(libErrors.ModelFileError);
    expect(nativeError('cancelled', '')).toBeInstanceOf(libErrors.AbortError);
    expect(nativeError('internal', 'boom')).toBeInstanceOf(libErrors.InternalError);
  });
});

describe('the CLI maps codes to exit codes', () => {
  it('1 bad input or model, 2 usage, and the table for the rest', () => {
    const bad = tmp.file('bad2.mrg', '(S (NP a)\n');
    let r = runCli(['eval', 'parse', '--gold', bad, '--test', bad]);
    expect(r.status, r.stderr).toBe(1);
    r = runCli(['tag', '--model', tmp.file('junk.model', 'not a model'), '--input', bad]);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/junk\.model: not a structrank model file/);
    r = runCli(['eval', 'parse', '--no-such-flag']);
    expect(r.status).toBe(2);
    expect(EXIT_CODES).toEqual({
      ERR_STRUCTRANK_INPUT: 1, ERR_STRUCTRANK_MODEL: 1, ERR_STRUCTRANK_MODEL_KIND: 1, ERR_STRUCTRANK_IO: 1,
      ERR_STRUCTRANK_USAGE: 2, ABORT_ERR: 130, ERR_STRUCTRANK_INTERNAL: 70,
    });
  });
});

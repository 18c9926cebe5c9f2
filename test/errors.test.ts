/**
 * The error family (lib/errors.ts, docs/errors.md): each code from a real bad input, through
 * the package's public entry points, and the native core's errors arriving as the same classes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AbortError,
  InputError,
  IoError,
  ModelFileError,
  ModelKindError,
  StructrankError,
  Tagger,
  UsageError,
  readTreesSync,
} from 'structrank';
import { parseColumns } from 'structrank/formats';
import { decodeBoostModel, rerankData } from 'structrank/rerank';
import * as libErrors from '../lib/errors.js';

const { EXIT_CODES, nativeError } = libErrors;
import { encodeModel } from '../lib/io/model-file.js';
import { repoRoot, runCli, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const rows = [
  [
    ['The', 'DT', 'O'],
    ['Madrid', 'NNP', 'B-LOC'],
    ['club', 'NN', 'O'],
  ],
  [
    ['Ana', 'NNP', 'B-PER'],
    ['runs', 'VBZ', 'O'],
  ],
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
    const tagger = await Tagger.train(rows, {
      algo: 'perceptron',
      columns: ['word', 'pos', 'ne'],
      label: 'ne',
      epochs: 2,
      threads: 1,
    });
    const file = tmp.file('t.model');
    tagger.save(file);
    const bytes = readFileSync(file);
    const truncated = tmp.file('trunc.model', bytes.subarray(0, bytes.length - 50));
    const bad = await caught(() => Tagger.load(truncated));
    expect(bad).toBeInstanceOf(ModelFileError);
    expect((bad as ModelFileError).code).toBe('ERR_STRUCTRANK_MODEL');
    const other = tmp.file(
      'other.model',
      encodeModel({ kind: 'chart-parser', kindVersion: 1, meta: {}, payload: new Uint8Array(4) }),
    );
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
    const err = await caught(() =>
      Tagger.train(rows, { algo: 'crf', columns: ['word', 'pos', 'ne'], label: 'ne', signal: AbortSignal.abort() }),
    );
    expect(err).toBeInstanceOf(AbortError);
    expect((err as AbortError).code).toBe('ABORT_ERR');
  });

  it('the native core throws the same classes: bad arrays give InputError, by kind, not by message', async () => {
    const err = await caught(() =>
      rerankData({
        sentencePtr: new Float64Array([0, 2]),
        logprob: new Float64Array([0, 0]),
        score: new Float64Array([1]),
        rowPtr: new Float64Array([0, 0, 0]),
        cols: new Int32Array(0),
        numFeatures: 1,
      }),
    );
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).code).toBe('ERR_STRUCTRANK_INPUT');
    // (lib/errors.ts directly: the classes above come from the built package, a second copy)
    expect(nativeError('model', 'payload truncated')).toBeInstanceOf(libErrors.ModelFileError);
    expect(nativeError('cancelled', '')).toBeInstanceOf(libErrors.AbortError);
    expect(nativeError('internal', 'boom')).toBeInstanceOf(libErrors.InternalError);
  });
});

describe('synchronous native calls throw by kind too (the binding maps every method, not only promises)', () => {
  it('a tagger model whose payload the core rejects: ModelFileError naming the file, sync and async', async () => {
    const file = tmp.file(
      'bad-payload.model',
      encodeModel({
        kind: 'tagger',
        kindVersion: 1,
        meta: {
          algo: 'crf',
          columns: ['word', 'ne'],
          label: 'ne',
          inputColumns: ['word'],
          order: 1,
          templates: [],
          trainedSteps: 0,
        },
        payload: new Uint8Array([7, 0, 0]),
      }),
    );
    const sync = await caught(() => Tagger.loadSync(file));
    expect(sync).toBeInstanceOf(ModelFileError);
    expect(sync).toMatchObject({ code: 'ERR_STRUCTRANK_MODEL', file });
    expect((sync as Error).message.startsWith(`${file}: `)).toBe(true);
    const async = await caught(() => Tagger.load(file));
    expect(async).toBeInstanceOf(ModelFileError);
    expect(async).toMatchObject({ code: 'ERR_STRUCTRANK_MODEL', file });
  });

  it('a boosting payload the core rejects (a free function): ModelFileError', async () => {
    const err = await caught(() => decodeBoostModel(new Uint8Array([1, 2, 3])));
    expect(err).toBeInstanceOf(ModelFileError);
    expect((err as ModelFileError).code).toBe('ERR_STRUCTRANK_MODEL');
  });

  it('a bad option to an API call: UsageError', async () => {
    const err = await caught(() => Tagger.train(rows, { algo: 'crf', columns: ['word', 'pos', 'ne'], label: 'chunk' }));
    expect(err).toBeInstanceOf(UsageError);
    expect(err).toMatchObject({ code: 'ERR_STRUCTRANK_USAGE' });
    expect((err as Error).message).toMatch(/^<options>: label column 'chunk' is not among the columns/);
  });

  it('no TypeScript code re-classifies a native error by its message', () => {
    const offenders: string[] = [];
    for (const file of readdirSync(join(repoRoot, 'lib'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    )) {
      const text = readFileSync(join(repoRoot, 'lib', file), 'utf8');
      // Building a family error out of a caught error's message (`new ModelFileError(file, (err as Error).message)`).
      if (/new (?:ModelFileError|ModelKindError|AbortError|InternalError)\([^;]*?\.message\)/.test(text))
        offenders.push(file);
      // Testing a caught error's message: `err.message.includes(...)`, `/.../.test((err as Error).message)`.
      if (/\b(?:err|error|e)(?: as Error\))?\??\.message\.(?:includes|startsWith|endsWith|match)\(/.test(text))
        offenders.push(file);
      if (/\.test\(\(?(?:err|error|e)\b[^)]*\)?\.message\)/.test(text)) offenders.push(file);
    }
    expect(offenders).toEqual([]);
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
      ERR_STRUCTRANK_INPUT: 1,
      ERR_STRUCTRANK_MODEL: 1,
      ERR_STRUCTRANK_MODEL_KIND: 1,
      ERR_STRUCTRANK_IO: 1,
      ERR_STRUCTRANK_USAGE: 2,
      ABORT_ERR: 130,
      ERR_STRUCTRANK_INTERNAL: 70,
    });
  });
});

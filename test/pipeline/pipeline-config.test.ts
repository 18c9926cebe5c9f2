import { afterAll, describe, expect, it } from 'vitest';
import { validatePipelineConfig, readPipelineConfig, pipelineJsonSchema } from '../../lib/pipeline/config.js';
import { existsSync, readdirSync } from 'node:fs';
import { demoConfig, DEMO_SIZES } from '../../lib/pipeline/demo.js';
import { runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const minimal = { task: 'parse', data: { train: 'train.mrg', dev: 'dev.mrg', test: 'test.mrg' } };
const error = (value: unknown): string => {
  try {
    validatePipelineConfig(value, 'pipeline.json', '/data');
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
};

describe('pipeline config', () => {
  it('fills the documented defaults and resolves paths', () => {
    const c = validatePipelineConfig(minimal, 'pipeline.json', '/data');
    expect(c.data).toMatchObject({ train: '/data/train.mrg', format: 'trees' });
    expect(c.folds).toBe(5);
    expect(c.nbest).toBe(20);
    expect(c.threads).toBe(0);
    expect(c.output).toBe('/data/structrank-pipeline');
    expect(c.cache).toBe('/data/structrank-pipeline/cache');
    expect(c.base).toEqual({
      crf: true,
      epochs: 10,
      devPass: true,
      mbr: true,
      posteriors: true,
      margin: 1,
      tagSets: true,
      kbest: 'sum',
      treeModel: true,
      headModel: true,
    });
    expect(c.rerankers.map((r) => [r.type, r.name])).toEqual([
      ['boost', 'boosting'],
      ['loglinear', 'log-linear'],
    ]);
    const t = validatePipelineConfig(
      {
        task: 'tag',
        data: { train: 'a', dev: 'b', test: 'c', columns: ['word', 'pos', 'ne'] },
        rerankers: [{ type: 'perceptron', lambda: 0.5 }],
      },
      'p.json',
      '/d',
    );
    expect(t.data).toMatchObject({ format: 'conll', label: 'ne' });
    expect(t.base).toMatchObject({ algo: 'crf', order: 1, optimizer: 'lbfgs' });
    expect(t.rerankers[0]).toMatchObject({
      name: 'tagging-kernel perceptron',
      lambda: [0.5],
      beta: [0.2],
      mode: 'voted',
      wordFeature: 'none',
      normalize: false,
    });
  });

  it("takes a perceptron's default lambda from its kernel, as structrank rerank does", () => {
    const tag = { task: 'tag', data: { train: 'a', dev: 'b', test: 'c', columns: ['word', 'pos', 'ne'] } };
    const lambdas = (config: object): unknown[] =>
      validatePipelineConfig(config, 'p.json', '/d').rerankers.map((r) =>
        r.type === 'perceptron' ? r.lambda : undefined,
      );
    expect(
      lambdas({ ...tag, rerankers: [{ type: 'perceptron' }, { type: 'perceptron', name: 'p2', lambda: 0.3 }] }),
    ).toEqual([[0.5], [0.3]]);
    expect(
      lambdas({
        ...minimal,
        rerankers: [{ type: 'perceptron' }, { type: 'perceptron', name: 'lin', kernel: 'linear' }],
      }),
    ).toEqual([[0.4], [0.4]]);
  });

  it('lets dev choose between the kernel alone and the kernel with the reranking features, except for the linear kernel', () => {
    const tag = { task: 'tag', data: { train: 'a', dev: 'b', test: 'c', columns: ['word', 'pos', 'ne'] } };
    const weights = (config: object): unknown[] =>
      validatePipelineConfig(config, 'p.json', '/d').rerankers.map((r) =>
        r.type === 'perceptron' ? r.featureWeight : undefined,
      );
    expect(
      weights({
        ...minimal,
        rerankers: [{ type: 'perceptron' }, { type: 'perceptron', name: 'lin', kernel: 'linear' }],
      }),
    ).toEqual([[0, 1], [0]]);
    expect(
      weights({ ...tag, rerankers: [{ type: 'perceptron' }, { type: 'perceptron', name: 'alone', featureWeight: 0 }] }),
    ).toEqual([[0, 1], [0]]);
  });

  it('a bad config gives one clear error naming the field', () => {
    const rr = (r: object) => ({ ...minimal, rerankers: [{ type: 'boost' }, r] });
    expect(error(rr({ type: 'perceptron', lambda: 'x' }))).toBe(
      'pipeline.json: rerankers[1].lambda: expected a number or a list of numbers',
    );
    expect(error(rr({ type: 'perceptron', lambda: [0.3, 'x'] }))).toBe(
      'pipeline.json: rerankers[1].lambda[1]: expected a number in (0, 1]',
    );
    expect(error(rr({ type: 'perceptron', lambda: 2 }))).toBe(
      'pipeline.json: rerankers[1].lambda[0]: expected a number in (0, 1]',
    );
    expect(error(rr({ type: 'svm' }))).toMatch(
      /^pipeline\.json: rerankers\[1\]\.type: expected type 'boost', 'perceptron' or 'loglinear'$/,
    );
    expect(error(rr({ type: 'boost', rounds: 0 }))).toBe(
      'pipeline.json: rerankers[1].rounds: expected a positive integer (rounds)',
    );
    expect(error(rr({ type: 'boost', epz: [0.1] }))).toBe("pipeline.json: rerankers[1]: unknown field 'epz'");
    expect(error({ ...minimal, folds: 1 })).toBe('pipeline.json: folds: expected an integer >= 2');
    // The trainers take seeds >= 0: a negative one is refused before any step runs.
    expect(error({ ...minimal, seed: -1 })).toBe('pipeline.json: seed: expected a non-negative integer (seed)');
    expect(error({ ...minimal, task: 'chunk' })).toBe("pipeline.json: task: expected 'parse' or 'tag'");
    expect(error({ data: minimal.data })).toMatch(/^pipeline\.json: task: required field is missing/);
    expect(error({ ...minimal, data: { train: 'a', dev: 'b' } })).toBe(
      'pipeline.json: data.test: required field is missing',
    );
    expect(error({ ...minimal, base: { markov: 3 } })).toBe('pipeline.json: base.markov: expected 0, 1 or 2');
    expect(error({ ...minimal, base: { algo: 'crf' } })).toBe("pipeline.json: base: unknown field 'algo'");
    expect(error({ ...minimal, data: { ...minimal.data, format: 'conll' } })).toBe(
      "pipeline.json: data.format: task 'parse' needs format 'trees'",
    );
    expect(error({ ...minimal, rerankers: [{ type: 'perceptron', kernel: 'tags' }] })).toBe(
      "pipeline.json: rerankers[0].kernel: the 'tags' kernel needs task 'tag'",
    );
    expect(error({ ...minimal, rerankers: [{ type: 'boost' }, { type: 'boost' }] })).toMatch(
      /rerankers\[1\]\.name: 'boosting' is used twice/,
    );
    expect(error({ ...minimal, extra: true })).toBe("pipeline.json: unknown field 'extra'");
    expect(error({ ...minimal, rerankers: [{ type: 'perceptron', wordFeature: 'caps' }] })).toBe(
      "pipeline.json: rerankers[0].wordFeature: a word feature (Sim2) needs the tagging kernel (kernel 'tree')",
    );
    expect(error({ ...minimal, rerankers: [{ type: 'perceptron', normalize: true }] })).toBe(
      "pipeline.json: rerankers[0].normalize: normalization applies to the tagging kernel only (kernel 'tree')",
    );
    expect(error({ ...minimal, rerankers: [{ type: 'perceptron', kernel: 'linear', featureWeight: [0, 1] }] })).toBe(
      "pipeline.json: rerankers[0].featureWeight: reranking features are added to the tree or tagging kernel (the linear kernel's features are its own)",
    );
    expect(error(rr({ type: 'perceptron', normalize: 'yes' }))).toBe(
      'pipeline.json: rerankers[1].normalize: expected true or false',
    );
    expect(error(rr({ type: 'perceptron', wordFeature: 'case' }))).toBe(
      "pipeline.json: rerankers[1].wordFeature: expected 'none', 'caps', 'digits', 'suffix2', 'suffix3' or 'shape'",
    );
  });

  it('reads files: missing file, bad JSON, and publishes a JSON Schema', () => {
    expect(() => readPipelineConfig(tmp.file('none.json'))).toThrow(/none\.json: no such file/);
    expect(() => readPipelineConfig(tmp.file('bad.json', '{"task": '))).toThrow(/bad\.json: invalid JSON/);
    const schema = pipelineJsonSchema() as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['task', 'data', 'folds', 'nbest', 'rerankers', 'threads', 'output']),
    );
    expect(schema.required).toEqual(expect.arrayContaining(['task', 'data']));
  });

  it('the CLI refuses a bad config with the field in one line (exit 1)', () => {
    const file = tmp.file(
      'pipeline.json',
      JSON.stringify({ ...minimal, rerankers: [{ type: 'boost' }, { type: 'perceptron', lambda: 'x' }] }),
    );
    const r = runCli(['pipeline', '--config', file]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(`structrank: ${file}: rerankers[1].lambda: expected a number or a list of numbers`);
    const u = runCli(['pipeline']);
    expect(u.status).toBe(2);
    expect(u.stderr).toMatch(/missing required option --config/);
    const s = runCli(['pipeline', '--schema']);
    expect(s.status).toBe(0);
    expect(JSON.parse(s.stdout).properties.rerankers).toBeDefined();
  });

  it('the demo config is valid, reads the embedded data and writes under the given folder', () => {
    const c = demoConfig(tmp.dir + '/demo-out', 2);
    for (const f of [c.data.train, c.data.dev, c.data.test]) expect(existsSync(f)).toBe(true);
    expect(c.data).toMatchObject({ maxLength: DEMO_SIZES.maxLength, trainLimit: DEMO_SIZES.trainLimit });
    expect(c.folds).toBe(DEMO_SIZES.folds);
    expect(c.output).toBe(tmp.dir + '/demo-out');
    expect(c.cache).toBe(tmp.dir + '/demo-out/cache');
    expect(c.rerankers.map((r) => r.name)).toEqual(['boosting', 'tree-kernel perceptron', 'log-linear']);
  });

  it('every pipeline config in bench/ is valid and writes under its own output folder', () => {
    const files = readdirSync('bench').filter((f) => f.endsWith('-pipeline.json'));
    expect(files.length).toBeGreaterThan(10);
    const outputs = files.map((f) => readPipelineConfig(`bench/${f}`).output);
    expect(new Set(outputs).size).toBe(files.length);
  });
});

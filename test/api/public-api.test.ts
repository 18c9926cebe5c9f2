/**
 * The public surface, imported through the package name as a user imports it (the package's
 * `exports` map, resolved to the built dist/): every root and subpath export is defined, the
 * root stays small and holds no internals, and every model family has the same verbs.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import ts from 'typescript';
import * as root from 'structrank';
import * as trees from 'structrank/trees';
import * as formats from 'structrank/formats';
import * as evaluation from 'structrank/eval';
import * as kernels from 'structrank/kernels';
import * as parser from 'structrank/parser';
import * as tagger from 'structrank/tagger';
import * as rerank from 'structrank/rerank';
import * as pipeline from 'structrank/pipeline';
import {
  ChartParserModel,
  LinearReranker,
  ModelKindError,
  PerceptronReranker,
  Tagger,
  parseTree,
  readNbestSync,
  type TrainProgress,
} from 'structrank';
import { modelKind } from 'structrank/formats';
import { repoRoot, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const entries: Record<string, Record<string, unknown>> = {
  structrank: root,
  trees,
  formats,
  eval: evaluation,
  kernels,
  parser,
  tagger,
  rerank,
  pipeline,
};

describe('exports', () => {
  it('every export of every entry point is defined', () => {
    for (const [name, mod] of Object.entries(entries)) {
      const keys = Object.keys(mod);
      expect(keys.length, name).toBeGreaterThan(0);
      for (const k of keys) expect(mod[k], `${name}.${k}`).toBeDefined();
    }
  });

  it('the root holds at most 50 values and no internals', () => {
    expect(Object.keys(root).length).toBeLessThanOrEqual(50);
    for (const internal of [
      'native',
      'cancelFlagFor',
      'BracketParser',
      'ConllAssembler',
      'tableData',
      'libsvmLines',
      'cFixed',
      'EVALB_HEADER',
      'realComponents',
      'Progress',
    ]) {
      expect(Object.keys(root), internal).not.toContain(internal);
    }
  });

  it('every root value has TSDoc with an example (what a user sees in the editor)', () => {
    const file = join(repoRoot, 'dist', 'index.d.ts');
    const program = ts.createProgram([file], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ['node'],
      skipLibCheck: true,
    });
    const checker = program.getTypeChecker();
    const entry = checker.getSymbolAtLocation(program.getSourceFile(file) as ts.SourceFile) as ts.Symbol;
    const values = checker
      .getExportsOfModule(entry)
      .filter(
        (sym) =>
          ((sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym).flags & ts.SymbolFlags.Value) !== 0,
      );
    expect(values.map((v) => v.name).sort()).toEqual(Object.keys(root).sort());
    for (const sym of values) {
      const target = sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
      expect(ts.displayPartsToString(target.getDocumentationComment(checker)), sym.name).not.toBe('');
      expect(
        target.getJsDocTags(checker).map((t) => t.name),
        sym.name,
      ).toContain('example');
    }
  });

  it('subpaths re-export the same objects as the root (one copy of each class)', () => {
    expect(trees.parseTree).toBe(root.parseTree);
    expect(tagger.Tagger).toBe(root.Tagger);
    expect(parser.ChartParserModel).toBe(root.ChartParserModel);
    expect(rerank.PerceptronReranker).toBe(root.PerceptronReranker);
    expect(evaluation.chunkSpans).toBe(root.chunkSpans);
    expect(kernels.TreeBank).toBe(root.TreeBank);
    expect(pipeline.runPipeline).toBe(root.runPipeline);
    expect(formats.readNbestSync).toBe(root.readNbestSync);
  });
});

describe('one shape for every model family: train(data, options, run), save, load, predict, info', () => {
  const treebank = [
    '(S (NP (DT the) (NN dog)) (VP (VBZ barks)))',
    '(S (NP (DT a) (NN cat)) (VP (VBZ sleeps)))',
    '(S (NP (DT the) (NN cat)) (VP (VBZ barks)))',
    '(S (NP (DT a) (NN dog)) (VP (VBZ sleeps)))',
  ].map((t) => parseTree(t));
  const rows = [
    [
      ['the', 'DT', 'O'],
      ['Madrid', 'NNP', 'B-LOC'],
      ['club', 'NN', 'O'],
    ],
    [
      ['Ana', 'NNP', 'B-PER'],
      ['sleeps', 'VBZ', 'O'],
    ],
    [
      ['the', 'DT', 'O'],
      ['Ana', 'NNP', 'B-PER'],
      ['club', 'NN', 'O'],
    ],
  ];
  const nbest = readNbestSync(join(repoRoot, 'test', 'fixtures', 'perceptron', 'tiny-trees.jsonl'));

  /** The model kinds a file may declare, by family (info().kind and the model file's kind). */
  async function roundTrip<M extends { save(file: string): void; info(): { kind: string } }>(
    name: string,
    kind: string,
    train: (run: { signal: AbortSignal; onProgress: (p: TrainProgress) => void }) => Promise<M>,
    load: (file: string) => Promise<M>,
    loadSync: (file: string) => M,
    predict: (m: M) => Promise<unknown>,
  ): Promise<void> {
    const events: TrainProgress[] = [];
    const model = await train({ signal: new AbortController().signal, onProgress: (p) => events.push(p) });
    expect(events.length, name).toBeGreaterThan(0);
    for (const e of events) {
      expect(typeof e.phase).toBe('string');
      expect(e.done).toBeGreaterThanOrEqual(0);
      expect(e.rate).toBeGreaterThanOrEqual(0);
    }
    expect(model.info().kind, name).toBe(kind);
    const file = tmp.file(`${name}.model`);
    model.save(file);
    expect(modelKind(file).kind, name).toBe(kind);
    const loading = load(file);
    expect(loading, `${name}: load is asynchronous`).toBeInstanceOf(Promise);
    const back = await loading;
    const expected = await predict(model);
    expect(await predict(back), name).toEqual(expected);
    expect(await predict(loadSync(file)), name).toEqual(expected);
    expect(back.info(), name).toEqual(model.info());
  }

  const input = rows.map((s) => s.map((r) => r.slice(0, 2)));

  it('taggers (perceptron, CRF): train, save, load, tag', async () => {
    for (const algo of ['perceptron', 'crf'] as const) {
      await roundTrip(
        `tagger-${algo}`,
        'tagger',
        (run) => Tagger.train(rows, { algo, columns: ['word', 'pos', 'ne'], label: 'ne', epochs: 3, threads: 1 }, run),
        (f) => Tagger.load(f),
        (f) => Tagger.loadSync(f),
        async (m) => {
          const tags = await m.tag(input);
          expect(m.tagSync(input)).toEqual(tags);
          return tags;
        },
      );
    }
  });

  it('parsers (PCFG, CRF): train, save, load, parse', async () => {
    for (const crf of [false, true]) {
      await roundTrip(
        crf ? 'parser-crf' : 'parser-pcfg',
        'chart-parser',
        (run) => ChartParserModel.train(treebank, { crf, ...(crf ? { epochs: 1 } : {}), threads: 1 }, run),
        (f) => ChartParserModel.load(f),
        (f) => ChartParserModel.loadSync(f),
        async (m) => {
          expect(m.info().crf).toBe(crf);
          return (await m.parse([['the', 'dog', 'sleeps']])).map((p) => p.tree);
        },
      );
    }
  });

  it('rerankers (kernel perceptron, boosting, log-linear): train, save, load, rerank', async () => {
    await roundTrip(
      'reranker-perceptron',
      'perceptron-reranker',
      (run) => PerceptronReranker.train(nbest, { kernel: 'tree', epochs: 2 }, run),
      (f) => PerceptronReranker.load(f),
      (f) => PerceptronReranker.loadSync(f),
      async (m) => [...(await m.rerank(nbest))],
    );
    for (const method of ['boost', 'loglinear'] as const) {
      await roundTrip(
        `reranker-${method}`,
        'reranker',
        (run) => LinearReranker.train(nbest, { method, cutoff: 1, rounds: 50, threads: 1 }, run),
        (f) => LinearReranker.load(f),
        (f) => LinearReranker.loadSync(f),
        async (m) => [...(await m.rerank(nbest, { threads: 1 }))],
      );
    }
  });

  it('a model file of another family is refused with ModelKindError, by every loader', async () => {
    const t = await Tagger.train(rows, {
      algo: 'perceptron',
      columns: ['word', 'pos', 'ne'],
      label: 'ne',
      epochs: 1,
      threads: 1,
    });
    const taggerFile = tmp.file('tagger-for-parser.model');
    t.save(taggerFile);
    const p = await ChartParserModel.train(treebank, { threads: 1 });
    const parserFile = tmp.file('parser-for-tagger.model');
    p.save(parserFile);
    await expect(Tagger.load(parserFile)).rejects.toMatchObject({
      code: 'ERR_STRUCTRANK_MODEL_KIND',
      expected: 'tagger',
      found: 'chart-parser',
    });
    await expect(ChartParserModel.load(taggerFile)).rejects.toBeInstanceOf(ModelKindError);
    await expect(PerceptronReranker.load(taggerFile)).rejects.toBeInstanceOf(ModelKindError);
    await expect(LinearReranker.load(taggerFile)).rejects.toBeInstanceOf(ModelKindError);
    expect(() => Tagger.loadSync(parserFile)).toThrow(ModelKindError);
    expect(() => ChartParserModel.loadSync(taggerFile)).toThrow(ModelKindError);
    expect(() => PerceptronReranker.loadSync(taggerFile)).toThrow(ModelKindError);
    expect(() => LinearReranker.loadSync(taggerFile)).toThrow(ModelKindError);
  });
});

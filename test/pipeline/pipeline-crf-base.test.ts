/**
 * The pipeline's CRF base (adapters/parser.ts): with `devPass` each model keeps its best pass on
 * the pipeline's dev set, exactly as ChartParserModel.train with `dev` does, and without it the
 * last pass; with `mbr` its lists mark the MBR tree (parser-nbest-lists.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readTreesSync } from '../../lib/io/treebank.js';
import { ChartParserModel, type ParserTrainSummary } from '../../lib/parser/chart-parser.js';
import { treeWords } from '../../lib/parser/input.js';
import { chartParserBase } from '../../lib/pipeline/adapters/parser.js';
import { validatePipelineConfig, type ParserBaseConfig } from '../../lib/pipeline/config.js';
import { CRF_DEFAULTS } from '../../lib/options/parser.js';
import { formatTree, type Tree } from '../../lib/trees/tree.js';
import { corpusF1, mbrChoice, scoreSet } from '../../lib/pipeline/evaluate.js';
import { evalbCorpus } from '../../lib/eval/evalb.js';
import { withRootOf } from '../../lib/trees/transforms.js';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { candidateFeatures } from '../../lib/rerank/candidate-sets.js';
import { featureName } from '../../lib/rerank/candidate-feature-ids.js';
import {
  MBR_FEATURES,
  MEMBER_FEATURES,
  HEAD_MODEL_FEATURES,
  LATENT_MODEL_FEATURES,
  TREE_MODEL_FEATURES,
  type KbestParser,
} from '../../lib/parser/nbest-lists.js';
import { bracketingKey } from '../../lib/trees/kbest-modes.js';
import type { PipelineSentence, StepContext } from '../../lib/training/model-contract.js';
import { repoRoot, tempDir } from '../helpers.js';
import { clustersFromText } from '../../lib/tagger/word-clusters.js';
import { trainTreeModel } from '../../lib/rerank/tree-model.js';
import { trainHeadModel } from '../../lib/rerank/head-model.js';

const trees = readTreesSync(join(repoRoot, 'data', 'gum-open', 'train.mrg')).filter(
  (t) => treeWords(t).length >= 3 && treeWords(t).length <= 12,
);
const asSentences = (set: Tree[], from: number): PipelineSentence[] =>
  set.map((t, i) => ({ id: `s${from + i}`, tokens: treeWords(t), gold: formatTree(t) }));
const trainTrees = trees.slice(0, 120);
const devTrees = trees.slice(120, 160);
const train = asSentences(trainTrees, 0);
const dev = asSentences(devTrees, 120);
const held = asSentences(trees.slice(160, 190), 160);
const ctx: StepContext = { threads: 1, seed: 1 };
const tmp = tempDir();
afterAll(() => tmp.cleanup());
const EPOCHS = 7;
// The generative models the base counts on its training trees (base.treeModel and
// base.headModel, on by default).
const treeModel = trainTreeModel(trainTrees);
const headModel = trainHeadModel(trainTrees);

/** A parse pipeline's base as the config file gives it, validated. */
function validatedBase(base: object): ParserBaseConfig {
  const config = validatePipelineConfig(
    { task: 'parse', data: { train: 't', dev: 'd', test: 'x' }, base, output: 'o' },
    'pipeline.json',
    '/',
  );
  return config.base as ParserBaseConfig;
}

function baseConfig(extra: object): ParserBaseConfig {
  return validatedBase({ epochs: EPOCHS, ...extra });
}

describe('the pipeline CRF base', () => {
  let summary: ParserTrainSummary;
  let withDev: ChartParserModel;
  let withoutDev: ChartParserModel;
  // The ensemble of withDev and `members` as a list's MBR parser, as the adapter builds it.
  const withDevAnd = (members: ChartParserModel[]): KbestParser => ({
    parseNbest: (sentences, k, o) => withDev.parseNbest(sentences, k, { ...o, ensemble: members }),
  });
  beforeAll(async () => {
    summary = {} as ParserTrainSummary;
    withDev = await ChartParserModel.train(trainTrees, {
      crf: true,
      epochs: EPOCHS,
      dev: devTrees,
      threads: 1,
      seed: 1,
      summary,
      // As the pipeline's adapter trains it: its 1-best is the MBR tree, not rescored.
      headModel: false,
    });
    withoutDev = await ChartParserModel.train(trainTrees, { crf: true, epochs: EPOCHS, threads: 1, seed: 1 });
  });

  it('is the CRF with its pass chosen on dev and MBR-marked lists by default', async () => {
    const config = baseConfig({});
    expect(config).toMatchObject({
      crf: true,
      devPass: true,
      mbr: true,
      kbest: 'sum',
      treeModel: true,
      headModel: true,
    });
    // On this data dev keeps an earlier pass than the last, so the two models differ.
    expect(summary.bestEpoch).toBeLessThan(EPOCHS);
    const producer = await chartParserBase(config).train(train, ctx, dev);
    const lists = { kbest: 'sum', mbr: true, treeModel, headModel } as const;
    expect(await producer.nbest(held, 3, ctx)).toEqual(await withDev.nbest(held, 3, ctx, lists));
    expect(await producer.nbest(held, 3, ctx)).not.toEqual(await withoutDev.nbest(held, 3, ctx, lists));
  });

  it('trains all passes without devPass, and lists without marks without mbr and the generative models', async () => {
    const plain = await chartParserBase(
      baseConfig({ devPass: false, mbr: false, treeModel: false, headModel: false }),
    ).train(train, ctx, dev);
    const got = await plain.nbest(held, 3, ctx);
    expect(got).toEqual(await withoutDev.nbest(held, 3, ctx, { kbest: 'sum' }));
    for (const s of got) for (const c of s.candidates) expect(c.features).toBeUndefined();
    // The generative models' features need no MBR parse.
    const scored = await chartParserBase(baseConfig({ devPass: false, mbr: false })).train(train, ctx, dev);
    const lists = await scored.nbest(held, 3, ctx);
    expect(lists).toEqual(await withoutDev.nbest(held, 3, ctx, { kbest: 'sum', treeModel, headModel }));
    for (const best of [TREE_MODEL_FEATURES.best, HEAD_MODEL_FEATURES.best])
      expect(lists.every((s) => s.candidates.some((c) => c.features?.[best] === 1))).toBe(true);
  });

  it('with base.latentModel scores every candidate by the latent PCFGs, kept even at weight 0', async () => {
    const plain = await chartParserBase(baseConfig({ pcfgWeight: 0 })).train(train, ctx, dev);
    const latent = await chartParserBase(baseConfig({ pcfgWeight: 0, latentModel: true })).train(train, ctx, dev);
    const [without, withLatent] = [await plain.nbest(held, 3, ctx), await latent.nbest(held, 3, ctx)];
    const stripped = withLatent.map((s) => ({
      ...s,
      candidates: s.candidates.map((c) => {
        const rest = Object.entries(c.features ?? {}).filter(([k]) => !k.startsWith('latent PCFG'));
        return { ...c, ...(rest.length > 0 ? { features: Object.fromEntries(rest) } : { features: undefined }) };
      }),
    }));
    // At weight 0 the PCFGs change no parse: the lists are the plain ones, plus the features.
    expect(JSON.parse(JSON.stringify(stripped))).toEqual(JSON.parse(JSON.stringify(without)));
    expect(withLatent.every((s) => s.candidates.some((c) => c.features?.[LATENT_MODEL_FEATURES.best] === 1))).toBe(
      true,
    );
  }, 120_000);

  it("with base.ensemble marks the ensemble's MBR tree; the candidates stay the first parser's", async () => {
    const member = await ChartParserModel.train(trainTrees, {
      crf: true,
      markov: 1,
      epochs: EPOCHS,
      dev: devTrees,
      threads: 1,
      seed: 1,
    });
    const producer = await chartParserBase(baseConfig({ ensemble: [{ markov: 1 }] })).train(train, ctx, dev);
    const got = await producer.nbest(held, 3, ctx);
    const kbest = await withDev.nbest(held, 3, ctx, { kbest: 'sum' });
    const single = await withDev.nbest(held, 3, ctx, { kbest: 'sum', mbr: true });
    const ensembleTrees = await withDev.parse(
      held.map((s) => s.tokens),
      { threads: 1, decode: 'mbr', ensemble: [member] },
    );
    const marked = (s: (typeof got)[number]): string =>
      bracketingKey(parseTree(s.candidates.find((c) => c.features?.[MBR_FEATURES.tree] === 1)!.tree as string));
    let differ = 0;
    got.forEach((s, i) => {
      const n = kbest[i].candidates.length;
      expect(s.candidates.slice(0, n).map((c) => c.tree)).toEqual(kbest[i].candidates.map((c) => c.tree));
      expect(marked(s)).toBe(bracketingKey(ensembleTrees[i].tree));
      if (marked(s) !== marked(single[i])) differ++;
    });
    // The member changes some marks: the ensemble is not the first parser alone.
    expect(differ).toBeGreaterThan(0);
    // With base.union the lists are the union of both parsers' lists, with the same marks.
    const union = await chartParserBase(baseConfig({ ensemble: [{ markov: 1 }], union: true })).train(train, ctx, dev);
    const ensemble = withDevAnd([member]);
    const unionLists = await union.nbest(held, 3, ctx);
    expect(unionLists).toEqual(
      await withDev.nbest(held, 3, ctx, {
        kbest: 'sum',
        mbr: true,
        mbrParser: ensemble,
        members: [member],
        treeModel,
        headModel,
      }),
    );
    expect(unionLists.some((s) => s.candidates.some((c) => c.features?.[`${MEMBER_FEATURES.absent} 1`] === 1))).toBe(
      true,
    );
    // The ensemble's MBR parse reports its mean posteriors: every bracket of its tree has one.
    const ensembleParses = await withDev.parseNbest(
      held.map((s) => s.tokens),
      1,
      { threads: 1, decode: 'mbr', ensemble: [member] },
    );
    ensembleParses.forEach((p, i) => {
      expect(p.candidates[0].tree).toEqual(ensembleTrees[i].tree);
      const at = new Set((p.brackets ?? []).map((b) => `${b.label} ${b.start} ${b.end}`));
      const walk = (t: Tree, start: number): number => {
        if (t.word !== undefined) return start + 1;
        let end = start;
        for (const c of t.children) end = walk(c, end);
        if (t !== p.candidates[0].tree) expect(at.has(`${t.label} ${start} ${end}`)).toBe(true);
        return end;
      };
      walk(p.candidates[0].tree, 0);
    });
  });

  it("a member's seed trains the first parser's grammar with that seed", async () => {
    const reseeded = await ChartParserModel.train(trainTrees, {
      crf: true,
      epochs: EPOCHS,
      dev: devTrees,
      threads: 1,
      seed: 2,
    });
    const expected = await withDev.nbest(held, 3, ctx, {
      kbest: 'sum',
      mbr: true,
      mbrParser: withDevAnd([reseeded]),
      treeModel,
      headModel,
    });
    const producer = await chartParserBase(baseConfig({ ensemble: [{ seed: 2 }] })).train(train, ctx, dev);
    expect(await producer.nbest(held, 3, ctx)).toEqual(expected);
    // Without the seed the member would be the first parser again, and the lists not these.
    const twin = withDevAnd([withDev]);
    expect(
      await withDev.nbest(held, 3, ctx, { kbest: 'sum', mbr: true, mbrParser: twin, treeModel, headModel }),
    ).not.toEqual(expected);
    expect(() => baseConfig({ ensemble: [{ seed: -1 }] })).toThrow('base.ensemble[0].seed');
  });

  it("with base.clusterText trains on the clusters of its own training words and the text, as train-parser's --cluster-text", async () => {
    const text = tmp.file(
      'text.txt',
      `${trees
        .slice(190, 260)
        .map((t) => treeWords(t).join(' '))
        .join('\n')}\n`,
    );
    const config = baseConfig({ clusterText: text, clusterClasses: 16 });
    const clusters = await clustersFromText(
      trainTrees.map((t) => treeWords(t)),
      text,
      { classes: 16, lowercase: true },
    );
    const expected = await ChartParserModel.train(trainTrees, {
      crf: true,
      epochs: EPOCHS,
      dev: devTrees,
      threads: 1,
      seed: 1,
      clusters,
    });
    const seen: string[] = [];
    const logged: string[] = [];
    const withProgress: StepContext = { ...ctx, progress: (label) => seen.push(label), log: (l) => logged.push(l) };
    const producer = await chartParserBase(config).train(train, withProgress, dev);
    const lists = { kbest: 'sum', mbr: true, treeModel, headModel } as const;
    const got = await producer.nbest(held, 3, ctx);
    expect(got).toEqual(await expected.nbest(held, 3, ctx, lists));
    expect(got).not.toEqual(await withDev.nbest(held, 3, ctx, lists));
    expect(seen).toContain('word clusters');
    expect(logged).toContain(`word clusters: ${clusters.words.length} words in 16 clusters`);
  });

  it('refuses cluster classes without a cluster text', () => {
    expect(() => baseConfig({ clusterClasses: 64 })).toThrow(
      'pipeline.json: base.clusterClasses: sets the classes of clusterText: give clusterText too',
    );
    expect(() => baseConfig({ clusterText: 'train', clusterClasses: 1 })).toThrow(
      'pipeline.json: base.clusterClasses: expected an integer >= 2',
    );
    // 'train' names no file; without the field, the base has none (the cache keys of runs without clusters stay).
    expect(baseConfig({ clusterText: 'train' }).clusterText).toBe('train');
    expect('clusterText' in baseConfig({})).toBe(false);
  });

  it('refuses an ensemble without the CRF and its MBR marks', () => {
    expect(() => baseConfig({ crf: false, ensemble: [{ markov: 1 }] })).toThrow(
      'pipeline.json: base.ensemble: an ensemble marks the MBR tree of CRF parsers: it needs crf and mbr true',
    );
    expect(() => baseConfig({ ensemble: [{ markov: 3 }] })).toThrow('base.ensemble[0].markov: expected 0, 1 or 2');
    expect(() => baseConfig({ union: true })).toThrow(
      'pipeline.json: base.union: a union of lists needs an ensemble (base.ensemble)',
    );
    expect(baseConfig({ union: true, ensemble: [{ markov: 1 }] }).union).toBe(true);
  });

  it('refuses a PCFG weight the lists would not use', () => {
    expect(() => baseConfig({ pcfgWeight: 0.3, ensemble: [{ markov: 1 }] })).toThrow(
      "pipeline.json: base.pcfgWeight: an ensemble's mean leaves the PCFG out: give no weight with base.ensemble",
    );
    expect(() => baseConfig({ pcfgWeight: 0.3, mbr: false })).toThrow(
      'pipeline.json: base.pcfgWeight: the PCFG is mixed into the MBR parse: it needs mbr true',
    );
    expect(baseConfig({ pcfgWeight: 0, ensemble: [{ markov: 1 }] }).pcfgWeight).toBe(0);
    expect(baseConfig({ pcfgWeight: 0.3 }).pcfgWeight).toBe(0.3);
  });

  it("refuses the latent PCFGs' features with an ensemble, whose members have none", () => {
    expect(() => baseConfig({ latentModel: true, ensemble: [{ markov: 1 }] })).toThrow(
      "pipeline.json: base.latentModel: the latent PCFGs are the single parser's: give no base.ensemble",
    );
    expect(baseConfig({ latentModel: true }).latentModel).toBe(true);
    expect(baseConfig({}).latentModel).toBeUndefined();
  });

  it('refuses the posterior features without the MBR parse that gives them', () => {
    expect(() => baseConfig({ mbr: false, posteriors: true })).toThrow(
      'pipeline.json: base.posteriors: the posteriors come with the MBR parse: it needs mbr true',
    );
    // A validated config (distributed jobs carry one) names it only where it applies.
    expect(baseConfig({}).posteriors).toBe(true);
    expect(baseConfig({ posteriors: false }).posteriors).toBe(false);
    expect(baseConfig({ mbr: false }).posteriors).toBeUndefined();
    expect(validatedBase({ crf: false }).posteriors).toBeUndefined();
    for (const base of [{}, { mbr: false }, { crf: false }, { posteriors: false }])
      expect(validatedBase(validatedBase(base))).toEqual(validatedBase(base));
  });

  it("refuses the CRF base's fields in a PCFG base (crf false), where they would be ignored", () => {
    const valid = {
      epochs: 3,
      devPass: false,
      mbr: false,
      posteriors: false,
      margin: 2,
      tagSets: false,
      latentModel: true,
    };
    for (const [key, value] of Object.entries(valid))
      expect(() => validatedBase({ crf: false, [key]: value })).toThrow(
        `pipeline.json: base.${key}: applies to the CRF base (crf true); the PCFG has no such setting`,
      );
    expect(baseConfig({ crf: true, margin: 2 }).margin).toBe(2);
    expect(validatedBase({ crf: false, markov: 1 })).toMatchObject({ crf: false, markov: 1 });
    // A validated config names every default (distributed jobs carry one): defaults pass.
    expect(validatedBase(validatedBase({ crf: false }))).toMatchObject({ crf: false, epochs: CRF_DEFAULTS.epochs });
  });

  it("gives the rerankers the MBR features beside the candidate's tree features", async () => {
    const lists = await withDev.nbest(held, 3, ctx, { kbest: 'sum', mbr: true });
    const f = await candidateFeatures(scoreSet(lists.map((s, i) => ({ ...s, gold: held[i].gold }))), ctx);
    let c = 0;
    let ladders = 0;
    for (const s of lists) {
      for (const cand of s.candidates) {
        const names = Array.from(f.cols.subarray(f.rowPtr[c], f.rowPtr[c + 1]), featureName);
        expect(names.includes(MBR_FEATURES.tree)).toBe(cand.features?.[MBR_FEATURES.tree] === 1);
        const missed = cand.features?.[MBR_FEATURES.missed] ?? 0;
        for (let m = 2; m <= missed; m++) expect(names).toContain(`${MBR_FEATURES.missed}|>=${m}`);
        if (missed > 0) ladders++;
        expect(names.length).toBeGreaterThan(5);
        c++;
      }
    }
    expect(ladders).toBeGreaterThan(0);
  });

  it("scores the marked MBR tree as EVALB scores the model's own parse of the same words", async () => {
    const lists = await withDev.nbest(held, 3, ctx, { kbest: 'sum', mbr: true });
    const set = scoreSet(lists.map((s, i) => ({ ...s, gold: held[i].gold })));
    const chosen = mbrChoice(set);
    expect(chosen).toBeDefined();
    const parsed = await withDev.parse(
      held.map((s) => s.tokens),
      { threads: 1 },
    );
    const golds = held.map((s) => parseTree(s.gold as string));
    const evalb = evalbCorpus(golds.map((g, i) => [g, withRootOf(parsed[i].tree, g)] as const)).all;
    expect(corpusF1(set, chosen as number[])).toBeCloseTo(evalb.f1, 9);
    // Lists without the mark have no MBR row.
    expect(
      mbrChoice(
        scoreSet(
          lists.map((s, i) => ({
            ...s,
            gold: held[i].gold,
            candidates: s.candidates.slice(0, 1).map((c) => ({ tree: c.tree, logprob: c.logprob })),
          })),
        ),
      ),
    ).toBeUndefined();
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { decodeModel, encodeModel } from '../../lib/io/model-file.js';
import { formatTree, type Tree } from '../../lib/trees/tree.js';
import type { ScoredTree } from '../../lib/trees/kbest-modes.js';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import {
  ChartParserModel,
  type ParseOptions,
  type ParserTrainProgress,
  type ParserTrainSummary,
} from '../../lib/parser/chart-parser.js';
import { evaluateParser } from '../../lib/parser/evaluate.js';
import { treeWords } from '../../lib/parser/input.js';
import { CRF_DEFAULTS } from '../../lib/options/parser.js';
import { learnHeadModelTable, trainHeadModel } from '../../lib/rerank/head-model.js';
import { headTableToJson, type HeadTableJson } from '../../lib/trees/head-rules.js';
import { treeCounts } from '../../lib/eval/score.js';
import { evalbCorpus } from '../../lib/eval/evalb.js';
import {
  chooseRescoring,
  rescoredChoice,
  rescoringCandidates,
  type RescoringTerms,
} from '../../lib/parser/head-rescoring.js';
import { trainTreeModel } from '../../lib/rerank/tree-model.js';
import { ModelFileError } from '../../lib/errors.js';
import { runCli, tempDir } from '../helpers.js';
import { gumShortTrees } from './gum-short.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const scored = (tree: string, logprob: number): { tree: Tree; logprob: number } => ({ tree: parseTree(tree), logprob });

describe('the candidates and the choice of a rescoring', () => {
  it('sums tag variants and appends the MBR tree only when its bracketing is missing', () => {
    const pool = [
      scored('(S (NP (DT a) (NN b)) (VP (VB c)))', -1),
      scored('(S (NP (DT a) (NN b)) (VP (NN c)))', -2),
      scored('(S (NP (DT a)) (VP (NN b) (VB c)))', -1.5),
    ];
    const list = rescoringCandidates(pool, pool[0], 1);
    expect(list).toHaveLength(1);
    // The first bracketing's two tag variants summed: log(e^-1 + e^-2).
    expect(list[0].logprob).toBeCloseTo(Math.log(Math.exp(-1) + Math.exp(-2)), 12);
    const mbr = scored('(S (NP (DT a)) (VP (NN b) (VB c)))', -1.5);
    const withMbr = rescoringCandidates(pool, mbr, 1);
    expect(withMbr.map((c) => formatTree(c.tree))).toEqual([formatTree(pool[0].tree), formatTree(mbr.tree)]);
    expect(rescoringCandidates(pool, mbr, 2)).toHaveLength(2);
  });

  it('chooses the highest logprob + weighted model scores - weighted loss, the first of equals', () => {
    const list = [scored('(X (A a))', -1), scored('(X (B a))', -2), scored('(X (C a))', -3)];
    const terms = (head: number, tree = 0, loss = 0): RescoringTerms => ({ head, tree, loss });
    const heads = [terms(-10), terms(-5), terms(-1)];
    expect(rescoredChoice(list, heads, terms(0))).toBe(0);
    expect(rescoredChoice(list, heads, terms(1))).toBe(2);
    expect(rescoredChoice(list, [terms(-3), terms(-2), terms(-1)], terms(1))).toBe(0); // all tie at -4
    // The tree model's scores add as the head model's; the loss subtracts.
    expect(rescoredChoice(list, [terms(0, -10), terms(0, -5), terms(0, -1)], terms(0, 1))).toBe(2);
    expect(rescoredChoice(list, [terms(0, 0, 5), terms(0, 0, 3), terms(0, 0, -1)], terms(0, 0, 1))).toBe(2);
    expect(rescoredChoice(list, [terms(0, 0, 5), terms(0, 0, 3), terms(0, 0, -1)], terms(0, 0, 0.25))).toBe(0);
  });

  it('picks the weights of the best dev F1 above the MBR trees (brute force), or none', () => {
    const gold = parseTree('(S (NP (DT a) (NN b)) (VP (VB c)))');
    const right = scored('(S (NP (DT a) (NN b)) (VP (VB c)))', -2);
    const wrong = scored('(S (NP (DT a)) (VP (NN b) (VB c)))', -1);
    const sentence = (terms: RescoringTerms[], mbr: Tree) => ({ candidates: [right, wrong], terms, mbr, gold });
    // The head model prefers the right tree by 2 nats: head weights from 0.5 up find it (at 0.5
    // the two tie and the first is kept); the loss prefers it by 1, which helps the head weight
    // 0.25 with a loss weight from 0.5 up; the smallest of equal F1 is chosen.
    const scores = [
      { head: -1, tree: 0, loss: -1 },
      { head: -3, tree: 0, loss: 0 },
    ];
    const helps = [sentence(scores, wrong.tree)];
    const grid = { head: [0.25, 0.5, 0.75, 1], tree: [0, 1], loss: [0, 0.5] };
    const choice = chooseRescoring(helps, grid);
    const f1 = (t: Tree): number => {
      const c = treeCounts(gold, t);
      return (200 * c.matched) / (c.gold + c.test);
    };
    expect(choice.mbrF1).toBeCloseTo(f1(wrong.tree), 12);
    // By hand: at each head weight the first (tree, loss) pair of the best F1.
    const byHand = grid.head.map((head) => {
      let best = { weights: { head, tree: 0, loss: 0 }, f1: -Infinity };
      for (const tree of grid.tree)
        for (const loss of grid.loss) {
          const rescored = (i: number): number =>
            [right, wrong][i].logprob + head * scores[i].head + tree * scores[i].tree - loss * scores[i].loss;
          const pick = rescored(1) > rescored(0) ? wrong : right;
          if (f1(pick.tree) > best.f1) best = { weights: { head, tree, loss }, f1: f1(pick.tree) };
        }
      return best;
    });
    expect(choice.byHeadWeight).toEqual(byHand);
    expect(choice.byHeadWeight[0].weights).toEqual({ head: 0.25, tree: 0, loss: 0.5 });
    expect(choice.weights).toEqual({ head: 0.25, tree: 0, loss: 0.5 });
    // Where the MBR tree is already right, nothing beats it: no rescoring.
    expect(chooseRescoring([sentence(scores, right.tree)], grid).weights).toBeUndefined();
  });

  it("scores dev as EVALB's corpus totals do: a sentence EVALB reports as an error counts for nothing", () => {
    const gold = parseTree('(S (NP (DT a) (NN b)) (VP (VB c)) (. .))');
    // Tagged as a word, the full stop is not deleted as punctuation: EVALB reports a length mismatch.
    const error = scored('(S (NP (DT a) (NN b)) (VP (VB c) (NN .)))', -1);
    const good = scored('(S (NP (DT a)) (VP (NN b) (VB c)) (. .))', -1);
    const none = [{ head: -1, tree: 0, loss: 0 }];
    const other = { candidates: [good], terms: none, mbr: good.tree, gold };
    const sentences = [{ candidates: [error], terms: none, mbr: error.tree, gold }, other];
    const grid = { head: [1], tree: [0], loss: [0] };
    const choice = chooseRescoring(sentences, grid);
    const report = evalbCorpus(sentences.map((x) => [x.gold, x.mbr] as const));
    expect(report.all.errorSentences).toBe(1);
    expect(choice.mbrF1).toBeCloseTo(report.all.f1, 12);
    expect(choice.mbrF1).toBeCloseTo(chooseRescoring([other], grid).mbrF1, 12);
  });
});

// A CRF with dev, rescoring by default; dev is part of the training trees, where the head
// model (counted from them) must help, so the dev choice keeps a weight. Its latent PCFGs
// (counted from the same trees, and they would learn them by heart) weigh little.
const train = gumShortTrees('train.mrg', 150);
const dev = train.slice(0, 40);
const sentences = gumShortTrees('dev.mrg', 40).map((t) => treeWords(t));
const mix = { pcfgWeight: 0.1, pcfgCycles: 1 };
const rescoring = ChartParserModel.train(train, { crf: true, epochs: 1, threads: 1, dev, ...mix });
const plain = ChartParserModel.train(train, { crf: true, epochs: 1, threads: 1, dev, headModel: false, ...mix });

const shown = (r: { tree: Tree }[]): string[] => r.map((s) => formatTree(s.tree));

/**
 * By hand: each sentence's pool from `model`, its k best bracketings and MBR tree, rescored by
 * a head model and a tree model of `trees` and the expected loss under the pool's posteriors.
 */
async function bruteForce(model: ChartParserModel, trees: Tree[], weights: RescoringTerms): Promise<ScoredTree[]> {
  const head = trainHeadModel(trees);
  const treeModel = trainTreeModel(trees);
  const pools = await model.parseNbest(sentences, CRF_DEFAULTS.headPool, { threads: 1, mbrTree: true });
  return pools.map((pool) => {
    const posterior = (label: string, start: number, end: number): number =>
      (pool.brackets ?? [])
        .filter((b) => b.label === label && b.start === start && b.end === end)
        .reduce((sum, b) => sum + b.posterior, 0);
    // Each phrase: a missed bracket's expected cost, less twice the chance it is right.
    const loss = (t: Tree): number => {
      let sum = 0;
      const span = (n: Tree, start: number): number => {
        if (n.word !== undefined) return start + 1;
        let end = start;
        for (const c of n.children) end = span(c, end);
        sum += 1 - 2 * Math.min(1, posterior(n.label, start, end));
        return end;
      };
      span(t, 0);
      return sum;
    };
    const list = rescoringCandidates(pool.candidates, pool.mbrTree, CRF_DEFAULTS.headK);
    const score = (c: ScoredTree): number =>
      c.logprob +
      weights.head * head.logprob(c.tree) +
      weights.tree * treeModel.logprob(c.tree) -
      weights.loss * loss(c.tree);
    return list.reduce((best, c) => (score(c) > score(best) ? c : best));
  });
}

describe("the CRF's MBR tree rescored by a head model", () => {
  it('parses as the brute-force rescoring of its k-best bracketings; off, as the MBR tree', async () => {
    const [m, p] = [await rescoring, await plain];
    const info = m.info();
    expect(info.headWeight).toBeGreaterThan(0);
    expect(p.info().headWeight).toBe(0);
    const mbr = await p.parse(sentences, { threads: 1 });
    expect(shown(await m.parse(sentences, { threads: 1, headModel: false }))).toEqual(shown(mbr));
    const weights = { head: info.headWeight, tree: info.treeModelWeight, loss: info.lossWeight };
    const expected = await bruteForce(p, train, weights);
    const own = await m.parse(sentences, { threads: 1 });
    expect(shown(own)).toEqual(shown(expected));
    expect(own.map((s) => s.logprob)).toEqual(expected.map((s) => s.logprob));
    expect(shown(own)).not.toEqual(shown(mbr));
    // With the tree model's and the loss's weights (as a file may store them), the same.
    const file = tmp.file('weighted.model');
    m.save(file);
    const d = decodeModel<{ headRescore: { weight: number } }>(readFileSync(file));
    const headRescore = { ...d.meta.headRescore, treeWeight: 0.25, lossWeight: 2 };
    writeFileSync(file, encodeModel({ ...d, meta: { ...d.meta, headRescore } }));
    const weighted = await ChartParserModel.load(file);
    const allTerms = await bruteForce(p, train, { head: info.headWeight, tree: 0.25, loss: 2 });
    expect(shown(await weighted.parse(sentences, { threads: 1 }))).toEqual(shown(allTerms));
    expect(shown(allTerms)).not.toEqual(shown(expected));
    // parseNbest's 1-best is the same tree; lists of k > 1 stay the CRF's.
    expect(shown((await m.parseNbest(sentences, 1, { threads: 1 })).map((s) => s.candidates[0]))).toEqual(shown(own));
    const lists = (r: { candidates: { tree: Tree }[] }[]): string[][] => r.map((s) => shown(s.candidates));
    expect(lists(await m.parseNbest(sentences, 4, { threads: 1 }))).toEqual(
      lists(await p.parseNbest(sentences, 4, { threads: 1 })),
    );
  }, 180_000);

  it('gives its 1-best beside a deeper list from one parse, as `parse --nbest --out` does', async () => {
    const [m, p] = [await rescoring, await plain];
    const pool = m.rescoringPool();
    expect(pool).toBe(CRF_DEFAULTS.headPool);
    const offs: ParseOptions[] = [{ headModel: false }, { pcfg: true }, { decode: 'viterbi' }, { ensemble: [p] }];
    for (const off of offs) expect(m.rescoringPool(off)).toBe(0);
    expect(p.rescoringPool()).toBe(0);
    expect(() => p.rescoredBest({ candidates: [], fallback: false })).toThrow(/does not rescore/);
    const own = shown(await m.parse(sentences, { threads: 1 }));
    for (const k of [4, 2 * pool]) {
      const deep = await m.parseNbest(sentences, Math.max(k, pool), { threads: 1, mbrTree: true });
      expect(shown(deep.map((d) => m.rescoredBest(d)).map((tree) => ({ tree: tree.tree })))).toEqual(own);
      // A k-best list is the prefix of any deeper one.
      const lists = await m.parseNbest(sentences, k, { threads: 1 });
      expect(deep.map((d) => shown(d.candidates.slice(0, k)))).toEqual(lists.map((l) => shown(l.candidates)));
      expect(deep.map((d) => d.candidates.slice(0, k).map((c) => c.logprob))).toEqual(
        lists.map((l) => l.candidates.map((c) => c.logprob)),
      );
    }
    // The command: its --out is parse's 1-best, its lists those of the MBR tree's parse.
    const model = tmp.file('nbest.model');
    m.save(model);
    const input = tmp.file('nbest.txt');
    writeFileSync(input, sentences.map((w) => w.join(' ') + '\n').join(''));
    const run = (out: string, extra: string[]): string => {
      const r = runCli(['parse', '--model', model, '--input', input, '--out', out, '--threads', '1', ...extra]);
      expect(r.status, r.stderr).toBe(0);
      return readFileSync(out, 'utf8');
    };
    const alone = run(tmp.file('alone.parsed'), []);
    const lists = tmp.file('lists.nbest');
    const beside = run(tmp.file('beside.parsed'), ['--nbest', '4', '--out-nbest', lists]);
    expect(beside).toBe(alone);
    const mbrLists = tmp.file('mbr.nbest');
    const mbrOut = run(tmp.file('mbr.parsed'), ['--nbest', '4', '--out-nbest', mbrLists, '--no-head-model']);
    expect(readFileSync(lists, 'utf8')).toBe(readFileSync(mbrLists, 'utf8'));
    expect(mbrOut).not.toBe(alone);
  }, 180_000);

  it('round-trips through its file (version 3); a damaged tree section is refused', async () => {
    const m = await rescoring;
    const file = tmp.file('rescoring.model');
    m.save(file);
    const decoded = decodeModel<{ headRescore?: { weight: number; bytes: number; headTable?: HeadTableJson } }>(
      readFileSync(file),
    );
    expect(decoded.kindVersion).toBe(4);
    expect(decoded.meta.headRescore?.weight).toBe(m.info().headWeight);
    const back = await ChartParserModel.load(file);
    expect(back.info()).toEqual(m.info());
    expect(shown(await back.parse(sentences, { threads: 1 }))).toEqual(shown(await m.parse(sentences, { threads: 1 })));
    // Without rescoring the file lists its PCFGs all the same (version 4).
    const plainFile = tmp.file('plain.model');
    (await plain).save(plainFile);
    expect(decodeModel(readFileSync(plainFile)).kindVersion).toBe(4);
    const bad = tmp.file('bad.model');
    const payload = Uint8Array.from(decoded.payload);
    payload[payload.length - 5] ^= 0xff;
    writeFileSync(bad, encodeModel({ ...decoded, payload }));
    await expect(ChartParserModel.load(bad)).rejects.toThrow(ModelFileError);
    await expect(ChartParserModel.load(bad)).rejects.toThrow(/bad\.model.*head-model trees are damaged/);
    const long = tmp.file('long.model');
    writeFileSync(
      long,
      encodeModel({ ...decoded, meta: { ...decoded.meta, headRescore: { ...decoded.meta.headRescore, bytes: 1e12 } } }),
    );
    await expect(ChartParserModel.load(long)).rejects.toThrow(/long\.model.*rescoring's weights or its trees' length/);
    // The head table learned from the stored trees is stored beside them; a file from before
    // it (none) learns it again on loading and parses the same; a damaged one is refused.
    const storedTable = decoded.meta.headRescore?.headTable;
    expect(storedTable).toEqual(headTableToJson(learnHeadModelTable(train)));
    const { headTable: _t, ...withoutTable } = decoded.meta.headRescore ?? {};
    const older = tmp.file('older.model');
    writeFileSync(older, encodeModel({ ...decoded, meta: { ...decoded.meta, headRescore: withoutTable } }));
    expect(shown(await (await ChartParserModel.load(older)).parse(sentences, { threads: 1 }))).toEqual(
      shown(await m.parse(sentences, { threads: 1 })),
    );
    const badTable = tmp.file('bad-table.model');
    const broken = { ...storedTable, rules: { NP: [['sideways', 'NN']] } };
    writeFileSync(
      badTable,
      encodeModel({ ...decoded, meta: { ...decoded.meta, headRescore: { ...withoutTable, headTable: broken } } }),
    );
    await expect(ChartParserModel.load(badTable)).rejects.toThrow(/bad-table\.model.*head model is damaged/);
  }, 180_000);
});

describe('the trees of the head model', () => {
  it('are the training trees by default, or headModelTrees: stored, and parsed with', async () => {
    const m = await rescoring;
    const stored = (model: ChartParserModel): string[] => {
      const file = tmp.file(`trees-${Math.random()}.model`);
      model.save(file);
      const d = decodeModel<{ headRescore?: { bytes: number } }>(readFileSync(file));
      const bytes = d.meta.headRescore?.bytes ?? 0;
      return gunzipSync(d.payload.subarray(d.payload.length - bytes))
        .toString('utf8')
        .split('\n');
    };
    expect(stored(m)).toHaveLength(train.length);
    // More trees than the CRF trains on (as train-parser passes all of --train beside --max-length);
    // dev among them and not among the CRF's, where the head model must help.
    const more = gumShortTrees('train.mrg', 400);
    const heldDev = more.slice(train.length, train.length + 40);
    const wide = await ChartParserModel.train(train, {
      crf: true,
      epochs: 1,
      threads: 1,
      dev: heldDev,
      headModelTrees: more,
      ...mix,
    });
    expect(stored(wide)).toHaveLength(more.length);
    const info = wide.info();
    expect(info.headWeight).toBeGreaterThan(0);
    const weights = { head: info.headWeight, tree: info.treeModelWeight, loss: info.lossWeight };
    expect(shown(await wide.parse(sentences, { threads: 1 }))).toEqual(shown(await bruteForce(wide, more, weights)));
    await expect(ChartParserModel.train(train, { headModelTrees: more })).rejects.toThrow(/headModelTrees/);
  }, 180_000);
});

describe("the dev parse that chooses the head model's weight", () => {
  it('reports after the PCFG weight, in chunks; the model parses dev as it scored', async () => {
    const own: ParserTrainProgress[] = [];
    const summary: ParserTrainSummary = { surfaceGoldFeatures: 0, surfaceCollisionRate: 0 };
    const model = await ChartParserModel.train(train, {
      crf: true,
      epochs: 1,
      threads: 1,
      dev,
      summary,
      onProgress: (p) => own.push(p),
      ...mix,
    });
    const first = own.findIndex((p) => p.headModel === true);
    expect(first).toBeGreaterThan(0);
    expect(own[first - 1].pcfgMix).toBe(true);
    const choosing = own.slice(first);
    expect(choosing.every((p) => p.headModel === true)).toBe(true);
    expect(choosing.map((p) => p.devSentences)).toEqual([32, dev.length]);
    expect(summary.headWeightsDev?.byWeight.map((d) => d.weight)).toEqual([...CRF_DEFAULTS.headWeights]);
    const best = Math.max(...(summary.headWeightsDev?.byWeight ?? []).map((d) => d.f1));
    expect(best).toBeGreaterThan(summary.headWeightsDev?.mbrF1 ?? Infinity);
    expect(model.info().headWeight).toBe(summary.headWeight);
    expect(summary.bestDev?.f1).toBeCloseTo(best, 10);
    const score = await evaluateParser(model, dev, { threads: 1 });
    expect(score).toEqual(summary.bestDev);
  }, 180_000);
});

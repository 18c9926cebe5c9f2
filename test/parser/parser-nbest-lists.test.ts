/**
 * ChartParserModel as the pipeline's NbestProducer: its k-best lists of pipeline sentences,
 * parsed in batches of 64, are the lists `parseNbest` gives, k of a pool kept by the k-best
 * mode asked for; with a pool larger than k every mode's lists come from the same pool. With
 * `mbr`, the CRF's MBR tree is marked in each list, or appended.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readTreesSync } from '../../lib/io/treebank.js';
import { ChartParserModel } from '../../lib/parser/chart-parser.js';
import { treeWords } from '../../lib/parser/input.js';
import { MBR_COUNT_CAP, MBR_FEATURES, MEMBER_FEATURES, POSTERIOR_FEATURES } from '../../lib/parser/nbest-lists.js';
import { treeCounts } from '../../lib/eval/score.js';
import {
  bracketingKey,
  KBEST_TAG_MODES,
  selectKbest,
  type KbestTagMode,
  type ScoredTree,
} from '../../lib/trees/kbest-modes.js';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { formatTree, node, preterminal, type Tree } from '../../lib/trees/tree.js';
import type { NbestProducer, PipelineSentence, StepContext } from '../../lib/training/model-contract.js';
import { repoRoot } from '../helpers.js';

const trees = readTreesSync(join(repoRoot, 'data', 'gum-open', 'train.mrg')).filter(
  (t) => treeWords(t).length >= 3 && treeWords(t).length <= 12,
);
const train = trees.slice(0, 300);
// 70 sentences: a full batch of 64 and a part one.
const sentences: PipelineSentence[] = trees.slice(300, 370).map((t, i) => ({
  id: `s${i}`,
  tokens: treeWords(t),
  gold: formatTree(t),
}));
const ctx: StepContext = { threads: 1, seed: 1 };

describe('the chart parser as NbestProducer', () => {
  let model: ChartParserModel;
  beforeAll(async () => {
    model = await ChartParserModel.train(train, { markov: 1, threads: 1 });
  });

  it('gives the plain k-best lists of parseNbest by default, with progress per batch', async () => {
    const producer: NbestProducer = model;
    const progress: [string, number, number][] = [];
    const got = await producer.nbest(sentences, 5, {
      ...ctx,
      progress: (label, done, total) => progress.push([label, done, total]),
    });
    const expected = await model.parseNbest(
      sentences.map((s) => s.tokens),
      5,
      { threads: 1 },
    );
    expect(got.map((s) => s.id)).toEqual(sentences.map((s) => s.id));
    got.forEach((s, i) => {
      expect(s.tokens).toEqual(sentences[i].tokens);
      expect(s.line).toBe(0);
      expect(s.candidates).toEqual(
        expected[i].candidates.map((c) => ({ tree: formatTree(c.tree), logprob: c.logprob })),
      );
    });
    expect(got.some((s) => s.candidates.length > 1)).toBe(true);
    expect(progress).toEqual([
      ['5-best parses', 64, 70],
      ['5-best parses', 70, 70],
    ]);
  });

  it('keeps k of the pool by the k-best mode', async () => {
    const pool = await model.parseNbest(
      sentences.map((s) => s.tokens),
      20,
      { threads: 1 },
    );
    for (const kbest of KBEST_TAG_MODES) {
      const got = await model.nbest(sentences, 4, ctx, { kbest, pool: 20 });
      got.forEach((s, i) =>
        expect(s.candidates).toEqual(
          selectKbest(pool[i].candidates, 4, kbest).map((c) => ({ tree: formatTree(c.tree), logprob: c.logprob })),
        ),
      );
    }
    // Without a pool, 'max' parses 5 x k trees per sentence.
    expect(await model.nbest(sentences, 4, ctx, { kbest: 'max' })).toEqual(
      await model.nbest(sentences, 4, ctx, { kbest: 'max', pool: 20 }),
    );
  });

  it('gives every mode from one pool only when a pool larger than k is asked for', async () => {
    const plain = await model.nbestVariants(sentences, 4, ctx, { kbest: 'sum' });
    expect(plain.variants).toEqual({});
    expect(plain.main).toEqual(await model.nbest(sentences, 4, ctx, { kbest: 'sum' }));
    expect((await model.nbestVariants(sentences, 4, ctx, { kbest: 'sum', pool: 4 })).variants).toEqual({});

    const producer = model.nbestProducer({ kbest: 'max', pool: 12 });
    const { main, variants } = await producer.nbestVariants!(sentences, 4, ctx);
    expect(Object.keys(variants).sort()).toEqual(['all', 'fixed', 'max', 'sum']);
    expect(main).toEqual(variants.max);
    expect(await producer.nbest(sentences, 4, ctx)).toEqual(main);
    expect(variants.sum).toEqual(await model.nbest(sentences, 4, ctx, { kbest: 'sum', pool: 12 }));
  });
});

/** Each member's score of every candidate of its whole pool (by `key`, first entry kept), as unionList reads it. */
function memberScores(
  pools: readonly ScoredTree[][],
  kbest: KbestTagMode,
  key: (t: Tree) => string,
): Map<string, number>[] {
  return pools.map((pool) => {
    const byKey = new Map<string, number>();
    for (const c of selectKbest(pool, pool.length, kbest))
      if (!byKey.has(key(c.tree))) byKey.set(key(c.tree), c.logprob);
    return byKey;
  });
}

/** A candidate's expected MEMBER_FEATURES and mean log-probability (a pool's least less 1 where it is absent). */
function expectedMemberScore(
  scores: readonly Map<string, number>[],
  at: string,
): { features: Record<string, number>; mean: number } {
  const features: Record<string, number> = {};
  let mean = 0;
  scores.forEach((byKey, m) => {
    const values = [...byKey.values()];
    const lp = byKey.get(at);
    if (lp === undefined) features[`${MEMBER_FEATURES.absent} ${m + 1}`] = 1;
    else {
      const halves = Math.min(MBR_COUNT_CAP, Math.round(2 * (Math.max(...values) - lp)));
      if (halves > 0) features[`${MEMBER_FEATURES.gap} ${m + 1}`] = halves;
    }
    mean += (lp ?? Math.min(...values) - 1) / scores.length;
  });
  return { features, mean };
}

describe("the union of two parsers' lists", () => {
  const tokens = sentences.map((s) => s.tokens);
  let first: ChartParserModel;
  let other: ChartParserModel;
  // Each sentence's pool of 12 trees from each parser.
  let pools: ScoredTree[][][];
  beforeAll(async () => {
    first = await ChartParserModel.train(train, { markov: 1, threads: 1 });
    other = await ChartParserModel.train(train, { markov: 0, parent: false, threads: 1 });
    const parsed = [
      await first.parseNbest(tokens, 12, { threads: 1 }),
      await other.parseNbest(tokens, 12, { threads: 1 }),
    ];
    pools = tokens.map((_, i) => parsed.map((p) => p[i].candidates));
  });

  it("holds the first parser's list, then the other's new candidates, scored by both", async () => {
    let joined = 0;
    let absent = 0;
    for (const kbest of ['all', 'sum'] as const) {
      const key = kbest === 'sum' ? bracketingKey : formatTree;
      const got = await first.nbest(sentences, 3, ctx, { kbest, pool: 12, members: [other] });
      got.forEach((s, i) => {
        const lists = pools[i].map((pool) => selectKbest(pool, 3, kbest));
        const expectedKeys = [...new Set(lists.flat().map((c) => key(c.tree)))];
        expect(s.candidates.map((c) => key(parseTree(c.tree as string)))).toEqual(expectedKeys);
        if (expectedKeys.length > lists[0].length) joined++;
        const scores = memberScores(pools[i], kbest, key);
        for (const c of s.candidates) {
          const { features, mean } = expectedMemberScore(scores, key(parseTree(c.tree as string)));
          absent += Object.keys(features).filter((f) => f.startsWith(MEMBER_FEATURES.absent)).length;
          expect(c.features ?? {}).toEqual(features);
          expect(c.logprob).toBeCloseTo(mean, 9);
        }
      });
    }
    expect(joined).toBeGreaterThan(0);
    expect(absent).toBeGreaterThan(0);
  });

  it("appends an MBR tree that no list holds, scored on the members' scale", async () => {
    // The MBR parser's tree: the first pool's last tree at even sentences (beyond both lists
    // mostly), a flat tree no pool holds at odd ones; its own score is off every scale.
    const flat = (words: string[]): Tree =>
      node('ROOT', [
        node(
          'FLAT',
          words.map((w) => preterminal('XX', w)),
        ),
      ]);
    const mbrTrees = tokens.map((words, i) => (i % 2 === 0 ? pools[i][0][11].tree : flat(words)));
    const mbrParser = {
      parseNbest: (batch: string[][]) =>
        Promise.resolve(
          batch.map((words) => ({ candidates: [{ tree: mbrTrees[tokens.indexOf(words)], logprob: 99 }] })),
        ),
    };
    const got = await first.nbest(sentences, 3, ctx, {
      pool: 12,
      members: [other],
      mbr: true,
      mbrParser,
      posteriors: false,
    });
    let appended = 0;
    let inPools = 0;
    got.forEach((s, i) => {
      const want = formatTree(mbrTrees[i]);
      const at = s.candidates.findIndex((c) => c.features?.[MBR_FEATURES.tree] !== undefined);
      expect(s.candidates[at].tree).toBe(want);
      if (pools[i].some((pool) => pool.slice(0, 3).some((c) => formatTree(c.tree) === want))) return;
      appended++;
      expect(at).toBe(s.candidates.length - 1);
      const { features, mean } = expectedMemberScore(memberScores(pools[i], 'all', formatTree), want);
      inPools += pools[i].filter((pool) => pool.some((c) => formatTree(c.tree) === want)).length;
      expect(s.candidates[at].features).toEqual({ [MBR_FEATURES.tree]: 1, ...features });
      expect(s.candidates[at].logprob).toBeCloseTo(mean, 9);
    });
    expect(appended).toBeGreaterThan(sentences.length / 2);
    expect(inPools).toBeGreaterThan(0);
  });
});

describe("the CRF parser's MBR tree in the lists", () => {
  let crf: ChartParserModel;
  beforeAll(async () => {
    crf = await ChartParserModel.train(train.slice(0, 150), { crf: true, epochs: 1, threads: 1 });
  });

  it('marks the candidate equal to the MBR tree, or appends it, and gives each its distance to it', async () => {
    const mbr = await crf.parse(
      sentences.map((s) => s.tokens),
      { decode: 'mbr', threads: 1 },
    );
    let matched = 0;
    let appended = 0;
    let far = 0;
    for (const kbest of KBEST_TAG_MODES) {
      const key = kbest === 'max' || kbest === 'sum' ? bracketingKey : formatTree;
      const plain = await crf.nbest(sentences, 3, ctx, { kbest, pool: 12 });
      const marked = await crf.nbest(sentences, 3, ctx, { kbest, pool: 12, mbr: true, posteriors: false });
      marked.forEach((s, i) => {
        const at = s.candidates.findIndex((c) => c.features?.[MBR_FEATURES.tree] !== undefined);
        expect(s.candidates.filter((c) => c.features?.[MBR_FEATURES.tree] !== undefined)).toHaveLength(1);
        expect(key(parseTree(s.candidates[at].tree as string))).toBe(key(mbr[i].tree));
        // Every candidate's distance: the MBR tree's brackets it lacks, and those it adds.
        for (const c of s.candidates) {
          const n = treeCounts(mbr[i].tree, parseTree(c.tree as string));
          const expected: Record<string, number> = {};
          if (c === s.candidates[at]) expected[MBR_FEATURES.tree] = 1;
          if (n.gold > n.matched) expected[MBR_FEATURES.missed] = Math.min(MBR_COUNT_CAP, n.gold - n.matched);
          if (n.test > n.matched) expected[MBR_FEATURES.extra] = Math.min(MBR_COUNT_CAP, n.test - n.matched);
          expect(c.features ?? {}).toEqual(expected);
          if (n.gold > n.matched) far++;
        }
        const inPlain = plain[i].candidates.findIndex((c) => key(parseTree(c.tree as string)) === key(mbr[i].tree));
        const bare = s.candidates.map(({ tree, logprob }) => ({ tree, logprob }));
        if (inPlain >= 0) {
          matched++;
          expect(at).toBe(inPlain);
          expect(bare).toEqual(plain[i].candidates);
        } else {
          appended++;
          expect(bare.slice(0, -1)).toEqual(plain[i].candidates);
          expect(s.candidates[at]).toEqual({
            tree: formatTree(mbr[i].tree),
            logprob: mbr[i].logprob,
            features: { [MBR_FEATURES.tree]: 1 },
          });
        }
      });
    }
    expect(matched).toBeGreaterThan(0);
    expect(appended).toBeGreaterThan(0);
    expect(far).toBeGreaterThan(0);
  });

  it("gives each candidate how likely its brackets are under the MBR parse's posteriors", async () => {
    const tokens = sentences.map((s) => s.tokens);
    const mbr = await crf.parseNbest(tokens, 1, { decode: 'mbr', threads: 1 });
    const plain = await crf.nbest(sentences, 3, ctx, { mbr: true, posteriors: false });
    const got = await crf.nbest(sentences, 3, ctx, { mbr: true });
    // Each phrasal node's expected count, by a walk over the tree (the root wrapper has none).
    const nodePosteriors = (tree: Tree, at: Map<string, number>): number[] => {
      const out: number[] = [];
      const walk = (t: Tree, start: number): number => {
        if (t.word !== undefined) return start + 1;
        let end = start;
        for (const c of t.children) end = walk(c, end);
        out.push(at.get(`${t.label} ${start} ${end}`) ?? 0);
        return end;
      };
      walk(tree, 0);
      return out;
    };
    let low = 0;
    let lossy = 0;
    got.forEach((s, i) => {
      const brackets = mbr[i].brackets ?? [];
      const at = new Map(brackets.map((b) => [`${b.label} ${b.start} ${b.end}`, b.posterior]));
      expect(at.size).toBe(brackets.length);
      for (const b of brackets) {
        expect(b.posterior).toBeGreaterThanOrEqual(0.001);
        expect(b.label.startsWith('@')).toBe(false);
      }
      // The MBR tree's labels and spans are those the posteriors name: every node has one.
      const mbrNodes = nodePosteriors(mbr[i].candidates[0].tree, at);
      expect(mbrNodes.filter((p) => p === 0)).toHaveLength(1); // the root wrapper
      const nodes = s.candidates.map((c) => nodePosteriors(parseTree(c.tree as string), at));
      const loss = nodes.map((ps) => ps.reduce((sum, p) => sum + 1 - 2 * Math.min(1, p), 0));
      s.candidates.forEach((c, j) => {
        const expected: Record<string, number> = { ...plain[i].candidates[j].features };
        for (const threshold of [0.5, 0.1, 0.01]) {
          const n = Math.min(MBR_COUNT_CAP, nodes[j].filter((p) => p < threshold).length);
          if (n > 0) expected[`${POSTERIOR_FEATURES.low} ${threshold}`] = n;
        }
        const halves = Math.min(MBR_COUNT_CAP, Math.round(2 * (loss[j] - Math.min(...loss))));
        if (halves > 0) expected[POSTERIOR_FEATURES.loss] = halves;
        expect(c.features).toEqual(expected);
        expect({ tree: c.tree, logprob: c.logprob }).toEqual({
          tree: plain[i].candidates[j].tree,
          logprob: plain[i].candidates[j].logprob,
        });
        if ((expected[`${POSTERIOR_FEATURES.low} 0.5`] ?? 0) > 1) low++;
        if (halves > 0) lossy++;
      });
      // The list's least expected loss gets no loss feature.
      expect(s.candidates.some((c) => c.features?.[POSTERIOR_FEATURES.loss] === undefined)).toBe(true);
    });
    expect(low).toBeGreaterThan(0);
    expect(lossy).toBeGreaterThan(0);
  });

  it('reports bracket posteriors for MBR parses only', async () => {
    const tokens = sentences.slice(0, 5).map((s) => s.tokens);
    for (const s of await crf.parseNbest(tokens, 1, { decode: 'viterbi', threads: 1 }))
      expect(s.brackets).toBeUndefined();
    for (const s of await crf.parseNbest(tokens, 3, { threads: 1 })) expect(s.brackets).toBeUndefined();
    // MBR k-best lists come with the same posteriors as the MBR 1-best.
    const one = await crf.parseNbest(tokens, 1, { decode: 'mbr', threads: 1 });
    const three = await crf.parseNbest(tokens, 3, { decode: 'mbr', threads: 1 });
    three.forEach((s, i) => {
      expect(s.brackets).toBeDefined();
      expect(s.brackets).toEqual(one[i].brackets);
    });
  });
});

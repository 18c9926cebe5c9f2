import { beforeAll, describe, expect, it } from 'vitest';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { formatTree, tags, type Tree } from '../../lib/trees/tree.js';
import { bracketingKey, selectKbest, tagOnlyVariantShare } from '../../lib/trees/kbest-modes.js';
import { ChartParserModel } from '../../lib/parser/chart-parser.js';
import { chartParserBase } from '../../lib/pipeline/adapters/parser.js';
import type { PipelineSentence } from '../../lib/pipeline/components.js';
import { validatePipelineConfig, type ParserBaseConfig } from '../../lib/pipeline/config.js';

const cand = (text: string, logprob: number): { tree: Tree; logprob: number } => ({ tree: parseTree(text), logprob });

describe('k-best modes on a hand-made pool', () => {
  // Two bracketings (NP VP vs one flat S), each with two taggings of "time".
  const pool = [
    cand('(S (NP (N time)) (VP (V flies)))', -1),
    cand('(S (NP (V time)) (VP (V flies)))', -2),
    cand('(S (N time) (V flies))', -2.5),
    cand('(S (NP (N time)) (VP (N flies)))', -3),
    cand('(S (V time) (N flies))', -4),
  ];

  it('all: the first k', () => {
    expect(selectKbest(pool, 3, 'all')).toEqual(pool.slice(0, 3));
  });

  it('max: one candidate per bracketing, its best tagging, in pool order', () => {
    const got = selectKbest(pool, 10, 'max');
    expect(got).toEqual([pool[0], pool[2]]);
    expect(selectKbest(pool, 1, 'max')).toEqual([pool[0]]);
  });

  it('sum: tag variants summed, ordered by the sum', () => {
    const got = selectKbest(pool, 10, 'sum');
    expect(got.map((c) => formatTree(c.tree))).toEqual([formatTree(pool[0].tree), formatTree(pool[2].tree)]);
    expect(got[0].logprob).toBeCloseTo(Math.log(Math.exp(-1) + Math.exp(-2) + Math.exp(-3)), 12);
    expect(got[1].logprob).toBeCloseTo(Math.log(Math.exp(-2.5) + Math.exp(-4)), 12);
    // A bracketing whose variants outweigh a better single tree comes first.
    const flip = [cand('(S (A a) (B b))', -1), cand('(S (X (A a)) (B b))', -1.2), cand('(S (X (C a)) (B b))', -1.2)];
    expect(selectKbest(flip, 2, 'sum').map((c) => formatTree(c.tree))).toEqual([
      '(S (X (A a)) (B b))',
      '(S (A a) (B b))',
    ]);
  });

  it('fixed: only the trees with the first tree tags', () => {
    const got = selectKbest(pool, 10, 'fixed');
    expect(got).toEqual([pool[0], pool[2]]);
    expect(got.every((c) => tags(c.tree).join(' ') === 'N V')).toBe(true);
  });

  it('counts tag-only variants', () => {
    expect(tagOnlyVariantShare(pool)).toEqual({ variants: 3, candidates: 5 });
    expect(bracketingKey(pool[0].tree)).toBe(bracketingKey(pool[1].tree));
    expect(bracketingKey(pool[0].tree)).not.toBe(bracketingKey(pool[2].tree));
  });
});

describe('k-best modes on a small grammar, against every parse', () => {
  // Words ambiguous between tags and attachments, so many trees differ only in tags.
  const treebank = [
    '(S (NP (N time)) (VP (V flies) (PP (P like) (NP (D an) (N arrow)))))',
    '(S (NP (N fruit) (N flies)) (VP (V like) (NP (D a) (N banana))))',
    '(S (NP (N time)) (VP (V flies)))',
    '(S (NP (D the) (N flies)) (VP (V like) (NP (N time))))',
    '(S (VP (V time) (NP (N flies))))',
    '(S (NP (N fruit)) (VP (V flies) (PP (P like) (NP (N time)))))',
    '(S (NP (D an) (N arrow)) (VP (V flies)))',
    '(S (NP (N time) (N flies)) (VP (V like) (NP (D an) (N arrow))))',
    '(S (NP (N like)) (VP (V arrow)))',
    '(S (NP (A time) (N flies)) (VP (V like) (NP (D an) (N arrow))))',
  ].map((t) => parseTree(t));
  const sentence = ['time', 'flies', 'like', 'an', 'arrow'];
  let model: ChartParserModel;
  let every: { tree: Tree; logprob: number }[];

  beforeAll(async () => {
    model = await ChartParserModel.train(treebank, { threads: 1, markov: 1 });
    const [p] = await model.parseNbest([sentence], 1000, { threads: 1 });
    every = p.candidates;
  });

  it('the grammar has tag-only variants and fewer than 1000 parses (the list is complete)', () => {
    expect(every.length).toBeLessThan(1000);
    expect(tagOnlyVariantShare(every).variants).toBeGreaterThan(0);
  });

  it('max: distinct bracketings, each scored by its best tagging, best first (brute force)', async () => {
    const best = new Map<string, number>();
    for (const c of every)
      best.set(bracketingKey(c.tree), Math.max(best.get(bracketingKey(c.tree)) ?? -Infinity, c.logprob));
    const expected = [...best.entries()].sort((a, b) => b[1] - a[1]);
    const k = Math.min(5, expected.length);
    const [p] = await model.parseNbest([sentence], 40, { threads: 1 });
    const got = selectKbest(p.candidates, k, 'max');
    expect(new Set(got.map((c) => bracketingKey(c.tree))).size).toBe(got.length);
    expect(got.length).toBe(k);
    got.forEach((c, i) => {
      expect(c.logprob).toBeCloseTo(expected[i][1], 9);
      expect(c.logprob).toBeCloseTo(best.get(bracketingKey(c.tree)) as number, 9);
    });
  });

  it('fixed: the best trees that keep the 1-best tags, in order (brute force)', async () => {
    const oneBest = tags(every[0].tree).join(' ');
    const expected = every.filter((c) => tags(c.tree).join(' ') === oneBest).map((c) => formatTree(c.tree));
    const [p] = await model.parseNbest([sentence], 40, { threads: 1 });
    const got = selectKbest(p.candidates, 3, 'fixed');
    expect(got.length).toBe(Math.min(3, expected.length));
    expect(got.map((c) => formatTree(c.tree))).toEqual(expected.slice(0, got.length));
    for (const c of got) expect(tags(c.tree).join(' ')).toBe(oneBest);
  });

  it('the pipeline base writes every mode from one pool', async () => {
    const base = chartParserBase({
      markov: 1,
      crf: false,
      epochs: 1,
      devPass: false,
      mbr: false,
      tagSets: true,
      margin: 0,
      rareThreshold: 1,
      kbest: 'max',
      pool: 40,
    });
    const sentences: PipelineSentence[] = treebank.map((t, i) => ({
      id: String(i),
      tokens: sentenceWords(t),
      gold: formatTree(t),
    }));
    const producer = await base.train(sentences, { threads: 1, seed: 1 });
    expect(producer.nbestVariants).toBeDefined();
    const { main, variants } = await producer.nbestVariants!(sentences.slice(0, 3), 4, { threads: 1, seed: 1 });
    expect(Object.keys(variants).sort()).toEqual(['all', 'fixed', 'max', 'sum']);
    expect(main).toEqual(variants.max);
    for (const s of variants.max) {
      const keys = s.candidates.map((c) => bracketingKey(parseTree(c.tree as string)));
      expect(new Set(keys).size).toBe(keys.length);
    }
    variants.fixed.forEach((s, i) => {
      const first = tags(parseTree(variants.all[i].candidates[0].tree as string)).join(' ');
      for (const c of s.candidates) expect(tags(parseTree(c.tree as string)).join(' ')).toBe(first);
    });
    for (const s of variants.all) expect(s.candidates.length).toBeLessThanOrEqual(4);
  });

  it('a pipeline config that names no mode gets lists over bracketings with tags summed', async () => {
    const data = { train: 'train.mrg', dev: 'dev.mrg', test: 'test.mrg' };
    const config = validatePipelineConfig({ task: 'parse', data, rerankers: [{ type: 'boost' }] }, 'p.json', '/');
    const options = config.base as ParserBaseConfig;
    expect(options.kbest).toBe('sum');
    const named = validatePipelineConfig(
      { task: 'parse', data, base: { kbest: 'all' }, rerankers: [{ type: 'boost' }] },
      'p.json',
      '/',
    );
    expect((named.base as ParserBaseConfig).kbest).toBe('all');
    const sentences: PipelineSentence[] = treebank.map((t, i) => ({
      id: String(i),
      tokens: sentenceWords(t),
      gold: formatTree(t),
    }));
    const producer = await chartParserBase({ ...options, crf: false, markov: 1, rareThreshold: 1 }).train(sentences, {
      threads: 1,
      seed: 1,
    });
    const lists = await producer.nbest(sentences.slice(0, 3), 4, { threads: 1, seed: 1 });
    const [pool] = await ChartParserModel.train(treebank, { markov: 1, rareThreshold: 1, threads: 1 }).then((m) =>
      m.parseNbest([sentences[0].tokens], 20, { threads: 1 }),
    );
    expect(lists[0].candidates.map((c) => c.tree)).toEqual(
      selectKbest(pool.candidates, 4, 'sum').map((c) => formatTree(c.tree)),
    );
    for (const s of lists) {
      const keys = s.candidates.map((c) => bracketingKey(parseTree(c.tree as string)));
      expect(new Set(keys).size).toBe(keys.length);
    }
  });
});

function sentenceWords(t: Tree): string[] {
  const out: string[] = [];
  const walk = (n: Tree): void => {
    if (n.word !== undefined) out.push(n.word);
    else n.children.forEach(walk);
  };
  walk(t);
  return out;
}

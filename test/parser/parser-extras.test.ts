import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { formatTree, preterminals, words, type Tree } from '../../lib/trees/tree.js';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { ChartParserModel } from '../../lib/parser/chart-parser.js';
import { readClustersSync } from '../../lib/parser/clusters.js';
import { CRF_DEFAULTS, PCFG_RARE_THRESHOLD, PCFG_SHAPE_BACKOFF } from '../../lib/options/parser.js';
import { InputError } from '../../lib/errors.js';
import { decodeModel } from '../../lib/io/model-file.js';
import { runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const trees = (lines: string[]): Tree[] => lines.map((l) => parseTree(l));

/** Saves `m` and loads it back; both parse one sentence, for the caller to compare. */
async function reloadAndParse(m: ChartParserModel, name: string) {
  const file = tmp.file(name);
  m.save(file);
  const back = await ChartParserModel.load(file);
  const sentence = [['the', 'cat', 'saw', 'it']];
  const [a] = await m.parse(sentence, { threads: 1 });
  const [b] = await back.parse(sentence, { threads: 1 });
  return { back, a, b };
}

// NP^S -> DT NN and NP^VP -> PRP are seen; "it barked" needs NP^S -> PRP (relaxed).
const relaxable = [
  '(ROOT (S (NP (DT the) (NN dog)) (VP (VBD saw) (NP (PRP it)))))',
  '(ROOT (S (NP (DT the) (NN cat)) (VP (VBD barked))))',
];

// Every word seen twice except the rare "cats" (NNS, signature -LC-s) and "cat".
const clusterable = [
  '(ROOT (S (NP (DT the) (NN dog)) (VP (VBD barked))))',
  '(ROOT (S (NP (DT the) (NN dog)) (VP (VBD barked))))',
  '(ROOT (S (NP (DT the) (NNS cats)) (VP (VBD slept))))',
  '(ROOT (S (NP (DT the) (NN cat)) (VP (VBD slept))))',
];

describe('chart parser extras', () => {
  it('grammar relaxation: adds the parent variants of rules, so a sentence needing one parses', async () => {
    const plain = await ChartParserModel.train(trees(relaxable), { threads: 1 });
    const relaxed = await ChartParserModel.train(trees(relaxable), { relax: true, threads: 1 });
    const a = plain.info();
    const b = relaxed.info();
    expect([a.binaryRules, a.unaryRules, a.relaxedBinaryRules]).toEqual([3, 2, 0]);
    expect([b.binaryRules, b.unaryRules, b.relaxedBinaryRules, b.relaxedUnaryRules]).toEqual([4, 3, 1, 1]);
    const [without] = await plain.parse([['it', 'barked']], { threads: 1 });
    expect(without.fallback).toBe(true);
    const [withRelax] = await relaxed.parse([['it', 'barked']], { threads: 1 });
    expect(withRelax.fallback).toBe(false);
    expect(formatTree(withRelax.tree)).toBe('(ROOT (S (NP (PRP it)) (VP (VBD barked))))');
    // The relaxed rule NP^S -> PRP has the small smoothed probability 0.01 * 1/3.
    expect(withRelax.logprob).toBeLessThan(Math.log(0.01 / 3) + 1e-9);
    // The CRF (with parent annotation, which relaxation pools) trains over the relaxed grammar
    // and keeps the relaxed parse.
    const crf = await ChartParserModel.train(trees(relaxable), {
      relax: true,
      parent: true,
      crf: true,
      epochs: 3,
      batch: 2,
      threads: 1,
    });
    expect(crf.info()).toMatchObject({ relaxedBinaryRules: 1, relaxedUnaryRules: 1 });
    expect((await crf.parse([['it', 'barked']], { threads: 1 }))[0].fallback).toBe(false);
  });

  it('grammar relaxation without parent annotation (the CRF default) is refused, not a silent no-op', async () => {
    await expect(ChartParserModel.train(trees(relaxable), { relax: true, crf: true, threads: 1 })).rejects.toThrow(
      /relax needs parent annotation/,
    );
    await expect(ChartParserModel.train(trees(relaxable), { relax: true, parent: false, threads: 1 })).rejects.toThrow(
      /relax needs parent annotation/,
    );
  });

  it('word clusters: reads the file, gives unknown words the tags of their cluster, and are kept in the model', async () => {
    const file = tmp.file('clusters.txt', 'barked\t0101\nslept\t0100\nzorps\t0101\t17\n\ndog\t1100\n');
    expect(readClustersSync(file)).toEqual({
      words: ['barked', 'slept', 'zorps', 'dog'],
      clusters: ['0101', '0100', '0101', '1100'],
    });
    // Rare words are the hapaxes here (the PCFG's default counts every word of this tiny treebank as rare).
    const plain = await ChartParserModel.train(trees(clusterable), { rareThreshold: 1, threads: 1 });
    const withClusters = await ChartParserModel.train(trees(clusterable), {
      clusters: file,
      rareThreshold: 1,
      threads: 1,
    });
    expect(withClusters.info().clusterWords).toBe(4);
    // "zorps" is unknown; its signature was seen only with NNS, its cluster with VBD.
    const sentence = [['the', 'dog', 'zorps']];
    const [p0] = await plain.parse(sentence, { threads: 1 });
    const [p1] = await withClusters.parse(sentence, { threads: 1 });
    expect(preterminals(p1.tree).map((t) => t.label)).toEqual(['DT', 'NN', 'VBD']);
    // Without clusters VBD is reachable only through the every-tag retry (1e-3 penalty).
    expect(p1.logprob).toBeGreaterThan(p0.logprob + 2);
    const saved = tmp.file('clusters.model');
    withClusters.save(saved);
    const back = await ChartParserModel.load(saved);
    expect(back.info().clusterWords).toBe(4);
    const [p2] = await back.parse(sentence, { threads: 1 });
    expect(p2.logprob).toBeCloseTo(p1.logprob, 9);
    // CRF lexicon features over clusters: more sparse weights than without.
    const crfPlain = await ChartParserModel.train(trees(clusterable), { crf: true, epochs: 1, batch: 2, threads: 1 });
    const crfClusters = await ChartParserModel.train(trees(clusterable), {
      clusters: file,
      crf: true,
      epochs: 1,
      batch: 2,
      threads: 1,
    });
    expect(crfClusters.info().weights).toBeGreaterThan(crfPlain.info().weights);
  });

  it('unknown words: the PCFG backs P(tag | signature) off to the suffix-less shape, the CRF keeps the prior', async () => {
    const pcfg = await ChartParserModel.train(trees(clusterable), { threads: 1 });
    const crf = await ChartParserModel.train(trees(clusterable), { crf: true, epochs: 1, batch: 2, threads: 1 });
    expect(pcfg.info().shapeBackoff).toBe(PCFG_SHAPE_BACKOFF);
    expect(crf.info().shapeBackoff).toBe(0);
    // Rare words: the PCFG's default, the CRF's 1, or what is asked for.
    expect(pcfg.info().rareThreshold).toBe(PCFG_RARE_THRESHOLD);
    expect(crf.info().rareThreshold).toBe(CRF_DEFAULTS.rareThreshold);
    const saved = tmp.file('backoff.model');
    pcfg.save(saved);
    const back = await ChartParserModel.load(saved);
    expect(back.info().shapeBackoff).toBe(PCFG_SHAPE_BACKOFF);
    expect(back.info().rareThreshold).toBe(PCFG_RARE_THRESHOLD);
    expect(
      (await ChartParserModel.train(trees(clusterable), { rareThreshold: 2, threads: 1 })).info().rareThreshold,
    ).toBe(2);
    // Kept in the model file: an unknown word parses the same after the round trip.
    const sentence = [['the', 'dog', 'zorps']];
    expect((await back.parse(sentence, { threads: 1 }))[0].logprob).toBeCloseTo(
      (await pcfg.parse(sentence, { threads: 1 }))[0].logprob,
      9,
    );
  });

  it('word clusters: malformed lines are InputErrors naming the file and line', () => {
    const bad = tmp.file('bad-clusters.txt', 'dog\t0101\ncat 0100\n');
    expect(() => readClustersSync(bad)).toThrow(InputError);
    expect(() => readClustersSync(bad)).toThrow(/bad-clusters\.txt:2: expected 'word<TAB>cluster'/);
    const twice = tmp.file('twice-clusters.txt', 'dog\t0101\ndog\t0100\n');
    expect(() => readClustersSync(twice)).toThrow(/twice-clusters\.txt:2: word 'dog' already has cluster '0101'/);
    const empty = tmp.file('empty-clusters.txt', 'dog\t\n');
    expect(() => readClustersSync(empty)).toThrow(/empty-clusters\.txt:1: /);
  });

  it('tag-set surface features: on by default for the CRF, off when asked, saved with the model', async () => {
    const data = trees([...relaxable, ...clusterable]);
    const options = { crf: true, epochs: 1, batch: 2, threads: 1, surfaceBits: 12 } as const;
    const on = await ChartParserModel.train(data, options);
    const off = await ChartParserModel.train(data, { ...options, tagSets: false });
    expect(CRF_DEFAULTS.tagSets).toBe(true);
    expect(on.info().tagSets).toBe(true);
    expect(off.info().tagSets).toBe(false);
    // The features are trained: the two models' weights differ.
    expect(Buffer.from(on.toBytes()).equals(Buffer.from(off.toBytes()))).toBe(false);
    const { back, a, b } = await reloadAndParse(on, 'tag-sets.model');
    expect(back.info().tagSets).toBe(true);
    expect(formatTree(b.tree)).toBe(formatTree(a.tree));
    expect(b.logprob).toBe(a.logprob);
    const pcfg = await ChartParserModel.train(data, { threads: 1 });
    expect(pcfg.info().tagSets).toBe(false);
  });

  it('verb-lexicalized rule features: off by default, on when asked, saved with the model', async () => {
    const data = trees([...relaxable, ...clusterable]);
    const off = await ChartParserModel.train(data, { crf: true, epochs: 1, batch: 2, threads: 1 });
    const on = await ChartParserModel.train(data, { crf: true, epochs: 1, batch: 2, threads: 1, verbFeatures: true });
    expect(off.info().verbFeatures).toBe(false);
    expect(on.info().verbFeatures).toBe(true);
    // One feature per (rule, verb) seen: VP -> VBD NP with "saw" (the unary VP -> VBD has rule x word already).
    expect(on.info().weights).toBe(off.info().weights + 1);
    const { back, a, b } = await reloadAndParse(on, 'verb.model');
    expect(back.info().verbFeatures).toBe(true);
    expect(formatTree(b.tree)).toBe(formatTree(a.tree));
    expect(b.logprob).toBeCloseTo(a.logprob, 9);
  });
});

// A Floresta-style scheme (no Penn label or tag): finite verbs head the clauses, and the verb
// chains vp (auxiliary + infinitive, or a gerund + participle) are headed by their first verb.
const floresta: string[] = [];
for (let k = 0; k < 24; k++) {
  floresta.push(`( (fcl (pron-pers ele) (v-fin v${k}) (np (art a) (n m${k})) (. .)))`);
  const chain = k % 3 === 2 ? '(v-ger estando) (v-pcp feito)' : `(v-fin ${['pode', 'vai'][k % 3]}) (v-inf i${k})`;
  floresta.push(`( (fcl (np (art a) (n p${k})) (vp ${chain}) (pp (prp em) (np (n q${k}))) (. .)))`);
}

describe('chart parser on a scheme without Penn labels', () => {
  it('verb-lexicalized rule features come from the learned verb tags (v-fin), not VB*', async () => {
    const off = await ChartParserModel.train(trees(floresta), { crf: true, epochs: 1, batch: 4, threads: 1 });
    const on = await ChartParserModel.train(trees(floresta), {
      crf: true,
      epochs: 1,
      batch: 4,
      threads: 1,
      verbFeatures: true,
    });
    // One weight per (binary rule, verb word) pair seen with a verb-like child; with VB* there were none.
    expect(on.info().weights).toBeGreaterThan(off.info().weights);
  });
});

describe('chart parser CRF feature-id cache', () => {
  it('caches every trained sentence under the cap and trains exactly as without it', async () => {
    const data = trees([...relaxable, ...clusterable]);
    let cached = 0;
    let bytes = 0;
    const sentence = [['the', 'dog', 'saw', 'it']];
    const a = await ChartParserModel.train(data, {
      crf: true,
      epochs: 3,
      batch: 2,
      threads: 1,
      onProgress: (p) => ((cached = p.cachedSentences), (bytes = p.featureCacheBytes)),
    });
    expect(cached).toBeGreaterThan(0);
    expect(bytes).toBeGreaterThan(0);
    const b = await ChartParserModel.train(data, {
      crf: true,
      epochs: 3,
      batch: 2,
      threads: 1,
      featureCacheMB: 0,
      onProgress: (p) => ((cached = p.cachedSentences), (bytes = p.featureCacheBytes)),
    });
    expect(cached).toBe(0);
    expect(bytes).toBe(0);
    expect(Buffer.from(b.toBytes()).equals(Buffer.from(a.toBytes()))).toBe(true);
    expect((await b.parse(sentence))[0].logprob).toBe((await a.parse(sentence))[0].logprob);
  });
});

describe('chart parser extras CLI', () => {
  it('train-parser --crf --relax without --parent is a usage error naming --parent', () => {
    const trainFile = tmp.file('relax-only.mrg', relaxable.join('\n') + '\n');
    const model = tmp.file('relax-only.model');
    const r = runCli(['train-parser', '--train', trainFile, '--model', model, '--crf', '--relax', '--threads', '1']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/relax needs parent annotation/);
    expect(existsSync(model)).toBe(false);
  });

  it('train-parser --cluster-text: clusters of the training words and a text, lowercased, in the surface features', () => {
    const trainFile = tmp.file('cluster-text.mrg', clusterable.join('\n') + '\n');
    const text = tmp.file('cluster-text.txt', 'The dog barked\nthe cat slept\n\nA Cat zorps\n');
    const model = tmp.file('cluster-text.model');
    const args = ['train-parser', '--train', trainFile, '--model', model, '--crf', '--epochs', '1', '--threads', '1'];
    const r = runCli([...args, '--cluster-text', text, '--cluster-classes', '3']);
    expect(r.stderr).toMatch(/train-parser: 8 words in 3 clusters in /); // the, dog, barked, cats, slept, cat, a, zorps
    expect(r.status).toBe(0);
    expect(ChartParserModel.loadSync(model).info()).toMatchObject({
      crf: true,
      clusterWords: 8,
      surfaceClusters: true,
    });
    const alone = runCli([...args, '--cluster-text', 'train']);
    expect(alone.stderr).toMatch(/train-parser: 6 words in 6 clusters in /);
    expect(alone.status).toBe(0);
    const plain = runCli(args);
    expect(plain.status).toBe(0);
    expect(ChartParserModel.loadSync(model).info()).toMatchObject({ clusterWords: 0, surfaceClusters: false });
    const both = runCli([...args, '--cluster-text', text, '--clusters', text]);
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/give --clusters or --cluster-text, not both/);
  });

  it('train-parser --clusters --relax --verb-features, then parse with the model alone', () => {
    const trainFile = tmp.file('extras.mrg', [...relaxable, ...clusterable].join('\n') + '\n');
    const clusters = tmp.file('cli-clusters.txt', 'barked\t0101\nzorps\t0101\n');
    const model = tmp.file('extras.model');
    const r = runCli([
      'train-parser',
      '--train',
      trainFile,
      '--model',
      model,
      '--crf',
      '--epochs',
      '2',
      '--batch',
      '2',
      '--clusters',
      clusters,
      '--relax',
      '--parent',
      '--verb-features',
      '--feature-cache-mb',
      '16',
      '--threads',
      '1',
    ]);
    expect(r.stderr).toMatch(/\([1-9]\d* \+ \d+ from relaxation\)/);
    expect(r.stderr).toMatch(/2 cluster words/);
    expect(r.status).toBe(0);
    expect(ChartParserModel.loadSync(model).info()).toMatchObject({ crf: true, verbFeatures: true, clusterWords: 2 });
    const input = tmp.file('extras.txt', 'it barked\nthe dog zorps\n');
    const out = tmp.file('extras.out');
    const p = runCli(['parse', '--model', model, '--input', input, '--out', out]);
    expect(p.status).toBe(0);
    const parsed = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => parseTree(l));
    expect(parsed.map((t) => words(t))).toEqual([
      ['it', 'barked'],
      ['the', 'dog', 'zorps'],
    ]);
    expect(formatTree(parsed[0])).toBe('(ROOT (S (NP (PRP it)) (VP (VBD barked))))');
    const badClusters = tmp.file('cli-bad-clusters.txt', 'barked\t0101\nzorps\n');
    const bad = runCli(['train-parser', '--train', trainFile, '--model', model, '--clusters', badClusters]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/cli-bad-clusters\.txt:2: expected 'word<TAB>cluster'/);
    expect(bad.stderr).not.toMatch(/    at /);
    // Verb features are off unless asked for.
    const noVerbs = runCli([
      'train-parser',
      '--train',
      trainFile,
      '--model',
      model,
      '--crf',
      '--epochs',
      '1',
      '--threads',
      '1',
    ]);
    expect(noVerbs.status).toBe(0);
    expect(ChartParserModel.loadSync(model).info().verbFeatures).toBe(false);
  }, 60_000);
});

describe('chart parser retry with every tag', () => {
  // Every word seen twice, so the tag dictionary holds: "slept dogs" (VBD NNS) has no tree,
  // every tag for every word gives one (slept/NNS dogs/VBD).
  const data = ['(ROOT (S (NP (DT the) (NN dog)) (VP (VBD barked))))', '(ROOT (S (NP (NNS dogs)) (VP (VBD slept))))'];
  it('new CRF models record the pruned retry; parse --retry chooses either', async () => {
    const trainFile = tmp.file('retry.mrg', [...data, ...data].join('\n') + '\n');
    const train = (model: string, ...extra: string[]): void => {
      const args = ['--train', trainFile, '--model', model, '--crf', '--epochs', '1', '--batch', '2'];
      expect(runCli(['train-parser', ...args, ...extra, '--threads', '1']).status).toBe(0);
    };
    const pruneRetryOf = (file: string): boolean | undefined =>
      decodeModel<{ pruneRetry?: boolean }>(readFileSync(file)).meta.pruneRetry;
    const model = tmp.file('retry.model');
    train(model);
    expect(pruneRetryOf(model)).toBe(true);
    const exhaustive = tmp.file('retry-exhaustive.model');
    train(exhaustive, '--prune', '0');
    expect(pruneRetryOf(exhaustive)).toBeUndefined();
    const parser = await ChartParserModel.load(model);
    const [pruned] = await parser.parse([['slept', 'dogs']], { threads: 1 });
    const [whole] = await parser.parse([['slept', 'dogs']], { threads: 1, pruneRetry: false });
    expect(pruned.fallback).toBe(false);
    expect(whole.fallback).toBe(false);
    expect(formatTree(pruned.tree)).toBe(formatTree(whole.tree));
    // The tree took the retry: the tag dictionary allows "slept" only VBD.
    expect(preterminals(pruned.tree)[0].label).not.toBe('VBD');
    expect(pruned.logprob).toBeGreaterThanOrEqual(whole.logprob - 1e-9);
    const input = tmp.file('retry.txt', 'slept dogs\n');
    for (const retry of ['pruned', 'exhaustive']) {
      const out = tmp.file(`retry-${retry}.out`);
      const p = runCli(['parse', '--model', model, '--input', input, '--out', out, '--retry', retry]);
      expect(p.status).toBe(0);
      expect(readFileSync(out, 'utf8').trim()).toBe(formatTree(pruned.tree));
    }
    const bad = runCli(['parse', '--model', model, '--input', input, '--retry', 'sometimes']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--retry/);
  });
});

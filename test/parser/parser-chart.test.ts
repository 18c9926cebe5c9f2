import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readTreesSync } from '../../lib/io/treebank.js';
import { formatTree, words, type Tree } from '../../lib/trees/tree.js';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import {
  CRF_DEFAULTS,
  ChartParserModel,
  type ParserTrainOptions,
  type ParserTrainSummary,
} from '../../lib/parser/chart-parser.js';
import { evaluateParser } from '../../lib/parser/evaluate.js';
import { withRootOf } from '../../lib/trees/transforms.js';
import { evalbCorpus } from '../../lib/eval/evalb.js';
import { treeWords } from '../../lib/parser/input.js';
import { join } from 'node:path';
import { repoRoot, runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

// The shipped GUM trees, so the parser is tested on every checkout; from 4 words on, as
// headings such as "Introduction ." have a single parse.
const short = (file: string, max: number, limit: number): Tree[] =>
  readTreesSync(join(repoRoot, 'data', 'gum-open', file))
    .filter((t) => treeWords(t).length >= 4 && treeWords(t).length <= max)
    .slice(0, limit);

let pcfg: ChartParserModel;
let crf: ChartParserModel;
const train = short('train.mrg', 12, 400);
const dev = short('dev.mrg', 12, 40);

beforeAll(async () => {
  pcfg = await ChartParserModel.train(train, { threads: 2 });
  crf = await ChartParserModel.train(train, { crf: true, epochs: 2, threads: 2 });
}, 120_000);

/** A treebank file of `trees` in the temp folder, one tree per line. */
const treeFile = (name: string, trees: readonly Tree[]): string =>
  tmp.file(name, trees.map((t) => formatTree(t)).join('\n') + '\n');

/** A 2-pass CRF on 150 trees with dev scored after each pass: the model, each pass's dev F1, the summary. */
// The CRF alone (pcfgWeight 0): these tests are about its passes.
async function trainScoredOnDev(
  options: ParserTrainOptions,
): Promise<{ m: ChartParserModel; passes: number[]; summary: ParserTrainSummary }> {
  const passes: number[] = [];
  const summary: ParserTrainSummary = { surfaceGoldFeatures: 0, surfaceCollisionRate: 0 };
  const m = await ChartParserModel.train(train.slice(0, 150), {
    crf: true,
    epochs: 2,
    threads: 1,
    pcfgWeight: 0,
    headModel: false,
    dev,
    summary,
    onPass: (r) => passes.push(r.devF1 ?? NaN),
    ...options,
  });
  return { m, passes, summary };
}

describe('chart parser', () => {
  it('parses every sentence with exactly its words, and beats a trivial score', async () => {
    const sentences = dev.map((t) => treeWords(t));
    const parses = await pcfg.parse(sentences, { threads: 2 });
    expect(parses).toHaveLength(sentences.length);
    parses.forEach((p, i) => expect(words(p.tree)).toEqual(sentences[i]));
    const r = await evaluateParser(pcfg, dev, { threads: 2 });
    expect(r.f1).toBeGreaterThan(50);
  });

  it('returns distinct k-best trees in non-increasing log-probability, the first equal to the 1-best', async () => {
    const sentences = dev.slice(0, 8).map((t) => treeWords(t));
    const one = await pcfg.parse(sentences, { threads: 2 });
    const nbest = await pcfg.parseNbest(sentences, 20, { threads: 2 });
    nbest.forEach((s, i) => {
      expect(s.candidates.length).toBeGreaterThan(1);
      expect(formatTree(s.candidates[0].tree)).toBe(formatTree(one[i].tree));
      expect(s.candidates[0].logprob).toBeCloseTo(one[i].logprob, 9);
      const keys = s.candidates.map((c) => formatTree(c.tree));
      expect(new Set(keys).size).toBe(keys.length);
      for (let c = 1; c < s.candidates.length; c++)
        expect(s.candidates[c].logprob).toBeLessThanOrEqual(s.candidates[c - 1].logprob + 1e-9);
    });
  });

  it('parse-time beam: a wide beam gives the exact parses, a narrow one still parses every sentence', async () => {
    const sentences = dev.slice(0, 10).map((t) => treeWords(t));
    const exact = await pcfg.parse(sentences, { threads: 2 });
    const wide = await pcfg.parse(sentences, { threads: 2, beam: 1000 });
    expect(wide.map((p) => formatTree(p.tree))).toEqual(exact.map((p) => formatTree(p.tree)));
    const narrow = await pcfg.parse(sentences, { threads: 2, beam: 2 });
    narrow.forEach((p, i) => {
      expect(words(p.tree)).toEqual(sentences[i]);
      expect(p.logprob).toBeLessThanOrEqual(exact[i].logprob + 1e-9);
    });
  });

  it('CRF log-probabilities are conditional (k-best mass <= 1) and its parses keep the words', async () => {
    expect(crf.isCrf).toBe(true);
    const sentences = dev.slice(0, 6).map((t) => treeWords(t));
    const nbest = await crf.parseNbest(sentences, 30, { threads: 2 });
    nbest.forEach((s, i) => {
      const mass = s.candidates.reduce((a, c) => a + Math.exp(c.logprob), 0);
      expect(mass).toBeLessThanOrEqual(1 + 1e-6);
      expect(mass).toBeGreaterThan(0);
      expect(words(s.candidates[0].tree)).toEqual(sentences[i]);
    });
    const r = await evaluateParser(crf, dev, { threads: 2 });
    expect(r.f1).toBeGreaterThan(50);
  });

  it('MBR decoding: keeps the words, scores at most the Viterbi tree, k-best Viterbi unless asked; stored as the parse default', async () => {
    const sentences = dev.slice(0, 40).map((t) => treeWords(t));
    const viterbi = await crf.parse(sentences, { threads: 2, decode: 'viterbi' });
    const mbr = await crf.parse(sentences, { threads: 2 }); // the default
    expect((await crf.parse(sentences, { threads: 2, decode: 'mbr' })).map((p) => formatTree(p.tree))).toEqual(
      mbr.map((p) => formatTree(p.tree)),
    );
    expect(mbr.some((p, i) => formatTree(p.tree) !== formatTree(viterbi[i].tree))).toBe(true);
    mbr.forEach((p, i) => {
      expect(words(p.tree)).toEqual(sentences[i]);
      expect(p.logprob).toBeLessThanOrEqual(viterbi[i].logprob + 1e-9);
    });
    const one = await crf.parseNbest(sentences, 1, { threads: 2, decode: 'mbr' });
    expect(one.map((s) => formatTree(s.candidates[0].tree))).toEqual(mbr.map((p) => formatTree(p.tree)));
    // k-best lists stay Viterbi unless MBR is asked for: then the MBR tree heads them.
    const kbest = await crf.parseNbest(sentences, 3, { threads: 2 });
    expect(kbest.map((s) => formatTree(s.candidates[0].tree))).toEqual(viterbi.map((p) => formatTree(p.tree)));
    const mbrKbest = await crf.parseNbest(sentences, 3, { threads: 2, decode: 'mbr' });
    expect(mbrKbest.map((s) => formatTree(s.candidates[0].tree))).toEqual(mbr.map((p) => formatTree(p.tree)));
    // A Viterbi list with its MBR tree from one chart: what the two parses give.
    const both = await crf.parseNbest(sentences, 3, { threads: 2, mbrTree: true });
    expect(both.map((s) => s.candidates)).toEqual(kbest.map((s) => s.candidates));
    both.forEach((s, i) => {
      expect(formatTree(s.mbrTree!.tree)).toBe(formatTree(mbr[i].tree));
      expect(s.mbrTree!.logprob).toBeCloseTo(mbr[i].logprob, 9);
      expect(s.brackets).toEqual(one[i].brackets);
    });
    expect(kbest.every((s) => s.mbrTree === undefined)).toBe(true);
    // A PCFG's (and an MBR list's) stands at the head of the list.
    const pcfg = await crf.parseNbest(sentences, 3, { threads: 2, pcfg: true, mbrTree: true });
    expect(pcfg.every((s) => s.mbrTree === s.candidates[0])).toBe(true);
    const mbrBoth = await crf.parseNbest(sentences, 3, { threads: 2, decode: 'mbr', mbrTree: true });
    expect(mbrBoth.map((s) => formatTree(s.mbrTree!.tree))).toEqual(mbr.map((p) => formatTree(p.tree)));
    // A model trained with decode 'mbr' parses with it by default, after a save and load too.
    const m = await ChartParserModel.train(train.slice(0, 100), { crf: true, epochs: 1, threads: 2, decode: 'mbr' });
    const file = tmp.file('mbr.model');
    m.save(file);
    const back = await ChartParserModel.load(file);
    const explicit = (await m.parse(sentences, { threads: 2, decode: 'mbr' })).map((p) => formatTree(p.tree));
    expect((await back.parse(sentences, { threads: 2 })).map((p) => formatTree(p.tree))).toEqual(explicit);
    const plain = (await m.parse(sentences, { threads: 2, decode: 'viterbi' })).map((p) => formatTree(p.tree));
    expect((await back.parse(sentences, { threads: 2, decode: 'viterbi' })).map((p) => formatTree(p.tree))).toEqual(
      plain,
    );
  });

  it('an ensemble with itself is the MBR parse; with a Markov-1 CRF it parses every sentence and gives MBR k-best lists; it refuses what it cannot mean', async () => {
    const sentences = dev.map((t) => treeWords(t));
    // An ensemble leaves the model's PCFG out (no pcfgWeight given): the CRF alone's MBR parse.
    const alone = await crf.parse(sentences, { threads: 2, decode: 'mbr', pcfgWeight: 0 });
    // The mean of a model's posteriors with its own: the same trees and scores here, where the
    // second copy's chart, masked by the first's posteriors, keeps the mass that decides them.
    for (const ensemble of [[crf], [crf, crf]]) {
      const same = await crf.parse(sentences, { threads: 2, decode: 'mbr', ensemble });
      expect(same.map((p) => formatTree(p.tree))).toEqual(alone.map((p) => formatTree(p.tree)));
      expect(same.map((p) => p.logprob)).toEqual(alone.map((p) => p.logprob));
    }
    const markov1 = await ChartParserModel.train(train, { crf: true, markov: 1, epochs: 2, threads: 2 });
    expect(markov1.info().symbols).not.toBe(crf.info().symbols);
    const mixed = await crf.parse(sentences, { threads: 2, decode: 'mbr', ensemble: [markov1] });
    mixed.forEach((p, i) => expect(words(p.tree)).toEqual(sentences[i]));
    const f1 = (parses: { tree: Tree }[]): number =>
      evalbCorpus(dev.map((t, i) => [t, withRootOf(parses[i].tree, t)] as const)).all.f1;
    const own = await markov1.parse(sentences, { threads: 2, decode: 'mbr' });
    expect(f1(mixed)).toBeGreaterThan(Math.min(f1(alone), f1(own)) - 3);
    await expect(crf.parse(sentences, { ensemble: [pcfg] })).rejects.toThrow(/every parser must be a CRF/);
    // k > 1: the k best trees under the MBR objective, the MBR tree first, distinct, each with
    // its log-probability under the first parser.
    const first = (lists: { candidates: { tree: Tree }[] }[]) => lists.map((l) => formatTree(l.candidates[0].tree));
    const mixedLists = await crf.parseNbest(sentences, 4, { threads: 2, decode: 'mbr', ensemble: [markov1] });
    expect(first(mixedLists)).toEqual(mixed.map((p) => formatTree(p.tree)));
    const ownLists = await crf.parseNbest(sentences, 4, { threads: 2, decode: 'mbr', pcfgWeight: 0 });
    expect(first(ownLists)).toEqual(alone.map((p) => formatTree(p.tree)));
    for (const lists of [mixedLists, ownLists]) {
      expect(lists.filter((l) => l.candidates.length > 1).length).toBeGreaterThan(sentences.length / 2);
      for (const l of lists) {
        expect(new Set(l.candidates.map((c) => formatTree(c.tree))).size).toBe(l.candidates.length);
        for (const c of l.candidates) expect(c.logprob).toBeLessThanOrEqual(1e-9);
      }
    }
    // Without decode 'mbr' a single parser's lists stay its most probable trees.
    const viterbi = await crf.parseNbest(sentences, 4, { threads: 2 });
    for (const l of viterbi)
      l.candidates.forEach(
        (c, i) => i > 0 && expect(c.logprob).toBeLessThanOrEqual(l.candidates[i - 1].logprob + 1e-9),
      );
    await expect(crf.parse(sentences, { decode: 'viterbi', ensemble: [markov1] })).rejects.toThrow(/mbr/);
  }, 120_000);

  it('trains the CRF with L-BFGS as an option, lowering the objective', async () => {
    const objectives: number[] = [];
    const m = await ChartParserModel.train(train.slice(0, 100), {
      crf: true,
      optimizer: 'lbfgs',
      epochs: 4,
      threads: 2,
      // (The latent PCFGs' training after the last iteration reports as its continuation.)
      onProgress: (p) => p.step === p.stepsPerEpoch && p.latent === undefined && objectives.push(p.objective),
    });
    expect(m.isCrf).toBe(true);
    expect(objectives).toHaveLength(4);
    expect(objectives[3]).toBeLessThan(objectives[0]);
  }, 60_000);

  it('the CRF trained on 2 threads is the same bytes in every run (AdaGrad and L-BFGS)', async () => {
    // Per-thread gradients over fixed sentence sets (ParallelForFixed): the same sums each run.
    for (const optimizer of ['adagrad', 'lbfgs'] as const) {
      const bytes: Buffer[] = [];
      for (let run = 0; run < 2; run++) {
        const m = await ChartParserModel.train(train.slice(0, 150), { crf: true, optimizer, epochs: 2, threads: 2 });
        const file = tmp.file(`det-${optimizer}-${run}.model`);
        m.save(file);
        bytes.push(readFileSync(file));
      }
      expect(bytes[1].equals(bytes[0])).toBe(true);
    }
  }, 120_000);

  it('iterate averaging: the model kept is the pass scored on dev (the mean weights), not the raw last iterate', async () => {
    const avg = await trainScoredOnDev({ average: true });
    const raw = await trainScoredOnDev({ average: false });
    expect(avg.passes).toHaveLength(2);
    // The returned model is the one whose dev F1 was reported for the kept pass.
    expect((await evaluateParser(avg.m, dev, { threads: 1 })).f1).toBeCloseTo(avg.summary.bestDevF1 ?? NaN, 10);
    // Same iterates, different model: the mean of pass 1's iterates is not its last one.
    expect(avg.passes[0]).not.toBe(raw.passes[0]);
  }, 120_000);

  it('scores dev as the model is saved: the kept pass with the weight floor applied', async () => {
    const floored = await trainScoredOnDev({ weightFloor: 0.3 });
    const raw = await trainScoredOnDev({ weightFloor: 0 });
    // The floor leaves training alone but changes the parses: the passes score otherwise.
    expect(floored.passes).not.toEqual(raw.passes);
    for (const r of [floored, raw]) {
      const evaluation = await evaluateParser(r.m, dev, { threads: 1 });
      expect(r.summary.bestDev).toEqual(evaluation);
      expect(r.summary.bestDevF1).toBe(evaluation.f1);
    }
  }, 120_000);

  it('softmax-margin: each wrong bracket raises the training objective; the default is CRF_DEFAULTS.margin', async () => {
    const run = async (margin?: number): Promise<{ objective: number; bytes: Buffer }> => {
      const objectives: number[] = [];
      const m = await ChartParserModel.train(train.slice(0, 150), {
        crf: true,
        epochs: 1,
        threads: 1,
        ...(margin !== undefined ? { margin } : {}),
        onPass: (r) => objectives.push(r.objective),
      });
      const file = tmp.file(`margin-${margin ?? 'default'}.model`);
      m.save(file);
      return { objective: objectives[0], bytes: readFileSync(file) };
    };
    const plain = await run(0);
    const one = await run(1);
    const two = await run(2);
    // The same batches from the same start: a larger cost gives a larger normalizer.
    expect(one.objective).toBeGreaterThan(plain.objective);
    expect(two.objective).toBeGreaterThan(one.objective);
    expect(one.bytes.equals(plain.bytes)).toBe(false);
    expect((await run()).bytes.equals((await run(CRF_DEFAULTS.margin)).bytes)).toBe(true);
  }, 120_000);

  it('parses unknown words, and gives uncoverable sentences the flat X fallback', async () => {
    const [p] = await pcfg.parse([['The', 'blorf', 'zingled', 'quuxly', '.']], { threads: 1 });
    expect(p.fallback).toBe(false);
    expect(words(p.tree)).toEqual(['The', 'blorf', 'zingled', 'quuxly', '.']);
    const tiny = await ChartParserModel.train([parseTree('(ROOT (NP (NN dog)))')], { threads: 1 });
    const [f] = await tiny.parse([['dog', 'dog']], { threads: 1 });
    expect(f.fallback).toBe(true);
    expect(formatTree(f.tree)).toBe('(ROOT (X (NN dog) (NN dog)))');
  });

  it('gives sentences longer than maxLength the flat fallback without a chart, and leaves the others alone', async () => {
    const sentences = dev.slice(0, 6).map((t) => treeWords(t));
    const limit = Math.min(...sentences.map((w) => w.length));
    const exact = await pcfg.parseNbest(sentences, 3, { threads: 2 });
    const limited = await pcfg.parseNbest(sentences, 3, { threads: 2, maxLength: limit });
    let skipped = 0;
    sentences.forEach((w, i) => {
      const r = limited[i];
      if (w.length > limit) {
        skipped++;
        expect(r.fallback).toBe(true);
        expect(r.candidates).toHaveLength(1);
        const tree = r.candidates[0].tree;
        expect(tree.children).toHaveLength(1);
        expect(tree.children[0].label).toBe('X');
        expect(tree.children[0].children.every((c) => c.word !== undefined)).toBe(true);
        expect(words(tree)).toEqual(w);
      } else {
        expect(r.candidates.map((c) => formatTree(c.tree))).toEqual(exact[i].candidates.map((c) => formatTree(c.tree)));
      }
    });
    expect(skipped).toBeGreaterThan(0);
    expect(skipped).toBeLessThan(sentences.length);
    await expect(pcfg.parse([['a']], { maxLength: -1 })).rejects.toThrow(/maxLength/);
    await expect(pcfg.parse([['a']], { maxLength: 1.5 })).rejects.toThrow(/maxLength/);
  });

  it('saves and loads models (same parses), and refuses corrupt files', async () => {
    const file = tmp.file('crf.model');
    crf.save(file);
    const back = await ChartParserModel.load(file);
    const sentences = dev.slice(0, 5).map((t) => treeWords(t));
    const a = await crf.parseNbest(sentences, 5, { threads: 1 });
    const b = await back.parseNbest(sentences, 5, { threads: 1 });
    expect(b.map((s) => s.candidates.map((c) => formatTree(c.tree)))).toEqual(
      a.map((s) => s.candidates.map((c) => formatTree(c.tree))),
    );
    const bytes = readFileSync(file);
    const bad = tmp.file('bad.model');
    writeFileSync(bad, bytes.subarray(0, bytes.length - 100));
    await expect(ChartParserModel.load(bad)).rejects.toThrow(/truncated|corrupted/);
    await expect(ChartParserModel.load(tmp.file('none.model'))).rejects.toThrow(/no such file/);
  });

  it('rejects bad input', async () => {
    await expect(pcfg.parse([[]])).rejects.toThrow(/empty sentence/);
    await expect(pcfg.parseNbest([['a']], 0)).rejects.toThrow(/positive integer/);
    await expect(ChartParserModel.train([])).rejects.toThrow(/no training trees/);
  });

  it("refuses the CRF's training and parse options for a PCFG, rather than ignore them", async () => {
    const few = train.slice(0, 5);
    for (const options of [
      { epochs: 3 },
      { crf: false, margin: 0 },
      { prune: 0 },
      { dev: few },
      { onPass: () => {} },
    ]) {
      const key = Object.keys(options).find((k) => k !== 'crf');
      await expect(ChartParserModel.train(few, options), key).rejects.toThrow(
        new RegExp(`<options>: ${key} applies to CRF training \\(crf: true\\)`),
      );
    }
    for (const options of [{ prune: 0 }, { decode: 'viterbi' as const }, { pruneRetry: false }]) {
      const key = Object.keys(options)[0];
      await expect(pcfg.parse([['the', 'dog']], options), key).rejects.toThrow(
        new RegExp(`<options>: ${key} applies to CRF parsing \\(a PCFG model\\)`),
      );
      await expect(crf.parse([['the', 'dog']], { ...options, pcfg: true }), key).rejects.toThrow(
        new RegExp(`<options>: ${key} applies to CRF parsing \\(pcfg: true\\)`),
      );
    }
    expect(await crf.parse([['the', 'dog']], { prune: 0, decode: 'viterbi' })).toHaveLength(1);
    await expect(ChartParserModel.train(few, { checkpoint: tmp.file('pcfg.ckpt') })).rejects.toThrow(
      /checkpoints are for CRF training/,
    );
    // The grammar's options and the thread count apply to both.
    const m = await ChartParserModel.train(few, { markov: 1, parent: false, rareThreshold: 2, threads: 1 });
    expect(m.isCrf).toBe(false);
  });
});

describe('chart parser CLI', () => {
  it('trains, parses trees and text with n-best output, and reports bad usage', () => {
    const trainFile = treeFile('train.mrg', train);
    const devFile = treeFile('dev.mrg', dev);
    const model = tmp.file('cli.model');
    const r = runCli(['train-parser', '--train', trainFile, '--dev', devFile, '--model', model, '--threads', '2']);
    expect(r.stderr + r.stdout).toMatch(/dev: F1/);
    expect(r.status).toBe(0);
    const out = tmp.file('out.mrg');
    const nb = tmp.file('nbest.jsonl');
    const p = runCli([
      'parse',
      '--model',
      model,
      '--input',
      devFile,
      '--out',
      out,
      '--nbest',
      '5',
      '--out-nbest',
      nb,
      '--threads',
      '2',
    ]);
    expect(p.status).toBe(0);
    const trees = readFileSync(out, 'utf8').trim().split('\n');
    expect(trees).toHaveLength(dev.length);
    trees.forEach((line, i) => expect(words(parseTree(line))).toEqual(treeWords(dev[i])));
    const lines = readFileSync(nb, 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            id: string;
            tokens: string[];
            candidates: { tree: string; logprob: number }[];
            gold: string;
          },
      );
    expect(lines).toHaveLength(dev.length);
    expect(lines[0].candidates.length).toBeGreaterThan(1);
    expect(lines[0].candidates[0].tree).toBe(trees[0]);
    expect(typeof lines[0].gold).toBe('string');
    const text = tmp.file('text.txt', 'The dog barked .\n\nIt rained .\n');
    const outText = tmp.file('text.out');
    expect(runCli(['parse', '--model', model, '--input', text, '--out', outText]).status).toBe(0);
    expect(readFileSync(outText, 'utf8').trim().split('\n')).toHaveLength(2);
    const long = tmp.file('long.txt', 'The dog barked .\nIt rained on the old town all day .\n');
    const outLong = tmp.file('long.out');
    const lim = runCli(['parse', '--model', model, '--input', long, '--out', outLong, '--max-length', '5']);
    expect(lim.status).toBe(0);
    expect(lim.stderr).toMatch(/1 sentence\(s\) longer than --max-length 5 words got the flat fallback/);
    const [first, second] = readFileSync(outLong, 'utf8').trim().split('\n');
    expect(first).not.toMatch(/\(X /);
    expect(second).toMatch(/^\(ROOT \(X (\([^()]+\) ?)+\)\)$/);
    expect(words(parseTree(second))).toEqual(['It', 'rained', 'on', 'the', 'old', 'town', 'all', 'day', '.']);
    expect(
      runCli(['parse', '--model', model, '--input', long, '--out', outLong, '--max-length', '0']).stderr,
    ).not.toMatch(/max-length/);
    expect(runCli(['parse', '--model', model, '--input', long, '--out', outLong, '--max-length', 'x']).status).toBe(2);
    const bad = runCli(['parse', '--model', model, '--input', text, '--out', outText, '--nbest', '5']);
    expect(bad.status).toBe(2);
    const missing = runCli(['parse', '--model', tmp.file('missing.model'), '--input', text, '--out', outText]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/missing\.model: no such file/);
  }, 120_000);

  it("--seed picks the CRF's batch sampling: the same seed, the same model bytes; another seed, another model", () => {
    const trainFile = treeFile('train-seed.mrg', train.slice(0, 120));
    const trainWith = (name: string, seed?: number): Buffer => {
      const model = tmp.file(name);
      const args = ['train-parser', '--train', trainFile, '--model', model, '--crf', '--epochs', '1', '--threads', '1'];
      const r = runCli(seed === undefined ? args : [...args, '--seed', String(seed)]);
      expect(r.status, r.stderr).toBe(0);
      return readFileSync(model);
    };
    const byDefault = trainWith('seed-default.model');
    expect(trainWith('seed-1.model', 1).equals(byDefault)).toBe(true);
    expect(trainWith('seed-2.model', 2).equals(byDefault)).toBe(false);
    const bad = runCli([
      'train-parser',
      '--train',
      trainFile,
      '--model',
      tmp.file('seed-bad.model'),
      '--crf',
      '--seed',
      '-1',
    ]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--seed/);
  }, 120_000);

  it('refuses training options the chosen trainer never reads: CRF options without --crf, sampling options with --lbfgs', () => {
    const trainFile = treeFile('train-refused.mrg', train.slice(0, 20));
    const model = tmp.file('refused.model');
    const refused = (options: string[], message: RegExp): void => {
      const r = runCli(['train-parser', '--train', trainFile, '--model', model, ...options, '--threads', '1']);
      expect(r.status, options.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(existsSync(model)).toBe(false);
    };
    for (const options of [['--seed', '2'], ['--margin', '2'], ['--no-tag-sets'], ['--no-average'], ['--epochs', '3']])
      refused(options, new RegExp(`train-parser: ${options[0]} applies to --crf training`));
    for (const options of [['--seed', '2'], ['--batch', '5'], ['--eta0', '0.2'], ['--no-average']])
      refused(
        ['--crf', '--lbfgs', ...options],
        new RegExp(`${options[0]} applies to AdaGrad and SGD training, not --lbfgs`),
      );
    // Their defaults, unnamed, are no error.
    expect(runCli(['train-parser', '--train', trainFile, '--model', model, '--threads', '1']).status).toBe(0);
  });

  it("parse refuses the CRF's options for PCFG parsing (a PCFG model, or --pcfg)", () => {
    const trainFile = treeFile('train-pcfg-parse.mrg', train.slice(0, 20));
    const input = treeFile('input-pcfg-parse.mrg', dev.slice(0, 3));
    const pcfg = tmp.file('pcfg-parse.model');
    const crf = tmp.file('crf-parse.model');
    expect(runCli(['train-parser', '--train', trainFile, '--model', pcfg]).status).toBe(0);
    const trained = runCli(['train-parser', '--train', trainFile, '--model', crf, '--crf', '--epochs', '1']);
    expect(trained.status, trained.stderr).toBe(0);
    const out = tmp.file('pcfg-parse.out');
    const parse = (...options: string[]) => runCli(['parse', '--input', input, '--out', out, ...options]);
    // A sharded run refuses them too, before it queues a job (no Redis listens on port 1).
    const queue = ['--redis', 'redis://127.0.0.1:1', '--store', tmp.file('pcfg-parse-store')];
    for (const [model, extra, why] of [
      [pcfg, [], /pcfg-parse\.model is a PCFG model/],
      [crf, ['--pcfg'], /--pcfg parses with the PCFG/],
    ] as const) {
      for (const option of [
        ['--prune', '0'],
        ['--decode', 'mbr'],
        ['--retry', 'exhaustive'],
      ]) {
        for (const r of [
          parse('--model', model, ...extra, ...option),
          parse('--model', model, ...extra, ...option, ...queue),
        ]) {
          expect(r.status, option.join(' ')).toBe(2);
          expect(r.stderr).toMatch(new RegExp(`parse: ${option[0]} applies to CRF parsing`));
          expect(r.stderr).toMatch(why);
          expect(existsSync(out)).toBe(false);
        }
      }
    }
    const kbest = parse('--model', crf, '--kbest-tags', 'max', ...queue);
    expect(kbest.status).toBe(2);
    expect(kbest.stderr).toMatch(/parse: --kbest-tags and --kbest-pool need --nbest K/);
    expect(parse('--model', crf, '--decode', 'viterbi', '--prune', '0').status).toBe(0);
    expect(parse('--model', pcfg, '--beam', '10').status).toBe(0);
  }, 60_000);

  it('--max-length applies to --dev: passes are chosen on, and the model reported for, the dev trees within it', () => {
    const trainFile = treeFile('train-ml.mrg', train.slice(0, 150));
    const devFile = treeFile('dev-ml.mrg', dev);
    const limit = 8;
    const within = dev.filter((t) => treeWords(t).length <= limit);
    expect(within.length).toBeGreaterThan(0);
    expect(within.length).toBeLessThan(dev.length);
    const model = tmp.file('ml.model');
    const args = ['--train', trainFile, '--dev', devFile, '--model', model, '--crf', '--epochs', '2'];
    const r = runCli(['train-parser', ...args, '--max-length', String(limit), '--threads', '1', '--json']);
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout) as { dev: { f1: number; sentences: number } };
    expect(report.dev.sentences).toBe(within.length);
    // The PCFG's weight is chosen on the same trees: at weight 0 they score as the kept pass
    // did, and the final figure is the best weight's.
    const kept = /kept pass (\d+) \(dev F1 ([\d.]+)\)/.exec(r.stderr);
    expect(kept).not.toBeNull();
    const byWeight =
      /dev F1 by weight: ([^)]+)\)/
        .exec(r.stderr)?.[1]
        .split(', ')
        .map((x) => x.split(' ')) ?? [];
    expect(byWeight.map(([w]) => Number(w))).toEqual([...CRF_DEFAULTS.pcfgWeights]);
    expect(byWeight[0][1]).toBe(kept?.[2]);
    const mixed = Math.max(...byWeight.map(([, f1]) => Number(f1))).toFixed(2);
    // Then the rescoring's weights, on the same trees: its MBR figure is the mix's, and the
    // final figure the rescored one at the chosen weights (the mix's where none was chosen).
    const head =
      /rescored at head-model weight ([\d.]+), tree-model weight ([\d.]+), expected-loss weight ([\d.]+) \(dev F1 ([\d.]+) without; best by head-model weight: ([^)]+)\)/.exec(
        r.stderr,
      );
    const without = /the MBR tree, not rescored \(dev F1 ([\d.]+);/.exec(r.stderr);
    expect(head ?? without).not.toBeNull();
    if (head) {
      expect(head[4]).toBe(mixed);
      const chosen = head[5].split('; ').find((x) => x.startsWith(`${head[1]} `));
      expect(chosen).toMatch(new RegExp(`\\[tree ${head[2]}, loss ${head[3]}\\]$`));
      expect(report.dev.f1.toFixed(2)).toBe(chosen?.split(' ')[1]);
    } else {
      expect(without?.[1]).toBe(mixed);
      expect(report.dev.f1.toFixed(2)).toBe(mixed);
    }
    // And it is what the saved model scores on those trees.
    const gold = treeFile('dev-within.mrg', within);
    const parsed = tmp.file('dev-within.parsed');
    expect(runCli(['parse', '--model', model, '--input', gold, '--out', parsed, '--threads', '1']).status).toBe(0);
    const e = runCli(['eval', 'parse', '--gold', gold, '--test', parsed, '--json']);
    expect(e.status, e.stderr).toBe(0);
    expect((JSON.parse(e.stdout) as { all: { f1: number } }).all.f1).toBeCloseTo(report.dev.f1, 9);
  }, 120_000);
});

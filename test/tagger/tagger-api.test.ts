import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { conllevalCorpus } from '../../lib/eval/conlleval.js';
import { readConllSync } from '../../lib/io/conll.js';
import { Tagger } from '../../lib/tagger/tagger.js';
import { compileTemplates, resolveTemplateConfig } from '../../lib/tagger/templates.js';
import { dataFile, describeWithData, hasData, itWithData, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

function chunkF1(gold: string[][], guess: string[][]): number {
  return conllevalCorpus(gold.map((g, s) => ({ gold: g, predicted: guess[s] }))).overall.f1;
}

const read = (name: string, limit: number): string[][][] =>
  hasData('conll2000')
    ? readConllSync(dataFile('conll2000', name))
        .slice(0, limit)
        .map((s) => s.rows)
    : [];
const train = read('train.txt', 2000);
const test = read('test.txt', 400);
const gold = test.map((s) => s.map((r) => r[2]));
const columns = ['word', 'pos', 'chunk'];

describeWithData(['conll2000'], 'taggers on a slice of CoNLL-2000', () => {
  const trained: Record<string, Tagger> = {};

  it('averaged perceptron reaches an accuracy floor and reports per-epoch progress', async () => {
    const steps: number[] = [];
    const t = await Tagger.train(train, {
      algo: 'perceptron',
      columns,
      label: 'chunk',
      epochs: 5,
      threads: 2,
      onProgress: (p) => steps.push(p.step),
    });
    expect(steps).toEqual([1, 2, 3, 4, 5]);
    const f1 = chunkF1(gold, await t.tag(test));
    expect(f1).toBeGreaterThan(88);
    trained.perceptron = t;
  });

  it('CRF by SGD reaches the floor; dev scores drive early stopping', async () => {
    const devScores: number[] = [];
    const t = await Tagger.train(train, {
      algo: 'crf',
      optimizer: 'sgd',
      columns,
      label: 'chunk',
      epochs: 4,
      threads: 2,
      dev: test,
      onProgress: (p) => devScores.push(p.dev!.value),
    });
    expect(devScores.length).toBe(4);
    expect(t.meta.dev!.name).toBe('F1');
    expect(t.meta.dev!.value).toBe(Math.max(...devScores));
    expect(chunkF1(gold, await t.tag(test))).toBeCloseTo(t.meta.dev!.value, 6);
    expect(t.meta.dev!.value).toBeGreaterThan(88);
    trained.crf = t;
  });

  it('reports every L-BFGS iteration and scores dev once, on the final model', async () => {
    const seen: string[] = [];
    await Tagger.train(train.slice(0, 200), {
      algo: 'crf',
      columns,
      label: 'chunk',
      epochs: 7,
      evalEvery: 3,
      dev: test.slice(0, 50),
      patience: 0,
      threads: 2,
      onProgress: (p) => seen.push(`${p.step}${p.dev ? '+dev' : ''}`),
    });
    expect(seen).toEqual(['1', '2', '3', '4', '5', '6', '7+dev']);
  });

  it('SGD scores dev every evalEvery epochs and at the end', async () => {
    const seen: string[] = [];
    await Tagger.train(train.slice(0, 200), {
      algo: 'crf',
      optimizer: 'sgd',
      columns,
      label: 'chunk',
      epochs: 5,
      evalEvery: 2,
      dev: test.slice(0, 50),
      patience: 0,
      threads: 2,
      onProgress: (p) => seen.push(`${p.step}${p.dev ? '+dev' : ''}`),
    });
    expect(seen).toEqual(['1', '2+dev', '3', '4+dev', '5+dev']);
  });

  it('CRF by L-BFGS and second-order maxent train', async () => {
    const crf = await Tagger.train(train.slice(0, 600), {
      algo: 'crf',
      columns,
      label: 'chunk',
      epochs: 25,
      threads: 2,
    });
    expect(chunkF1(gold, await crf.tag(test))).toBeGreaterThan(84);
    const maxent = await Tagger.train(train.slice(0, 600), {
      algo: 'maxent',
      order: 2,
      columns,
      label: 'chunk',
      epochs: 25,
      threads: 2,
    });
    expect(chunkF1(gold, await maxent.tag(test))).toBeGreaterThan(82);
    trained.maxent = maxent;
  });

  it('L-BFGS training on 2 threads gives the same model bytes every run (CRF and maxent)', async () => {
    // Each thread sums the gradient of a fixed set of sentences (ParallelForFixed), so the
    // summation order, and so every weight, is the same in every run with this thread count.
    for (const algo of ['crf', 'maxent'] as const) {
      const bytes: Buffer[] = [];
      for (let run = 0; run < 3; run++) {
        const t = await Tagger.train(train.slice(0, 1500), { algo, columns, label: 'chunk', epochs: 12, threads: 2 });
        const file = tmp.file(`det-${algo}-${run}.model`);
        t.save(file);
        bytes.push(readFileSync(file));
      }
      expect(bytes[1].equals(bytes[0])).toBe(true);
      expect(bytes[2].equals(bytes[0])).toBe(true);
    }
  });

  it('k-best: best first, first equals Viterbi, CRF probabilities of all sequences sum to 1', async () => {
    const crf = trained.crf;
    const lists = crf.tagNbestSync(test.slice(0, 20), 5);
    lists.forEach((cands, s) => {
      expect(cands[0].tags).toEqual(crf.tagSync([test[s]])[0]);
      for (let q = 1; q < cands.length; q++) {
        expect(cands[q].logprob).toBeLessThanOrEqual(cands[q - 1].logprob);
        expect(cands[q].tags).not.toEqual(cands[q - 1].tags);
      }
      expect(cands[0].logprob).toBeLessThanOrEqual(0);
    });
    const L = crf.labels.length;
    const short = [test[0].slice(0, 2)];
    const all = (await crf.tagNbest(short, L * L))[0];
    expect(all.length).toBe(L * L);
    expect(all.reduce((a, c) => a + Math.exp(c.logprob), 0)).toBeCloseTo(1, 9);
    const beam = await trained.maxent.tagNbest(test.slice(0, 3), 4);
    for (const cands of beam) expect(cands.length).toBe(4);
  });

  it('save/load round trip gives identical tags and n-best lists', async () => {
    for (const name of ['perceptron', 'crf', 'maxent']) {
      const f = tmp.file(`${name}.model`);
      trained[name].save(f);
      const back = await Tagger.load(f);
      expect(back.meta.algo).toBe(name);
      expect(await back.tag(test)).toEqual(await trained[name].tag(test));
      expect(back.tagSync(test.slice(0, 5))).toEqual((await trained[name].tag(test)).slice(0, 5));
      expect(back.tagNbestSync(test.slice(0, 5), 3)).toEqual(trained[name].tagNbestSync(test.slice(0, 5), 3));
      expect(await back.tagNbest(test.slice(0, 40), 3, { threads: 2 })).toEqual(
        trained[name].tagNbestSync(test.slice(0, 40), 3),
      );
    }
    // One and two threads (parallel feature lookup) tag the same.
    expect(await trained.crf.tag(test, { threads: 1 })).toEqual(await trained.crf.tag(test, { threads: 2 }));
    // Input-only rows (no gold column) tag the same.
    expect(trained.crf.tagSync([test[1].map((r) => [r[0], r[1]])])).toEqual(trained.crf.tagSync([test[1]]));
  });

  it('CRFsuite objective (startWeights: false) trains to the same floor; maxent refuses it', async () => {
    const small = train.slice(0, 600);
    const crf = await Tagger.train(small, {
      algo: 'crf',
      columns,
      label: 'chunk',
      epochs: 25,
      threads: 2,
      startWeights: false,
    });
    expect(chunkF1(gold, await crf.tag(test))).toBeGreaterThan(84);
    // Without start weights the first label of a sentence is scored without a transition:
    // the k-best log-probabilities still normalize (checked on a two-token sentence: all its sequences).
    const lists = await crf.tagNbest([test[0].slice(0, 2)], 1000);
    const total = lists[0].reduce((a, c) => a + Math.exp(c.logprob), 0);
    expect(total).toBeCloseTo(1, 6);
    await expect(
      Tagger.train(small, { algo: 'maxent', columns, label: 'chunk', epochs: 2, threads: 2, startWeights: false }),
    ).rejects.toThrow(/start weights/);
  });

  it('AbortSignal cancels training', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      Tagger.train(train, { algo: 'crf', columns, label: 'chunk', epochs: 50, signal: controller.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('template configs', () => {
  it('compile atoms and reject bad ones with clear messages', () => {
    const c = compileTemplates([['word[-1]', 'pos[0]'], ['suffix3(word)'], ['bias']], ['word', 'pos']);
    expect(Array.from(c.ints)).toEqual([3, 2, 1, 0, -1, 0, 1, 1, 0, 0, 1, 4, 0, 0, 3, 1, 0, 0, 0, 0]);
    expect(() => compileTemplates([['suffix(word)']], ['word'])).toThrow(/suffix needs a length/);
    expect(() => compileTemplates([['upper(word)']], ['word'])).toThrow(/unknown template function 'upper'/);
    expect(() => compileTemplates([['pos[0]']], ['word'])).toThrow(/names column 'pos'/);
    expect(() => compileTemplates([['cluster(word)']], ['word'])).toThrow(/no cluster file/);
    expect(Array.from(compileTemplates([['word', 'prevtag']], ['word']).ints)).toEqual([
      1, 2, 1, 0, 0, 0, 13, 0, -1, 0,
    ]);
    expect(() => compileTemplates([['word', 'prevtag', 'prevtag']], ['word'])).toThrow(/prevtag twice/);
    expect(compileTemplates([['pos[0]'], ['word']], ['word'], { dropMissing: true }).templates).toEqual([['word']]);
    expect(() => resolveTemplateConfig({ base: 'ner', extra: 1 } as never)).toThrow(/unknown key 'extra'/);
    expect(resolveTemplateConfig({ base: 'chunk', add: [['bias']] }).templates.at(-1)).toEqual(['bias']);
  });

  itWithData(['conll2000'], 'edge templates (previous tag x word) train, decode and round-trip', async () => {
    const templates = [['word[0]'], ['pos[0]'], ['pos[-1]', 'pos[0]'], ['word[0]', 'prevtag'], ['pos[0]', 'prevtag']];
    for (const algo of ['perceptron', 'crf', 'maxent'] as const) {
      const t = await Tagger.train(train.slice(0, 300), {
        algo,
        columns,
        label: 'chunk',
        templates,
        epochs: algo === 'perceptron' ? 3 : 15,
        threads: 2,
      });
      const f1 = chunkF1(gold, await t.tag(test));
      expect(f1).toBeGreaterThan(70);
      const f = tmp.file(`edge-${algo}.model`);
      t.save(f);
      expect(await (await Tagger.load(f)).tagNbest(test.slice(0, 3), 3)).toEqual(t.tagNbestSync(test.slice(0, 3), 3));
    }
  });

  it('uses ambiguity classes (tags atom) from the training labels, kept in the model', async () => {
    expect(Array.from(compileTemplates([['tags(word)[1]'], ['tags3(word)']], ['word']).ints)).toEqual([
      2, 1, 14, 0, 1, 1, 1, 14, 0, 0, 3,
    ]);
    const rows = (ws: string[], ts: string[]): string[][] => ws.map((w, i) => [w, ts[i]]);
    const data: string[][][] = [];
    for (let k = 0; k < 20; k++) data.push(rows(['dogs', 'run'], ['N', 'V']), rows(['cats', 'sleep'], ['N', 'V']));
    // The only feature is the word's tag set: lowercased 'DOGS' has {N}; an unseen word is <rare>.
    const t = await Tagger.train(data, {
      algo: 'perceptron',
      columns: ['word', 'tag'],
      label: 'tag',
      templates: [['tags(word)']],
      epochs: 3,
      order: 1,
    });
    expect(await t.tag([[['SLEEP'], ['DOGS']]])).toEqual([['V', 'N']]);
    const f = tmp.file('tags.model');
    t.save(f);
    expect(Tagger.loadSync(f).tagSync([[['SLEEP'], ['DOGS']]])).toEqual([['V', 'N']]);
  });

  it('uses word clusters with prefix features', async () => {
    const clusters = tmp.file('clusters.txt', 'the\t0010\ndog\t1101\ncat\t1100\nbarks\t0111\nsleeps\t0110\n');
    const rows = (ws: string[], ts: string[]): string[][] => ws.map((w, i) => [w, ts[i]]);
    const data = [rows(['the', 'dog', 'barks'], ['D', 'N', 'V']), rows(['the', 'cat', 'sleeps'], ['D', 'N', 'V'])];
    const t = await Tagger.train(data, {
      algo: 'perceptron',
      columns: ['word', 'tag'],
      label: 'tag',
      templates: [['cluster2(word)']],
      clusters,
      epochs: 5,
    });
    // 'cat' and 'dog' share the cluster prefix 11, so an unseen order is still tagged by cluster.
    expect(t.tagSync([[['the'], ['cat'], ['barks']]])).toEqual([['D', 'N', 'V']]);
  });
});

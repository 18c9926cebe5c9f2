import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { readTreesSync } from '../../lib/io/treebank.js';
import { formatTree, preterminals, words, type Tree } from '../../lib/trees/tree.js';
import { ChartParserModel } from '../../lib/parser/chart-parser.js';
import { evaluateParser } from '../../lib/parser/evaluate.js';
import { treeWords } from '../../lib/parser/input.js';
import { escapeLabel, unescapeLabel } from '../../lib/parser/label-escape.js';
import { repoRoot, runCli, tempDir } from '../helpers.js';

// A hand-made treebank in a non-Penn scheme where `pp`, `vp` and `?` label both single words
// (parts of speech) and phrases, as in Floresta: it must train and parse, and give back its labels.
const fixture = join(repoRoot, 'test', 'fixtures', 'parser', 'tiny-nonpenn.mrg');
const tmp = tempDir();
afterAll(() => tmp.cleanup());

const labelsOf = (t: Tree, tags: Set<string>, phrases: Set<string>): void => {
  if (t.word !== undefined) tags.add(t.label);
  else {
    phrases.add(t.label);
    t.children.forEach((c) => labelsOf(c, tags, phrases));
  }
};

describe('chart parser on a treebank whose labels are both tags and phrases', () => {
  const trees = readTreesSync(fixture);

  it('the fixture really uses labels both ways', () => {
    const tags = new Set<string>();
    const phrases = new Set<string>();
    trees.forEach((t) => labelsOf(t, tags, phrases));
    for (const l of ['pp', 'vp', '?']) expect(tags.has(l) || phrases.has(l)).toBe(true);
    expect(tags.has('pp') && phrases.has('pp')).toBe(true);
  });

  it('the CRF grammar has no parent annotation by default (the PCFG keeps it)', async () => {
    const symbols = async (options: { crf: boolean; parent?: boolean }): Promise<number> =>
      (await ChartParserModel.train(trees, { ...options, ...(options.crf ? { epochs: 1 } : {}), threads: 1 })).info()
        .symbols;
    const crfDefault = await symbols({ crf: true });
    expect(crfDefault).toBe(await symbols({ crf: true, parent: false }));
    expect(crfDefault).toBeLessThan(await symbols({ crf: true, parent: true }));
    expect(await symbols({ crf: false })).toBe(await symbols({ crf: false, parent: true }));
  });

  for (const crf of [false, true]) {
    it(`trains and parses its training sentences back with the treebank's labels (${crf ? 'CRF' : 'PCFG'})`, async () => {
      const model = await ChartParserModel.train(trees, { crf, ...(crf ? { epochs: 3 } : {}), threads: 1 });
      const sentences = trees.map((t) => treeWords(t));
      const parses = await model.parse(sentences, { threads: 1 });
      parses.forEach((p, i) => {
        expect(p.fallback).toBe(false);
        expect(words(p.tree)).toEqual(sentences[i]);
      });
      // The word-level `pp` comes back as a tag, the phrase as a phrase.
      const tags = new Set<string>();
      const phrases = new Set<string>();
      parses.forEach((p) => labelsOf(p.tree, tags, phrases));
      expect(tags.has('pp')).toBe(true);
      expect(phrases.has('pp')).toBe(true);
      // Tags keep their '-' parts (Floresta's v-fin / v-inf are two tags, not `v` with a function tag).
      expect(tags.has('v-fin') && tags.has('v-inf')).toBe(true);
      expect(tags.has('v')).toBe(false);
      // No grammar-internal marker (\u0001 separates a tag's own symbol, ^ ~ @ annotate) leaks out.
      for (const p of parses)
        for (const pt of preterminals(p.tree))
          expect(
            [...pt.label].some((c) => c === '\u0001' || '^~@'.includes(c)),
            pt.label,
          ).toBe(false);
      const r = await evaluateParser(model, trees, { threads: 1 });
      expect(r.f1).toBeGreaterThan(90);
      const file = join(tmp.dir, crf ? 'crf.model' : 'pcfg.model');
      model.save(file);
      const again = await ChartParserModel.load(file);
      const back = await again.parse(sentences, { threads: 1 });
      expect(back.map((p) => formatTree(p.tree))).toEqual(parses.map((p) => formatTree(p.tree)));
    });
  }

  // The French Treebank's P+D, the Arabic Treebank's DET+NOUN, and the other characters state
  // names use (^ ~ @, and % that escapes them): labels come back as they were.
  for (const crf of [false, true]) {
    it(`keeps labels with +, ^, ~, @ and % as the treebank has them (${crf ? 'CRF' : 'PCFG'})`, async () => {
      const reserved = readTreesSync(
        tmp.file(
          'reserved.mrg',
          [
            '( (SENT (NP (DET le) (NC chat)) (VN (V dort)) (PP (P+D du) (NP (NC jardin))) (PONCT .)))',
            '( (SENT (NP (DET+NOUN alkitab) (NC x)) (VN (V mange)) (PP (P+D au) (NP (NC parc))) (PONCT .)))',
            '( (SENT (NP^X (N~C x)) (VN (V y)) (@AP (%2BA z)) (PONCT .)))',
          ].join('\n') + '\n',
        ),
      );
      const model = await ChartParserModel.train(reserved, { crf, ...(crf ? { epochs: 3 } : {}), threads: 1 });
      const parses = await model.parse(
        reserved.map((t) => treeWords(t)),
        { threads: 1 },
      );
      expect(parses.map((p) => formatTree(p.tree).replace(/^\(ROOT /, '( '))).toEqual(
        reserved.map((t) => formatTree(t)),
      );
    });
  }

  it('escapes and unescapes the reserved characters exactly', () => {
    for (const label of [
      'P+D',
      'DET+NOUN+CASE_DEF_GEN',
      'NP^X',
      'N~C',
      '@AP',
      '%2BA',
      '100%',
      'PRP$',
      '-LRB-',
      'v-fin',
    ]) {
      expect(unescapeLabel(escapeLabel(label))).toBe(label);
      expect(escapeLabel(label)).not.toMatch(/[+^~@]/);
    }
    expect(escapeLabel('PRP$')).toBe('PRP$'); // most labels as they are
    expect(unescapeLabel('%41')).toBe('%41'); // only the reserved characters' escapes are read
  });

  it('trains and parses through the CLI', () => {
    const model = join(tmp.dir, 'cli.model');
    const train = runCli([
      'train-parser',
      '--train',
      fixture,
      '--model',
      model,
      '--crf',
      '--epochs',
      '2',
      '--threads',
      '1',
    ]);
    expect(train.status).toBe(0);
    const out = join(tmp.dir, 'out.mrg');
    const parse = runCli(['parse', '--model', model, '--input', fixture, '--out', out, '--threads', '1']);
    expect(parse.status).toBe(0);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(trees.length);
    // --nbest leaves --out as it was: the model's 1-best (MBR), though the lists are Viterbi.
    // `parse --nbest 3` with `extra` options: --out's text and each sentence's list of trees.
    const withNbest = (extra: string[]): { out: string; firsts: string[]; lists: string[][] } => {
      const [o, n] = [join(tmp.dir, 'out-nbest.mrg'), join(tmp.dir, 'out-nbest.jsonl')];
      const r = runCli([
        'parse',
        '--model',
        model,
        '--input',
        fixture,
        '--out',
        o,
        '--nbest',
        '3',
        '--out-nbest',
        n,
        '--threads',
        '1',
        ...extra,
      ]);
      expect(r.status, r.stderr).toBe(0);
      const lists = readFileSync(n, 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { candidates: { tree: string }[] }).candidates.map((c) => c.tree));
      return { out: readFileSync(o, 'utf8'), firsts: lists.map((l) => l[0]), lists };
    };
    const viterbiLists = withNbest([]);
    expect(viterbiLists.out).toBe(readFileSync(out, 'utf8'));
    const viterbiOut = join(tmp.dir, 'viterbi.mrg');
    expect(
      runCli(['parse', '--model', model, '--input', fixture, '--out', viterbiOut, '--decode', 'viterbi']).status,
    ).toBe(0);
    expect(viterbiLists.firsts).toEqual(readFileSync(viterbiOut, 'utf8').trim().split('\n'));
    // --decode viterbi: the 1-best in --out is the lists' first, as without lists.
    expect(withNbest(['--decode', 'viterbi']).out).toBe(readFileSync(viterbiOut, 'utf8'));
    // With --decode mbr the lists are the MBR k-best, headed by that same 1-best.
    const mbrLists = withNbest(['--decode', 'mbr']);
    expect(mbrLists.out).toBe(readFileSync(out, 'utf8'));
    expect(mbrLists.firsts).toEqual(readFileSync(out, 'utf8').trim().split('\n'));
    // A parent-annotated, Markov-1 member (--parent, --markov 1) in an ensemble (--ensemble).
    const member = join(tmp.dir, 'member.model');
    expect(
      runCli([
        'train-parser',
        '--train',
        fixture,
        '--model',
        member,
        '--crf',
        '--parent',
        '--markov',
        '1',
        '--epochs',
        '2',
        '--threads',
        '1',
      ]).status,
    ).toBe(0);
    const symbols = (file: string): number => ChartParserModel.loadSync(file).info().symbols;
    expect(symbols(member)).toBeGreaterThan(symbols(model));
    const both = join(tmp.dir, 'both.mrg');
    const ensemble = runCli([
      'parse',
      '--model',
      model,
      '--ensemble',
      member,
      '--input',
      fixture,
      '--out',
      both,
      '--threads',
      '1',
    ]);
    expect(ensemble.status, ensemble.stderr).toBe(0);
    expect(readFileSync(both, 'utf8').trim().split('\n')).toHaveLength(trees.length);
    // With --nbest: the ensemble's K trees of most expected correct brackets, its MBR tree first.
    const ensembleLists = withNbest(['--ensemble', member]);
    expect(ensembleLists.out).toBe(readFileSync(both, 'utf8'));
    expect(ensembleLists.lists).toHaveLength(trees.length);
    expect(ensembleLists.firsts).toEqual(readFileSync(both, 'utf8').trim().split('\n'));
    expect(ensembleLists.lists.some((l) => l.length > 1)).toBe(true);
    const refused = runCli([
      'parse',
      '--model',
      model,
      '--ensemble',
      member,
      '--input',
      fixture,
      '--out',
      both,
      '--redis',
      'redis://127.0.0.1:1',
      '--store',
      tmp.dir,
    ]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/--ensemble parses in this process/);
  });
});

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { headCoverage, headRulePreset, headTableToJson } from '../../lib/trees/head-rules.js';
import { loadHeadRules } from '../../lib/io/head-rules-file.js';
import { learnConjunctionTags, learnHeadRules, learnPunctuationTags } from '../../lib/trees/learn-heads.js';
import { annotateHeads, COLLINS_HEAD_RULES, headChildIndex } from '../../lib/trees/heads.js';
import { learnTreeClasses } from '../../lib/trees/tree-classes.js';
import { learnTreeSettings } from '../../lib/rerank/tree-settings.js';
import { readTreesSync } from '../../lib/io/treebank.js';
import type { Tree } from '../../lib/trees/tree.js';
import { InputError } from '../../lib/errors.js';
import { dataFile, itWithData } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'head-rules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const headWord = (src: string, options: Parameters<typeof annotateHeads>[1]): string =>
  annotateHeads(parseTree(src), options).headWord;

// A small Floresta-style treebank (Portuguese, the Bosque's labels): np, pp, fcl, icl, vp,
// cu (coordination), art, n, prp, v-fin, conj-c. Content words (N noun, V finite verb, I
// infinitive, P name) are new in every copy, as open classes are; function words repeat.
// The true heads of its phrases are listed in `known` below.
const templates = [
  '( (fcl (np (art o) (n N)) (v-fin V) (pp (prp em) (np (art a) (n N))) (. .)))',
  '( (fcl (np (art a) (n N)) (v-fin V) (np (art o) (n N)) (. .)))',
  '( (fcl (v-fin V) (pp (prp em) (np (prop P))) (. .)))',
  '( (fcl (np (art o) (n N) (adj alto)) (vp (v-fin quer) (v-inf I)) (. .)))',
  '( (fcl (np (art os) (n N)) (v-fin V) (cu (np (art os) (n N)) (conj-c e) (np (art as) (n N))) (. .)))',
  '( (fcl (cu (np (prop P)) (conj-c e) (np (prop P))) (v-fin V) (pp (prp de) (np (prop P))) (. .)))',
  '( (np (art um) (n N) (pp (prp de) (np (n N)))))',
  '( (fcl (np (pron-pers ele)) (v-fin V) (icl (v-inf I) (pp (prp de) (np (art a) (n N)))) (. .)))',
  '( (fcl (adv não) (vp (v-fin pode) (v-inf I)) (np (art o) (n N)) (. .)))',
];
const treebank: Tree[] = [];
let fresh = 0;
for (let k = 0; k < 12; k++) {
  for (const t of templates) {
    const src = t.replace(
      /\((n|v-fin|v-inf|prop) ([NVIP])\)/g,
      (_m, tag: string, kind: string) => `(${tag} ${kind.toLowerCase()}w${fresh++})`,
    );
    treebank.push(parseTree(src));
  }
}

describe('head-rule tables as data', () => {
  it('the collins preset is read from data/head-rules and is the table heads.ts uses', () => {
    const preset = loadHeadRules('collins');
    expect(preset.name).toBe('collins-ptb');
    expect(preset.rules).toBe(COLLINS_HEAD_RULES);
    expect(preset.coordination?.conjunctions).toEqual(['CC', 'CONJP']);
    expect(Object.keys(preset.rules)).toHaveLength(26);
    // Known heads under the preset.
    expect(headWord('(PP (IN in) (NP (DT the) (NN house)))', { table: preset })).toBe('in');
    expect(headWord('(S (NP (NNS dogs)) (VP (VBD barked)) (. .))', { table: preset })).toBe('barked');
    expect(headWord('(NP (NNS cats) (CC and) (NNS dogs))', { table: preset })).toBe('cats');
  });

  it('a user table in JSON gives the heads it says, and round-trips', () => {
    const file = join(dir, 'pt.json');
    writeFileSync(
      file,
      JSON.stringify({
        format: 'structrank-head-rules 1',
        name: 'bosque',
        rules: {
          pp: [['left', 'prp']],
          np: [['rightdis', 'n', 'prop']],
          fcl: [['left', 'v-fin', 'vp']],
          vp: [['left', 'v-fin']],
        },
        coordination: { conjunctions: ['conj-c'], skip: [','] },
        otherwise: 'right',
      }),
    );
    const table = loadHeadRules(file);
    expect(table.name).toBe('bosque');
    expect(headWord('(pp (prp de) (np (art a) (n noite)))', { table })).toBe('de');
    expect(headWord('(np (art a) (n noite) (adj algarvia))', { table })).toBe('noite');
    expect(headWord('(fcl (np (n Ana)) (v-fin canta) (. .))', { table })).toBe('canta');
    // Coordination: the head moves from the second conjunct to the first.
    expect(headWord('(np (n pão) (conj-c e) (n vinho))', { table })).toBe('pão');
    // A label without rules takes `otherwise`: the last child.
    expect(headWord('(xyz (n a) (n b))', { table })).toBe('b');
    const again = loadHeadRules(
      (writeFileSync(join(dir, 'again.json'), JSON.stringify(headTableToJson(table))), join(dir, 'again.json')),
    );
    expect(again.rules).toEqual(table.rules);
  });

  it('rejects a malformed table with an error naming the file', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ rules: { NP: [['upwards', 'NN']] } }, /direction/],
      [{ rules: { NP: 'NN' } }, /list/],
      [{ rule: {} }, /unknown key 'rule'/],
      [{ rules: {}, otherwise: 'middle' }, /otherwise/],
    ];
    for (const [json, message] of cases) {
      const file = join(dir, 'bad.json');
      writeFileSync(file, JSON.stringify(json));
      expect(() => loadHeadRules(file)).toThrow(InputError);
      expect(() => loadHeadRules(file)).toThrow(message);
    }
    writeFileSync(join(dir, 'broken.json'), '{"rules": ');
    expect(() => loadHeadRules(join(dir, 'broken.json'))).toThrow(/broken\.json.*not valid JSON/);
    expect(() => loadHeadRules('no-such-preset-or-file')).toThrow(InputError);
  });

  it('reports coverage: the PTB table covers none of a Floresta treebank', () => {
    const c = headCoverage(treebank, headRulePreset('collins'));
    expect(c.percent).toBe(0);
    expect(c.nodes).toBeGreaterThan(0);
    expect(c.missing.map(([l]) => l)).toEqual(expect.arrayContaining(['fcl', 'np', 'pp', 'cu']));
    const learned = learnTreeSettings(treebank);
    expect(learned.warning).toMatch(
      /cover 0\.0% .*under 90%.*A head table for this scheme \(--head-rules FILE; "headRules" in a pipeline config\) takes their place\.$/,
    );
    const ptb = [parseTree('(S (NP (DT The) (NN dog)) (VP (VBD barked)) (. .))')];
    expect(headCoverage(ptb, headRulePreset('collins')).percent).toBe(100);
    expect(learnTreeSettings(ptb).warning).toBeUndefined();
  });

  it('learns a fallback for labels no table covers: the obligatory, unique child, with a direction', () => {
    const punctuation = learnPunctuationTags(treebank);
    expect([...punctuation]).toEqual(['.']);
    expect([...learnConjunctionTags(treebank, punctuation)]).toEqual(['conj-c']);
    const table = learnHeadRules(treebank, undefined, { minCount: 5 });
    expect(table.learned).toEqual(expect.arrayContaining(['fcl', 'np', 'pp', 'cu', 'vp', 'icl']));
    // Known heads of the treebank's phrases.
    const known: Array<[string, string]> = [
      ['(pp (prp em) (np (art a) (n casa)))', 'em'],
      ['(np (art O) (n gato))', 'gato'],
      ['(np (art O) (n rapaz) (adj alto))', 'rapaz'],
      ['(fcl (np (art A) (n menina)) (v-fin come) (np (art o) (n bolo)) (. .))', 'come'],
      ['(vp (v-fin quer) (v-inf sair))', 'quer'],
      ['(icl (v-inf sair) (pp (prp de) (np (n sala))))', 'sair'],
      ['(cu (np (n Pedro)) (conj-c e) (np (n Maria)))', 'Pedro'],
      // A clause whose verb sits in a verb phrase: the phrase, not the adverb that is a word.
      ['(fcl (adv não) (vp (v-fin pode) (v-inf sair)) (. .))', 'pode'],
    ];
    for (const [src, word] of known) expect(headWord(src, { table })).toBe(word);
    // The rule keeps a given table's rules and only adds the missing ones.
    const collins = headRulePreset('collins');
    const both = learnHeadRules(treebank, collins);
    expect(both.rules.NP).toBe(collins.rules.NP);
    expect(both.rules.pp?.[0].labels[0]).toBe('prp');
    expect(both.name).toBe('collins-ptb+learned');
  });

  it('learns word and tag classes: closed class, verb-like, adposition-like, conjunctions', () => {
    const table = learnHeadRules(treebank);
    const classes = learnTreeClasses(treebank, table);
    expect(classes.verbTags).toEqual(['v-fin']);
    expect(classes.adpositionLabels).toEqual(['pp']);
    expect(classes.conjunctionTags).toEqual(['conj-c']);
    expect(classes.punctuationTags).toEqual(['.']);
    expect(classes.closedClassTags).toEqual(expect.arrayContaining(['art', 'prp', 'conj-c']));
    expect(classes.closedClassTags).not.toContain('n');
  });

  it('verb-like tags grow from the clause heads to the open-class heads of verb-headed phrases', () => {
    // Clauses are headed by a finite verb or a modal; the bare verb under a modal (VB) heads
    // only VPs, which are mostly headed by verb-like tags, so it is verb-like too (the old
    // rule, clause heads alone, missed it). NN heads noun phrases only.
    const trees: Tree[] = [];
    for (let k = 0; k < 30; k++) {
      trees.push(parseTree(`(S (NP (DT the) (NN n${k})) (VP (MD will) (VP (VB v${k}) (NP (NN m${k})))) (. .))`));
      trees.push(parseTree(`(S (NP (DT a) (NN p${k})) (VP (VBD w${k}) (S (VP (TO to) (VP (VB u${k}))))) (. .))`));
    }
    const classes = learnTreeClasses(trees, headRulePreset('collins'));
    expect(classes.closedClassTags).toEqual(expect.arrayContaining(['DT', 'MD', 'TO']));
    expect(classes.verbTags).toEqual(expect.arrayContaining(['MD', 'VBD', 'VB']));
    expect(classes.verbTags).not.toContain('NN');
  });

  itWithData(['floresta-pt'], 'on floresta-pt, the verb-like tags are the verb forms', () => {
    const trees = readTreesSync(dataFile('floresta-pt', 'train.mrg'));
    const classes = learnTreeClasses(trees, learnHeadRules(trees));
    expect([...classes.verbTags].sort()).toEqual(['v-fin', 'v-ger', 'v-inf', 'v-pcp']);
  });

  it.skipIf(!existsSync(dataFile('ptb-sample', 'train.mrg')))(
    'on ptb-sample, learned heads agree with Collins on most phrases and the classes look like the PTB lists',
    () => {
      const trees = readTreesSync(dataFile('ptb-sample', 'train.mrg'));
      const learned = learnHeadRules(trees);
      let same = 0;
      let all = 0;
      const walk = (n: Tree): void => {
        if (n.word !== undefined) return;
        if (n.children.length >= 2) {
          all++;
          if (headChildIndex(n, { table: learned }) === headChildIndex(n)) same++;
        }
        n.children.forEach(walk);
      };
      trees.forEach(walk);
      expect(same / all).toBeGreaterThan(0.8);
      const classes = learnTreeClasses(trees, headRulePreset('collins'));
      expect(classes.closedClassTags).toEqual(expect.arrayContaining(['CC', 'DT', 'IN', 'MD', 'PRP', 'TO', 'WDT']));
      for (const open of ['NN', 'NNS', 'NNP', 'JJ', 'VB', 'VBD', 'RB'])
        expect(classes.closedClassTags).not.toContain(open);
      expect(classes.verbTags).toEqual(expect.arrayContaining(['VBD', 'VBZ', 'VBP', 'MD']));
      expect(classes.adpositionLabels).toContain('PP');
      expect(classes.conjunctionTags).toEqual(['CC']);
    },
  );
});

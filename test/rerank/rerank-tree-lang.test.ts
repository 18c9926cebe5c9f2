import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { annotateHeads } from '../../lib/trees/heads.js';
import { treeFeatureCounts } from '../../lib/rerank/tree-features.js';
import { learnTreeSettings, settingsHeadTable } from '../../lib/rerank/tree-settings.js';
import { sentenceFeatures } from '../../lib/rerank/nbest-features.js';
import { loadReranker, saveReranker } from '../../lib/rerank/reranker.js';
import { formatTree, preterminals, words, type Tree } from '../../lib/trees/tree.js';
import { runCli } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tree-lang-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A Floresta-style training treebank (content words new in every copy, as open classes are).
const templates = [
  '( (fcl (np (art o) (n N)) (v-fin V) (pp (prp em) (np (art a) (n N))) (. .)))',
  '( (fcl (np (art a) (n N)) (v-fin V) (np (art o) (n N)) (. .)))',
  '( (fcl (np (art os) (n N)) (v-fin V) (cu (np (art os) (n N)) (conj-c e) (np (art as) (n N))) (. .)))',
  '( (fcl (cu (np (prop P)) (conj-c e) (np (prop P))) (v-fin V) (pp (prp de) (np (prop P))) (. .)))',
  '( (np (art um) (n N) (pp (prp de) (np (n N)))))',
];
const train: Tree[] = [];
let fresh = 0;
for (let k = 0; k < 12; k++) {
  for (const t of templates)
    train.push(
      parseTree(
        t.replace(
          /\((n|v-fin|prop) ([NVP])\)/g,
          (_m, tag: string, kind: string) => `(${tag} ${kind.toLowerCase()}w${fresh++})`,
        ),
      ),
    );
}
const { settings } = learnTreeSettings(train);
const table = settingsHeadTable(settings);

const features = (src: string, withSettings = true): Map<string, number> =>
  withSettings
    ? treeFeatureCounts(annotateHeads(parseTree(src), { table }), { classes: settings.classes })
    : treeFeatureCounts(annotateHeads(parseTree(src)));

describe('reranking features with learned heads and classes', () => {
  const sentence = '( (fcl (np (art o) (n gato)) (v-fin dorme) (pp (prp em) (np (art a) (n casa))) (. .)))';

  it('head-to-head and grand-head dependencies follow the learned heads', () => {
    const f = features(sentence);
    expect(f.get('HeadHead:L n v-fin')).toBe(1);
    expect(f.get('HeadHead:R prp v-fin')).toBe(1);
    expect(f.get('HeadHeadW:L gato v-fin')).toBe(1);
    expect(f.get('HeadHeadH:R prp dorme')).toBe(1);
    // casa (n) depends on em (prp), which depends on dorme (v-fin).
    expect(f.get('GrandHead:R n prp v-fin')).toBe(1);
    // Punctuation is nobody's dependent.
    expect([...f.keys()].some((k) => k.startsWith('HeadHead:') && k.includes(' . '))).toBe(false);
  });

  it('adposition attachments and verb frames use the learned classes, not PP and VB*', () => {
    const f = features(sentence);
    expect(f.get('PP:fcl v-fin pp np dorme em casa')).toBe(1);
    expect(f.get('Frame:v-fin>np * pp')).toBe(1);
    expect(f.get('FrameW:dorme>np * pp')).toBe(1);
    // With the PTB classes of old models nothing of this fires on a Floresta tree.
    const legacy = features(sentence, false);
    expect([...legacy.keys()].some((k) => k.startsWith('PP:') || k.startsWith('Frame:'))).toBe(false);
  });

  it('coordination parallelism: same label, same rule, same head tag, length difference', () => {
    const parallel = features(
      '( (fcl (v-fin leem) (cu (np (art os) (n livros)) (conj-c e) (np (art as) (n revistas)))))',
    );
    expect(parallel.get('CoPar:cu same')).toBe(1);
    expect(parallel.get('CoPar2:cu same')).toBe(1);
    expect(parallel.get('CoHead:cu same')).toBe(1);
    expect(parallel.get('CoLen:cu 0 last')).toBe(1);
    const skewed = features(
      '( (fcl (v-fin leem) (cu (np (art os) (n livros)) (conj-c e) (pp (prp de) (np (art a) (adj nova) (n casa))))))',
    );
    expect(skewed.get('CoPar:cu np|pp')).toBe(1);
    expect(skewed.get('CoPar2:cu diff')).toBe(1);
    expect(skewed.get('CoLen:cu 2 last')).toBe(1);
  });

  it('heaviness: length bucket, sentence end and following punctuation', () => {
    const f = features(sentence);
    expect(f.get('Heavy:pp 3-4 mid punct')).toBe(1);
    expect(f.get('Heavy:np 2 mid word')).toBe(1);
    expect(f.get('Heavy:fcl 5-8 end word')).toBe(1);
  });

  it('settings are learned once, used for every candidate, and saved with the reranker', () => {
    const s = {
      id: 's1',
      tokens: ['o', 'gato', 'dorme'],
      candidates: [
        { tree: '( (fcl (np (art o) (n gato)) (v-fin dorme)))', logprob: -1 },
        { tree: '( (np (art o) (n gato) (n dorme)))', logprob: -2 },
      ],
      gold: '( (fcl (np (art o) (n gato)) (v-fin dorme)))',
      line: 1,
    };
    const names = sentenceFeatures(s, { settings }).candidates.map((c) => c.names);
    expect(names[0]).toContain('HeadHead:L n v-fin');
    expect(names[1]).not.toContain('HeadHead:L n v-fin');
    const file = join(dir, 'm.rr');
    saveReranker(file, {
      method: 'boost',
      a0: 1,
      names: ['HeadHead:L n v-fin'],
      weights: Float64Array.of(0.5),
      info: {},
      treeSettings: settings,
    });
    const back = loadReranker(file);
    expect(back.treeSettings).toEqual(settings);
    saveReranker(file, { method: 'boost', a0: 1, names: ['x'], weights: Float64Array.of(0.5), info: {} });
    expect(loadReranker(file).treeSettings).toBeUndefined();
  });

  it('new settings turn the word-context templates on; settings saved before them do not', () => {
    expect(settings.contextTemplates).toBe(true);
    const s = {
      id: 's1',
      tokens: ['o', 'gato', 'dorme'],
      candidates: [{ tree: '( (fcl (np (art o) (n gato)) (v-fin dorme)))', logprob: -1 }],
      line: 1,
    };
    const context = (names: readonly string[]): string[] => names.filter((n) => /^(NGramTree|Neighbours):/.test(n));
    const now = sentenceFeatures(s, { settings }).candidates[0].names;
    expect(context(now)).toEqual(expect.arrayContaining(['NGramTree:fcl [np n] [v-fin]', 'Neighbours:np 2 <s> v-fin']));
    const { contextTemplates: _, ...older } = settings;
    const before = sentenceFeatures(s, { settings: older }).candidates[0].names;
    expect(context(before)).toEqual([]);
    expect(before.every((n) => now.includes(n))).toBe(true);
  });
});

describe('train-reranker --head-rules (CLI)', () => {
  // Three candidates per sentence: the gold tree, a flat np, and a misattached pp.
  const lines: string[] = [];
  let id = 0;
  for (const t of train.slice(0, 40)) {
    const gold = formatTree(t);
    const ws = words(t);
    const tagged = t.word === undefined ? preterminals(t).map((p) => `(${p.label} ${p.word})`) : [];
    const flat = `( (np ${tagged.join(' ')}))`;
    const fcl = `( (fcl ${tagged.join(' ')}))`;
    lines.push(
      JSON.stringify({
        id: `s${id++}`,
        tokens: ws,
        gold,
        candidates: [
          { tree: flat, logprob: -1 },
          { tree: gold, logprob: -2 },
          { tree: fcl, logprob: -3 },
        ],
      }),
    );
  }

  it('learns and saves the settings, warns about coverage, and reranks with them', () => {
    const nbest = join(dir, 'train.nbest.jsonl');
    writeFileSync(nbest, lines.join('\n') + '\n');
    const rules = join(dir, 'rules.json');
    writeFileSync(rules, JSON.stringify({ rules: { pp: [['left', 'prp']] } }));
    const model = join(dir, 'cli.rr');
    const r = runCli([
      'train-reranker',
      '--method',
      'boost',
      '--train',
      nbest,
      '--rounds',
      '20',
      '--cutoff',
      '1',
      '--head-rules',
      rules,
      '--model',
      model,
      '--threads',
      '1',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/head rules '.*\+learned': \d+\.\d% of \d+ training phrases covered by the table/);
    expect(r.stderr).toMatch(/warning: head rules .* cover 17\.6% .*under 90%/);
    const m = loadReranker(model);
    expect(m.treeSettings?.headRules.rules.pp).toEqual([['left', 'prp']]);
    expect(m.treeSettings?.headRules.learned).toEqual(expect.arrayContaining(['fcl', 'np', 'cu']));
    expect(m.treeSettings?.classes.adpositionLabels).toEqual(['pp']);
    const out = join(dir, 'best.mrg');
    const rr = runCli(['rerank', '--model', model, '--input', nbest, '--out', out, '--threads', '1']);
    expect(rr.status, rr.stderr).toBe(0);
    const f1 = /EVALB F1: base ([\d.]+), reranked ([\d.]+)/.exec(rr.stdout);
    expect(f1).not.toBeNull();
    expect(Number(f1?.[2])).toBeGreaterThan(Number(f1?.[1]));
    const bad = runCli([
      'train-reranker',
      '--method',
      'boost',
      '--train',
      nbest,
      '--head-rules',
      join(dir, 'missing.json'),
      '--model',
      model,
    ]);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/missing\.json/);
  });
});

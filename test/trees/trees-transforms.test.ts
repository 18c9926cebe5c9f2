import { describe, expect, it } from 'vitest';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { formatTree, type Tree } from '../../lib/trees/tree.js';
import { readTreesSync } from '../../lib/io/treebank.js';
import {
  basicCategory,
  collapseUnaryChains,
  expandUnaryChains,
  removeEmptyElements,
  stripFunctionTags,
  stripPhraseFunctionTags,
  stripRoot,
} from '../../lib/trees/transforms.js';
import { dataFile, describeWithData, itWithData, repoRoot } from '../helpers.js';

const f = (s: string): Tree => parseTree(s);
const fmt = (t: Tree | undefined): string | undefined => (t ? formatTree(t) : undefined);

describe('stripFunctionTags', () => {
  it.each([
    ['NP-SBJ-1', 'NP'],
    ['NP=2', 'NP'],
    ['PP-LOC=1', 'PP'],
    ['NP-SBJ=1-3', 'NP'],
    ['S-TPC-1', 'S'],
    ['WHNP-260', 'WHNP'],
    ['-NONE-', '-NONE-'],
    ['-LRB-', '-LRB-'],
    ['-RRB-', '-RRB-'],
    ['-LCB-', '-LCB-'],
    ['PRP$', 'PRP$'],
    ['WP$', 'WP$'],
    ['', ''],
    ['ADVP', 'ADVP'],
  ])('basicCategory(%j) = %j', (label, expected) => {
    expect(basicCategory(label)).toBe(expected);
  });

  it('rewrites a whole tree and leaves the input alone', () => {
    const src = '( (S (NP-SBJ-1 (-NONE- *-1)) (VP=2 (VBD said) (NP (-LRB- -LRB-) (PRP$ his) (-RRB- -RRB-))) (. .)))';
    const t = f(src);
    expect(formatTree(stripFunctionTags(t))).toBe(
      '( (S (NP (-NONE- *-1)) (VP (VBD said) (NP (-LRB- -LRB-) (PRP$ his) (-RRB- -RRB-))) (. .)))',
    );
    expect(formatTree(t)).toBe(src);
  });
});

describe("stripPhraseFunctionTags (the parser's grammar)", () => {
  it('cuts phrase labels and keeps part-of-speech labels whole', () => {
    const src = '( (fcl-SUBJ (np=1 (pron-det Este) (n gato)) (v-fin dorme) (-- --) (pp-LOC (prp em) (n casa))))';
    const t = f(src);
    expect(formatTree(stripPhraseFunctionTags(t))).toBe(
      '( (fcl (np (pron-det Este) (n gato)) (v-fin dorme) (-- --) (pp (prp em) (n casa))))',
    );
    expect(formatTree(t)).toBe(src);
  });

  it('is stripFunctionTags on Penn Treebank trees (no PTB tag has a function tag)', () => {
    const src = '( (S (NP-SBJ-1 (-NONE- *-1)) (VP=2 (VBD said) (NP (-LRB- -LRB-) (PRP$ his) (-RRB- -RRB-))) (. .)))';
    expect(formatTree(stripPhraseFunctionTags(f(src)))).toBe(formatTree(stripFunctionTags(f(src))));
  });
});

describe('removeEmptyElements', () => {
  it('removes -NONE- and the constituents left empty', () => {
    const t = f('( (S (NP-SBJ (-NONE- *)) (VP (VBD reported) (SBAR (-NONE- 0) (S (-NONE- *T*-1)))) (. .)))');
    expect(fmt(removeEmptyElements(t))).toBe('( (S (VP (VBD reported)) (. .)))');
  });
  it('keeps constituents with some overt material', () => {
    const t = f('(S (NP (-NONE- *) (NN x)) (VP (VB y)))');
    expect(fmt(removeEmptyElements(t))).toBe('(S (NP (NN x)) (VP (VB y)))');
  });
  it('returns undefined when nothing is left', () => {
    expect(removeEmptyElements(f('(S (NP (-NONE- *)) (VP (-NONE- *T*)))'))).toBeUndefined();
  });
  it('leaves a tree without empty elements equal but not shared', () => {
    const t = f('(S (NP (NN x)) (VP (VB y)))');
    const r = removeEmptyElements(t)!;
    expect(r).toEqual(t);
    expect(r).not.toBe(t);
    expect(r.children[0]).not.toBe(t.children[0]);
  });
});

describeWithData(['ptb-sample'], 'transforms on ptb-sample train.mrg', () => {
  it('keeps exactly the overt tokens and leaves only basic labels', () => {
    // ptb-sample/README.md: train.mrg has 87514 preterminals, 81793 overt tokens.
    let overt = 0;
    let empty = 0;
    const labels = new Set<string>();
    for (const t of readTreesSync(dataFile('ptb-sample', 'train.mrg'))) {
      const clean = removeEmptyElements(stripFunctionTags(t));
      if (!clean) {
        empty++;
        continue;
      }
      const walk = (n: Tree): void => {
        labels.add(n.label);
        if (n.word !== undefined) {
          expect(n.label).not.toBe('-NONE-');
          overt++;
        } else {
          expect(n.children.length).toBeGreaterThan(0);
          n.children.forEach(walk);
        }
      };
      walk(clean);
    }
    expect(empty).toBe(0);
    expect(overt).toBe(81793);
    const dashed = [...labels].filter((l) => /[-=]/.test(l)).sort();
    expect(dashed).toEqual(['-LRB-', '-RRB-']);
    expect(labels.has('PRP$')).toBe(true);
    expect(labels.has('NP')).toBe(true);
  });
});

describe('unary chains', () => {
  const t = f('(ROOT (S (VP (VB Go) (NP (NP (NNS home)))) (SBAR (S (VP (VB now))))))');

  it('collapses chains above preterminals by default and keeps the root', () => {
    expect(formatTree(collapseUnaryChains(t))).toBe('(ROOT (S (VP (VB Go) (NP+NP (NNS home))) (SBAR+S+VP (VB now))))');
  });
  it('includes the root when asked', () => {
    const u = f('(ROOT (S (NP (NN x)) (VP (VB y))))');
    expect(formatTree(collapseUnaryChains(u, { includeRoot: true }))).toBe('(ROOT+S (NP (NN x)) (VP (VB y)))');
    expect(formatTree(collapseUnaryChains(u))).toBe('(ROOT (S (NP (NN x)) (VP (VB y))))');
  });
  it('includes preterminals when asked, with another joiner', () => {
    expect(formatTree(collapseUnaryChains(t, { includePreterminals: true, joiner: '^' }))).toBe(
      '(ROOT (S (VP (VB Go) (NP^NP^NNS home)) (SBAR^S^VP^VB now)))',
    );
  });
  it('expands back exactly', () => {
    for (const options of [
      {},
      { includePreterminals: true },
      { includeRoot: true },
      { includeRoot: true, includePreterminals: true, joiner: '@@' },
    ]) {
      const c = collapseUnaryChains(t, options);
      expect(expandUnaryChains(c, options)).toEqual(t);
    }
  });
  it('refuses labels that contain the joiner', () => {
    expect(() => collapseUnaryChains(f('(S (A+B (C x)))'))).toThrow(/contains the joiner/);
  });

  const files = [
    ...['train', 'dev', 'test'].map((s) => dataFile('ptb-sample', `${s}.mrg`)),
    ...['train', 'dev', 'test'].map((s) => `${repoRoot}/data/gum-open/${s}.mrg`),
  ];
  for (const file of files) {
    const test = file.startsWith(repoRoot)
      ? it
      : (title: string, fn: () => void) => itWithData(['ptb-sample'], title, fn);
    test(`round-trips every tree of ${file.split('/').slice(-2).join('/')}`, () => {
      const trees = readTreesSync(file);
      let collapsedSomething = 0;
      for (const tree of trees) {
        for (const options of [{}, { includePreterminals: true, includeRoot: true }]) {
          const c = collapseUnaryChains(tree, options);
          if (formatTree(c) !== formatTree(tree)) collapsedSomething++;
          // No unary chain is left below the root.
          const check = (n: Tree, isRoot: boolean): void => {
            if (n.word !== undefined) return;
            if (!isRoot && n.children.length === 1) {
              const child = n.children[0];
              expect(child.word !== undefined && !options.includePreterminals).toBe(true);
            }
            for (const ch of n.children) check(ch, false);
          };
          check(c, !('includeRoot' in options));
          expect(formatTree(expandUnaryChains(c))).toBe(formatTree(tree));
        }
      }
      expect(collapsedSomething).toBeGreaterThan(trees.length / 2);
    });
  }
});

describe('stripRoot', () => {
  it.each([
    ['( (S (NP (NN x)) (VP (VB y))))', '(S (NP (NN x)) (VP (VB y)))'],
    ['(ROOT (S (NP (NN x)) (VP (VB y))))', '(S (NP (NN x)) (VP (VB y)))'],
    ['(TOP (S (NP (NN x)) (VP (VB y))))', '(S (NP (NN x)) (VP (VB y)))'],
    ['( (ROOT (S (NN x))))', '(S (NN x))'],
    ['(ROOT (NP (NN x)) (VP (VB y)))', '(ROOT (NP (NN x)) (VP (VB y)))'],
    ['(S (NP (NN x)) (VP (VB y)))', '(S (NP (NN x)) (VP (VB y)))'],
  ])('%s -> %s', (src, expected) => {
    const t = f(src);
    const r = stripRoot(t);
    expect(formatTree(r)).toBe(expected);
    expect(formatTree(t)).toBe(src);
  });
});

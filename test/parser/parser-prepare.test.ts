import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readTreesSync } from '../../lib/io/treebank.js';
import { formatTree, type Tree } from '../../lib/trees/tree.js';
import { annotate, deannotate } from '../../lib/parser/annotate.js';
import { binarize, debinarize } from '../../lib/parser/binarize.js';
import { prepareTree, restoreTree } from '../../lib/parser/prepare.js';
import {
  collapseUnaryChains,
  expandUnaryChains,
  removeEmptyElements,
  stripFunctionTags,
  stripRoot,
} from '../../lib/parser/standard-transforms.js';
import { dataFile, describeWithData, repoRoot } from '../helpers.js';

const gumFiles = ['train.mrg', 'dev.mrg', 'test.mrg'].map((f) => join(repoRoot, 'data', 'gum-open', f));
const ptbFiles = (): string[] => ['train.mrg', 'dev.mrg', 'test.mrg'].map((f) => dataFile('ptb-sample', f));

function cleaned(t: Tree): Tree | undefined {
  const c = removeEmptyElements(stripFunctionTags(t));
  return c && collapseUnaryChains(stripRoot(c));
}

function maxChildren(t: Tree): number {
  return Math.max(t.children.length, ...t.children.map(maxChildren));
}

function unariesStacked(t: Tree): boolean {
  if (t.word !== undefined) return false;
  if (t.children.length === 1 && t.children[0].word === undefined && t.children[0].children.length === 1) return true;
  return t.children.some(unariesStacked);
}

/** Round-trips every tree of the files through annotate/binarize and back; returns how many. */
function roundTrip(files: string[]): number {
  let count = 0;
  for (const file of files) {
    for (const tree of readTreesSync(file)) {
      const base = cleaned(tree);
      if (!base) continue;
      const annotated = annotate(base);
      expect(formatTree(deannotate(annotated))).toBe(formatTree(base));
      for (const order of [1, 2] as const) {
        const bin = binarize(annotated, order);
        expect(maxChildren(bin)).toBeLessThanOrEqual(2);
        expect(unariesStacked(bin)).toBe(false);
        expect(formatTree(debinarize(bin))).toBe(formatTree(annotated));
      }
      count++;
    }
  }
  return count;
}

describeWithData(['ptb-sample'], 'chart parser grammar preparation on ptb-sample', () => {
  it('annotate/deannotate and binarize/debinarize round-trip every ptb-sample tree', () => {
    expect(roundTrip(ptbFiles())).toBeGreaterThan(3800);
  });

  it('restores prepared trees to the cleaned PTB tree', () => {
    for (const tree of readTreesSync(dataFile('ptb-sample', 'dev.mrg')).slice(0, 200)) {
      const base = cleaned(tree) as Tree;
      const back = restoreTree(prepareTree(tree) as Tree, '');
      expect(formatTree(back)).toBe(formatTree({ label: '', children: [expandUnaryChains(base)] }));
    }
  });
});

describe('chart parser grammar preparation', () => {
  it('annotate/deannotate and binarize/debinarize round-trip every gum-open tree', () => {
    expect(roundTrip(gumFiles)).toBeGreaterThan(3500);
  });

  it('restores prepared gum-open trees to the cleaned tree', () => {
    for (const tree of readTreesSync(gumFiles[1]).slice(0, 200)) {
      const base = cleaned(tree) as Tree;
      const back = restoreTree(prepareTree(tree) as Tree, '');
      expect(formatTree(back)).toBe(formatTree({ label: '', children: [expandUnaryChains(base)] }));
    }
  });

  it('annotates parents on tags and head tags on VPs, and marks active states', () => {
    const t: Tree = {
      label: 'S',
      children: [
        { label: 'NP', children: [{ label: 'PRP', children: [], word: 'He' }] },
        {
          label: 'VP',
          children: [
            { label: 'VBD', children: [], word: 'saw' },
            {
              label: 'NP',
              children: [
                { label: 'DT', children: [], word: 'the' },
                { label: 'JJ', children: [], word: 'big' },
                { label: 'NN', children: [], word: 'dog' },
              ],
            },
          ],
        },
      ],
    };
    const a = annotate(t);
    expect(formatTree(a)).toBe(
      '(S^ROOT (NP^S (PRP^NP He)) (VP~VBD^S (VBD^VP saw) (NP^VP (DT^NP the) (JJ^NP big) (NN^NP dog))))',
    );
    expect(formatTree(binarize(a, 2))).toContain('(NP^VP (DT^NP the) (@NP^VP|DT|DT (JJ^NP big) (NN^NP dog)))');
    expect(formatTree(binarize(a, 1))).toContain('(@NP^VP|DT (JJ^NP big) (NN^NP dog))');
    expect(
      formatTree(
        collapseUnaryChains({
          label: 'S',
          children: [{ label: 'VP', children: [{ label: 'VB', children: [], word: 'Go' }] }],
        }),
      ),
    ).toBe('(S+VP (VB Go))');
  });
});

import { describe, expect, it } from 'vitest';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { annotateHeads, COLLINS_HEAD_RULES, headChildIndex, type HeadedTree } from '../../lib/trees/heads.js';
import { readTreesSync } from '../../lib/io/treebank.js';
import { join } from 'node:path';
import { repoRoot } from '../helpers.js';

// Each case: tree, expected head child index, expected head word. Worked out by hand from
// the table in lib/trees/heads.ts (comments give the rule that fires).
const cases: [string, string, number, string][] = [
  ['NP: rightmost noun', '(NP (DT the) (JJ big) (NN dog))', 2, 'dog'],
  ['NP: POS is in the first set, and last', "(NP (NNP John) (POS 's))", 1, "'s"],
  ['NP: no noun child, leftmost NP', '(NP (NP (DT the) (NN man)) (PP (IN with) (NP (DT a) (NN hat))))', 0, 'man'],
  ['NP: $ before CD (third rule)', '(NP ($ $) (CD 5))', 0, '$'],
  ['NP: CD (fourth rule)', '(NP (DT all) (CD three))', 1, 'three'],
  ['NP: JJ (fifth rule)', '(NP (DT the) (JJ rich))', 1, 'rich'],
  ['NP: nothing matches, last child', '(NP (DT this) (DT that))', 1, 'that'],
  ['NP-SBJ-1 uses the NP rules', '(NP-SBJ-1 (DT the) (NN dog) (, ,))', 1, 'dog'],
  ['VP: MD before VP', '(VP (MD will) (VP (VB go) (ADVP (RB home))))', 0, 'will'],
  ['VP: VBD before SBAR', '(VP (VBD said) (SBAR (IN that) (S (NP (PRP he)) (VP (VBD left)))))', 0, 'said'],
  ['VP coordination: leftmost VP', '(VP (VP (VBD sang)) (CC and) (VP (VBD danced)))', 0, 'sang'],
  ['PP: IN', '(PP (IN in) (NP (DT the) (NN house)))', 0, 'in'],
  ['PP: IN after an adverb', '(PP (ADVP (RB just)) (IN after) (NP (NN noon)))', 1, 'after'],
  ['SBAR: complementizer', '(SBAR (IN that) (S (NP (PRP he)) (VP (VBD left))))', 0, 'that'],
  ['SBAR: WHNP', '(SBAR (WHNP (WDT which)) (S (NP (PRP he)) (VP (VBD read))))', 0, 'which'],
  ['SBAR: empty complementizer, S', '(SBAR (-NONE- 0) (S (NP (PRP he)) (VP (VBD left))))', 1, 'left'],
  ['S: VP, with punctuation around', '(S (`` ``) (NP-SBJ (PRP We)) (VP (VBP win)) (. .))', 2, 'win'],
  ['S: VP-1 matches VP', '(S (NP-SBJ (NN x)) (VP-1 (VB y)))', 1, 'y'],
  ['coordination: head moves left over CC', '(NP (NNS cats) (CC and) (NNS dogs))', 0, 'cats'],
  ['coordination: UCP default then CC', '(UCP (JJ old) (CC and) (NN new))', 0, 'old'],
  ['coordination: skips punctuation leftwards', '(ADVP (RB slowly) (, ,) (CC but) (RB surely))', 0, 'slowly'],
  ['coordination: CONJP', '(NP (NN bread) (CONJP (RB as) (RB well) (IN as)) (NN butter))', 0, 'bread'],
  [
    'NP list: leftmost NP, no change',
    '(NP (NP (NNS cats)) (, ,) (NP (NNS dogs)) (CC and) (NP (NNS birds)))',
    0,
    'cats',
  ],
  ['FRAG: rightmost child, even punctuation', '(FRAG (NP (NN Help)) (. !))', 1, '!'],
  ['WHNP: WDT', '(WHNP (WDT which) (NN book))', 0, 'which'],
  ['QP: RB before CD', '(QP (RB about) (CD 5))', 0, 'about'],
  ['ADJP: JJ after RB', '(ADJP (RB very) (JJ good))', 1, 'good'],
  ['ADVP: rightmost RB', '(ADVP (RB very) (RB quickly))', 1, 'quickly'],
  ['unknown label: first child', '(FOO (NN a) (NN b))', 0, 'a'],
  ['ROOT: first child', '(ROOT (S (VP (VB Go))) (. .))', 0, 'Go'],
  ['unary: only child', '(NP (PRP it))', 0, 'it'],
];

describe('Collins head rules', () => {
  it.each(cases)('%s', (_name, src, head, word) => {
    const t = parseTree(src);
    expect(headChildIndex(t)).toBe(head);
    expect(annotateHeads(t).headWord).toBe(word);
  });

  it('turns the coordination rule off on request', () => {
    expect(headChildIndex(parseTree('(NP (NNS cats) (CC and) (NNS dogs))'), { coordination: false })).toBe(2);
    expect(headChildIndex(parseTree('(ADVP (RB slowly) (, ,) (CC but) (RB surely))'), { coordination: false })).toBe(3);
  });

  it('a preterminal has no head child', () => {
    expect(headChildIndex(parseTree('(NN dog)'))).toBe(-1);
  });

  it('annotates every node with head child, word, tag and position', () => {
    const h = annotateHeads(parseTree('(S (NP-SBJ (DT The) (NN dog)) (VP (VBD chased) (NP (DT the) (NN cat))) (. .))'));
    const brief = (n: HeadedTree): unknown => [n.label, n.head, n.headWord, n.headTag, n.headIndex];
    expect(brief(h)).toEqual(['S', 1, 'chased', 'VBD', 2]);
    expect(brief(h.children[0])).toEqual(['NP-SBJ', 1, 'dog', 'NN', 1]);
    expect(brief(h.children[1])).toEqual(['VP', 0, 'chased', 'VBD', 2]);
    expect(brief(h.children[1].children[1])).toEqual(['NP', 1, 'cat', 'NN', 4]);
    expect(brief(h.children[2])).toEqual(['.', -1, '.', '.', 5]);
  });

  it('counts -NONE- preterminals in head positions', () => {
    const h = annotateHeads(parseTree('(S (NP-SBJ (-NONE- *)) (VP (VB go)))'));
    expect([h.headWord, h.headIndex]).toEqual(['go', 1]);
  });

  it('documents the table it uses', () => {
    expect(COLLINS_HEAD_RULES.NP.map((r) => r.direction)).toEqual([
      'rightdis',
      'left',
      'rightdis',
      'right',
      'rightdis',
    ]);
    expect(COLLINS_HEAD_RULES.NP[0].labels).toEqual(['NN', 'NNP', 'NNPS', 'NNS', 'NX', 'POS', 'JJR']);
  });

  it('annotates every tree of gum-open test.mrg, heads being preterminals of the node', () => {
    for (const t of readTreesSync(join(repoRoot, 'data', 'gum-open', 'test.mrg'))) {
      const h = annotateHeads(t);
      const check = (n: HeadedTree): void => {
        if (n.word !== undefined) return;
        expect(n.head).toBeGreaterThanOrEqual(0);
        expect(n.children[n.head].headIndex).toBe(n.headIndex);
        n.children.forEach(check);
      };
      check(h);
    }
  });
});

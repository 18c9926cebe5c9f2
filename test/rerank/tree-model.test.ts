/**
 * The generative tree model that scores reranking candidates (lib/rerank/tree-model.ts): its
 * backoff arithmetic by hand on a one-tree treebank, its word model, and the features it gives
 * a parser's k-best lists (TREE_MODEL_FEATURES).
 */
import { describe, expect, it } from 'vitest';
import { TREE_MODEL_FEATURES } from '../../lib/parser/nbest-lists.js';
import { trainTreeModel } from '../../lib/rerank/tree-model.js';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { gumLists } from './gum-lists.js';

const UNSEEN = 1e-4;
/** Witten-Bell at one level: count c of the child, total n and distinct children t of the context. */
const wb = (c: number, n: number, t: number, lower: number) => (c + t * lower) / (n + t);

describe('the generative tree model', () => {
  it('scores a phrase child by child with Witten-Bell backoff, as counted by hand', () => {
    const model = trainTreeModel([parseTree('( (S (NP (D the) (N dog)) (VP (V runs))))')]);
    // Each context (label + parent + previous child; label + previous child) saw one child
    // once, so both finer levels give (1 + P_lower) / 2. The coarsest level, the label alone,
    // saw S generate NP, VP and the end once each; NP: D, N, end; VP: V, end.
    const chain = (coarsest: number) => wb(1, 1, 1, wb(1, 1, 1, coarsest));
    const s = wb(1, 3, 3, UNSEEN);
    const np = wb(1, 3, 3, UNSEEN);
    const vp = wb(1, 2, 2, UNSEEN);
    const phrases = 3 * Math.log(chain(s)) + 3 * Math.log(chain(np)) + 2 * Math.log(chain(vp));
    // A tag's seen word: (its count + the signature's share) / (the tag's count + 1); every word
    // was seen once, so each is its own tag's only rare signature: (1 + 0.1) / (1 + 0.1 * 4).
    const signature = 1.1 / 1.4;
    const word = (1 + signature) / 2;
    expect(model.logprob(parseTree('(ROOT (S (NP (D the) (N dog)) (VP (V runs))))'))).toBeCloseTo(
      phrases + 3 * Math.log(word),
      12,
    );
    // A child the label never generated falls to the floor at every level.
    const other = model.logprob(parseTree('(S (NP (D the) (N dog)) (NP (V runs)))'));
    expect(other).toBeLessThan(model.logprob(parseTree('(S (NP (D the) (N dog)) (VP (V runs)))')) - 5);
    expect(Number.isFinite(other)).toBe(true);
  });

  it('judges an unseen word by the signatures of the rare words its tag had', () => {
    const model = trainTreeModel([
      parseTree('(S (NP (NNP Paris)) (VP (VBZ sleeps)))'),
      parseTree('(S (NP (NNP London)) (VP (VBZ walks)))'),
    ]);
    const with_ = (tag: string, word: string) =>
      model.logprob(parseTree(`(S (NP (${tag} ${word})) (VP (VBZ sleeps)))`));
    // "Berlin" looks like the capitalized words NNP had, not like VBZ's.
    expect(with_('NNP', 'Berlin')).toBeGreaterThan(with_('VBZ', 'Berlin'));
    expect(Number.isFinite(with_('XX', 'Berlin'))).toBe(true);
    // Function tags, empty elements and the root wrapper do not change a tree's score.
    expect(model.logprob(parseTree('( (S (NP-SBJ (NNP Paris) (-NONE- *T*)) (VP (VBZ sleeps))))'))).toBeCloseTo(
      model.logprob(parseTree('(S (NP (NNP Paris)) (VP (VBZ sleeps)))')),
      12,
    );
  });

  it("marks each list's most probable candidates and how far below them the others lie", async () => {
    const { train, parser, sentences } = await gumLists();
    const treeModel = trainTreeModel(train);
    const plain = await parser.nbest(sentences, 5, { threads: 1, seed: 1 });
    const lists = await parser.nbest(sentences, 5, { threads: 1, seed: 1 }, { treeModel });
    const gapNames = Object.values(TREE_MODEL_FEATURES);
    let gaps = 0;
    lists.forEach((s, i) => {
      // The same candidates, with the features added.
      expect(s.candidates.map((c) => c.tree)).toEqual(plain[i].candidates.map((c) => c.tree));
      const logprobs = s.candidates.map((c) => treeModel.logprob(parseTree(c.tree as string)));
      const best = Math.max(...logprobs);
      s.candidates.forEach((c, j) => {
        const f = c.features ?? {};
        expect(f[TREE_MODEL_FEATURES.best] === 1).toBe(logprobs[j] === best);
        for (const step of [0.5, 1, 2, 4, 8, 16])
          expect(f[`${TREE_MODEL_FEATURES.gap} ${step}`] === 1).toBe(best - logprobs[j] >= step);
        expect(Object.keys(f).every((name) => gapNames.some((g) => name.startsWith(g)))).toBe(true);
        if (f[`${TREE_MODEL_FEATURES.gap} 0.5`] === 1) gaps++;
      });
    });
    expect(gaps).toBeGreaterThan(0);
  });
});

/**
 * The head-lexicalized generative model that scores reranking candidates
 * (lib/rerank/head-model.ts): its arithmetic by hand on a one-tree treebank, what its head
 * words decide that labels alone cannot, and its features beside the tree model's in a
 * parser's k-best lists (HEAD_MODEL_FEATURES).
 */
import { describe, expect, it } from 'vitest';
import { HEAD_MODEL_FEATURES, TREE_MODEL_FEATURES } from '../../lib/parser/nbest-lists.js';
import { learnHeadModelTable, trainHeadModel } from '../../lib/rerank/head-model.js';
import { trainTreeModel } from '../../lib/rerank/tree-model.js';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { headRulePreset } from '../../lib/trees/head-rules.js';
import { gumLists } from './gum-lists.js';

const UNSEEN = 1e-5;
/** Witten-Bell where every context level saw its one outcome once: (1 + P_lower) / 2 per level. */
const once = (levels: number, lower: number): number => (levels === 0 ? lower : (1 + once(levels - 1, lower)) / 2);

describe('the head-lexicalized generative model', () => {
  it('generates heads, dependents and their words with Witten-Bell backoff, as counted by hand', () => {
    const tree = '(S (NP (DT the) (NN dog)) (VP (VBD barked)))';
    const model = trainHeadModel([parseTree(`( ${tree})`)], headRulePreset('collins'));
    // Collins heads: S -> VP -> VBD "barked", NP -> NN "dog". Every context at every level saw
    // one outcome once, and no two steps share a context: the root's label and head tag (one
    // level), three head children and eight dependents or ends (three levels each): S has NP
    // and an end on the left and an end on the right; NP has DT and an end on the left and an
    // end on the right; VP an end on each side.
    const steps = Math.log(once(1, UNSEEN)) + 11 * Math.log(once(3, UNSEEN));
    // Each word was seen once, under its own tag: (1 + its tag's signature share) / 2, with
    // three signatures plus one unseen: (1 + 0.1) / (1 + 0.1 * 4). The root's head word takes
    // that alone; "dog" and "the" back off to it from their two lexical contexts.
    const byTag = (1 + 1.1 / 1.4) / 2;
    const words = Math.log(byTag) + 2 * Math.log(once(2, byTag));
    expect(model.logprob(parseTree(`(ROOT ${tree})`))).toBeCloseTo(steps + words, 12);
    // Function tags, empty elements and the root wrapper do not change a tree's score.
    expect(model.logprob(parseTree('( (S (NP-SBJ (DT the) (NN dog) (-NONE- *T*)) (VP (VBD barked))))'))).toBeCloseTo(
      model.logprob(parseTree(tree)),
      12,
    );
    // An unseen label and an unseen word fall to the floors, finite.
    expect(Number.isFinite(model.logprob(parseTree('(S (NP (DT a) (XX cat)) (VP (VBD barked)))')))).toBe(true);
  });

  it('attaches by the head words, where the tree model sees only labels', () => {
    // "ate" took a PP of its own, "liked" left it to its object; the same rules, once each.
    const trees = [
      '(S (NP (PRP I)) (VP (VBD ate) (NP (NN soup)) (PP (IN with) (NP (NN bread)))))',
      '(S (NP (PRP I)) (VP (VBD liked) (NP (NP (NN salad)) (PP (IN with) (NP (NN cheese))))))',
    ].map((t) => parseTree(t));
    const head = trainHeadModel(trees);
    const plain = trainTreeModel(trees);
    const verbAttached = (verb: string) =>
      parseTree(`(S (NP (PRP I)) (VP (VBD ${verb}) (NP (NN soup)) (PP (IN with) (NP (NN bread)))))`);
    const nounAttached = (verb: string) =>
      parseTree(`(S (NP (PRP I)) (VP (VBD ${verb}) (NP (NP (NN soup)) (PP (IN with) (NP (NN bread))))))`);
    const preference = (m: { logprob(t: ReturnType<typeof parseTree>): number }, verb: string) =>
      m.logprob(verbAttached(verb)) - m.logprob(nounAttached(verb));
    // Under "ate" the verb attachment gains over the noun's; under "liked" it loses.
    expect(preference(head, 'ate') - preference(head, 'liked')).toBeGreaterThan(1);
    // The tree model's preference does not depend on the verb.
    expect(preference(plain, 'ate')).toBeCloseTo(preference(plain, 'liked'), 12);
  });

  it("gives each list's candidates its features beside the tree model's", async () => {
    const { train, parser, sentences } = await gumLists();
    const treeModel = trainTreeModel(train);
    const headModel = trainHeadModel(train);
    const withTree = await parser.nbest(sentences, 5, { threads: 1, seed: 1 }, { treeModel });
    const lists = await parser.nbest(sentences, 5, { threads: 1, seed: 1 }, { treeModel, headModel });
    let gaps = 0;
    lists.forEach((s, i) => {
      expect(s.candidates.map((c) => c.tree)).toEqual(withTree[i].candidates.map((c) => c.tree));
      const logprobs = s.candidates.map((c) => headModel.logprob(parseTree(c.tree as string)));
      const best = Math.max(...logprobs);
      s.candidates.forEach((c, j) => {
        const f = c.features ?? {};
        expect(f[HEAD_MODEL_FEATURES.best] === 1).toBe(logprobs[j] === best);
        for (const step of [0.5, 1, 2, 4, 8, 16])
          expect(f[`${HEAD_MODEL_FEATURES.gap} ${step}`] === 1).toBe(best - logprobs[j] >= step);
        // The tree model's features are those of the lists without the head model.
        const treeOnly = Object.fromEntries(
          Object.entries(f).filter(([name]) => Object.values(TREE_MODEL_FEATURES).some((p) => name.startsWith(p))),
        );
        expect(treeOnly).toEqual(withTree[i].candidates[j].features ?? {});
        if (f[`${HEAD_MODEL_FEATURES.gap} 0.5`] === 1) gaps++;
      });
    });
    expect(gaps).toBeGreaterThan(0);
  });

  it('scores a tree the same whatever it scored before (scoring adds nothing to the model)', async () => {
    const { train } = await gumLists();
    const trees = train.slice(0, 200);
    const inOrder = trainHeadModel(train);
    const forward = trees.map((t) => inOrder.logprob(t));
    // Again in reverse on the same model, and each tree alone on a fresh model.
    expect([...trees].reverse().map((t) => inOrder.logprob(t))).toEqual([...forward].reverse());
    const fresh = (t: (typeof trees)[number]): number => trainHeadModel(train).logprob(t);
    for (const i of [0, 57, 199]) expect(fresh(trees[i])).toBe(forward[i]);
  });

  it('counts the same from trees read one at a time with its learned table given', async () => {
    const { train } = await gumLists();
    const table = learnHeadModelTable(train);
    let read = 0;
    const oneAtATime = function* () {
      for (const t of train) {
        read++;
        yield t;
      }
    };
    const streamed = trainHeadModel(oneAtATime(), table);
    expect(read).toBe(train.length);
    const whole = trainHeadModel(train);
    for (const t of train.slice(0, 100)) expect(streamed.logprob(t)).toBe(whole.logprob(t));
    // The table given is the one used: every head the first child, other scores.
    const firstChild = trainHeadModel(train, { name: 'first', rules: {}, otherwise: 'left' });
    expect(train.slice(0, 100).every((t) => firstChild.logprob(t) !== whole.logprob(t))).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { treeFeatureCounts, treeFeatures, type HeadNode } from '../../lib/rerank/tree-features.js';

/** Hand-made head annotation: leaves number themselves left to right. */
function build(spec: Spec, counter = { n: 0 }): HeadNode {
  if (typeof spec[1] === 'string') {
    const [tag, word] = spec as [string, string];
    return { label: tag, children: [], word, head: -1, headWord: word, headTag: tag, headIndex: counter.n++ };
  }
  const [label, head, kids] = spec as [string, number, Spec[]];
  const children = kids.map((k) => build(k, counter));
  const h = children[head];
  return { label, children, head, headWord: h.headWord, headTag: h.headTag, headIndex: h.headIndex };
}
type Spec = [string, string] | [string, number, Spec[]];

// (S (NP The man) (VP saw (NP the dog) (PP with (NP a telescope))) (. .)), heads marked by index.
const tree = build([
  '',
  0,
  [
    [
      'S',
      1,
      [
        [
          'NP',
          1,
          [
            ['DT', 'The'],
            ['NN', 'man'],
          ],
        ],
        [
          'VP',
          0,
          [
            ['VBD', 'saw'],
            [
              'NP',
              1,
              [
                ['DT', 'the'],
                ['NN', 'dog'],
              ],
            ],
            [
              'PP',
              0,
              [
                ['IN', 'with'],
                [
                  'NP',
                  1,
                  [
                    ['DT', 'a'],
                    ['NN', 'telescope'],
                  ],
                ],
              ],
            ],
          ],
        ],
        ['.', '.'],
      ],
    ],
  ],
]);

const counts = treeFeatureCounts(tree);
const has = (...names: string[]): void => {
  for (const n of names) expect(counts.has(n), n).toBe(true);
};
const byPrefix = (prefix: string): string[] => [...counts.keys()].filter((k) => k.startsWith(prefix)).sort();

describe('parse-tree reranking features (Collins & Koo 2005)', () => {
  it('rules mark the head child and skip the root wrapper', () => {
    expect(byPrefix('Rule:')).toEqual(['Rule:NP>DT NN*', 'Rule:PP>IN* NP', 'Rule:S>NP VP* .', 'Rule:VP>VBD* NP PP']);
    expect(counts.get('Rule:NP>DT NN*')).toBe(3);
  });

  it('bigrams go outward from the head on each side and end with STOP', () => {
    expect(byPrefix('Bigram:').filter((n) => n.includes(' VP>') || n.includes(' S>'))).toEqual([
      'Bigram:L S>NP STOP',
      'Bigram:R S>. STOP',
      'Bigram:R VP>NP PP',
      'Bigram:R VP>PP STOP',
    ]);
    has('Bigram:L NP>DT STOP', 'Bigram:R PP>NP STOP');
    expect(counts.has('Bigram:L VP>STOP')).toBe(false);
  });

  it('grandparent rules and bigrams add the label above', () => {
    has('GRule:TOP^S>NP VP* .', 'GRule:S^VP>VBD* NP PP', 'GRule:VP^PP>IN* NP', 'GRule:PP^NP>DT NN*');
    has('GBigram:S^R VP>NP PP', 'GBigram:TOP^L S>NP STOP');
  });

  it('two-level rules and bigrams add the whole rule above (the node marked @)', () => {
    has('TwoRule:S>NP VP*@ .^VP>VBD* NP PP', 'TwoRule:VP>VBD* NP PP@^PP>IN* NP', 'TwoRule:TOP^S>NP VP* .');
    has('TwoBigram:S>NP VP*@ .^R VP>NP PP');
  });

  it('trigrams run over STOP C1 .. Cm STOP', () => {
    expect(byPrefix('Trigram:VP>')).toEqual([
      'Trigram:VP>NP PP STOP',
      'Trigram:VP>STOP VBD* NP',
      'Trigram:VP>VBD* NP PP',
    ]);
  });

  it('lexical bigrams carry both lexical heads', () => {
    has('LexBigram:R VP>NP PP dog with', 'LexBigram:R VP>PP STOP with STOP', 'LexBigram:L S>NP STOP man STOP');
  });

  it('head-modifiers carry direction, grandparent, parent, head, modifier and adjacency', () => {
    expect(byPrefix('HeadMod:').filter((n) => ['S', 'VP'].includes(n.split(' ')[2]))).toEqual([
      'HeadMod:L TOP S VP NP adj=1',
      'HeadMod:R S VP VBD NP adj=1',
      'HeadMod:R S VP VBD PP adj=0',
      'HeadMod:R TOP S VP . adj=1',
    ]);
  });

  it('PP features: lexical trigram with and without the modified head word', () => {
    expect(byPrefix('PP:')).toEqual(['PP:VP VBD PP NP saw with telescope', 'PP:VP VBD PP NP with telescope']);
  });

  it('distance head-modifiers: = dist, < x for dist < x < 9, > x for 1 < x < dist', () => {
    // saw (2) .. with (5): two words between.
    expect(byPrefix('Dist:VP VBD PP')).toEqual(
      ['<3', '<4', '<5', '<6', '<7', '<8', '=2'].map((s) => `Dist:VP VBD PP ${s}`),
    );
    // saw (2) .. '.' (8): five words between.
    expect(byPrefix('Dist:S VP .')).toEqual(['<6', '<7', '<8', '=5', '>2', '>3', '>4'].map((s) => `Dist:S VP . ${s}`));
    has('Dist:S VP NP =0', 'Dist:S VP NP <8');
  });

  it('the closed-class pass annotates nonterminals whose head word is closed-class', () => {
    has('CCRule:VP>VBD* NP PP(with)', 'CCRule:PP(with)>IN(with)* NP', 'CCRule:NP>DT(the) NN*', 'CCRule:NP>DT(a) NN*');
    has('CCTrigram:VP>NP PP(with) STOP', 'CCGRule:PP(with)^NP>DT(a) NN*');
    // Head-modifier, PP and distance templates are not repeated.
    expect(
      [...counts.keys()].some((k) => k.startsWith('CCHeadMod') || k.startsWith('CCPP') || k.startsWith('CCDist')),
    ).toBe(false);
    const off = treeFeatureCounts(tree, { lexicalizedPass: false });
    expect([...off.keys()].some((k) => k.startsWith('CC'))).toBe(false);
  });

  it('counts become threshold features', () => {
    const names = treeFeatures(tree);
    expect(names.filter((n) => n.startsWith('Rule:NP>DT NN*'))).toEqual([
      'Rule:NP>DT NN*',
      'Rule:NP>DT NN*|>=2',
      'Rule:NP>DT NN*|>=3',
    ]);
    expect(names).not.toContain('Rule:S>NP VP* .|>=2');
    expect(treeFeatures(tree, { thresholds: false }).filter((n) => n.startsWith('Rule:NP>'))).toEqual([
      'Rule:NP>DT NN*',
    ]);
  });
});

describe('word-context templates (Charniak & Johnson 2005)', () => {
  const ctx = treeFeatureCounts(tree, { context: true });
  const withPrefix = (prefix: string): Map<string, number> =>
    new Map([...ctx].filter(([k]) => k.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : 1)));

  it('are off unless asked for, as in models saved before them', () => {
    expect(byPrefix('Neighbours')).toEqual([]);
    expect([...ctx.keys()].filter((k) => !k.startsWith('RightBranch') && !counts.has(k)).length).toBeGreaterThan(0);
    for (const [k, v] of counts) expect(ctx.get(k), k).toBe(v);
  });

  it('RightBranch counts phrases on the rightmost non-punctuation path and off it', () => {
    // S > VP > PP > NP(a telescope) is the path ('.' skipped); NP(The man) and NP(the dog) are off it.
    expect(withPrefix('RightBranch')).toEqual(
      new Map([
        ['RightBranch:off', 2],
        ['RightBranch:on', 4],
      ]),
    );
  });

  it('Neighbours, Edges and EdgeWords see the tags and words around a phrase', () => {
    expect(ctx.get('Neighbours:PP 3-4 NN .')).toBe(1);
    expect(ctx.get('Neighbours:PP 3-4 DT NN .')).toBe(1);
    expect(ctx.get('Edges:PP 3-4 NN IN NN .')).toBe(1);
    expect(ctx.get('EdgeWords:PP L dog with')).toBe(1);
    expect(ctx.get('EdgeWords:PP R telescope .')).toBe(1);
    expect(ctx.get('Neighbours:S 9+ <s> </s>')).toBe(1);
    expect(ctx.get('EdgeWords:NP L <s> the')).toBe(1);
  });

  it('Word and WordProj climb from each word; NGramTree joins neighbouring words', () => {
    expect(ctx.get('Word:telescope NN NP PP')).toBe(1);
    expect(ctx.get('WordProj:saw VBD VP S')).toBe(1);
    expect(ctx.get('WordProj:the DT ')).toBe(2);
    expect(ctx.get('NGramTree:S [NP NN] [VP VBD]')).toBe(1);
    expect(ctx.get('NGramTree:VP [NP NN] [PP IN]')).toBe(1);
    expect(ctx.get('NGramTree:S [VP PP NP NN] [.]')).toBe(1);
    expect(withPrefix('NGramTree:').size).toBe(6);
  });
});

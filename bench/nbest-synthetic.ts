/**
 * SYNTHETIC n-best lists for benchmarks (not a parser's output): each gold tree is
 * perturbed 1-5 times (relabel a constituent, remove one and splice its children into the
 * parent, or group two adjacent siblings under a new node) to make its candidates; the gold
 * itself is among them with probability `goldRate`. L(x) falls with the number of
 * perturbations plus noise, so the "base model" is informative but imperfect. Deterministic
 * for a seed: a controlled problem of known oracle, independent of any parser's training.
 */
import type { NbestSentence } from '../lib/io/nbest.js';
import { removeEmptyElements, stripFunctionTags, stripRoot } from '../lib/trees/transforms.js';
import { cloneTree, formatTree, words, type Tree } from '../lib/trees/tree.js';

const LABELS = ['NP', 'VP', 'PP', 'S', 'SBAR', 'ADJP', 'ADVP', 'QP', 'WHNP', 'PRN'];

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/** Internal nodes other than the root, with their parents. */
function innerNodes(t: Tree): { node: Tree; parent: Tree; index: number }[] {
  const out: { node: Tree; parent: Tree; index: number }[] = [];
  const walk = (n: Tree): void => {
    n.children.forEach((c, index) => {
      if (c.word === undefined) {
        out.push({ node: c, parent: n, index });
        walk(c);
      }
    });
  };
  walk(t);
  return out;
}

function perturb(t: Tree, rand: () => number): void {
  const inner = innerNodes(t);
  const kind = rand();
  if (kind < 0.4 && inner.length > 0) {
    const { node } = inner[Math.floor(rand() * inner.length)];
    let label = node.label;
    while (label === node.label) label = LABELS[Math.floor(rand() * LABELS.length)];
    node.label = label;
  } else if (kind < 0.7 && inner.length > 0) {
    const { node, parent, index } = inner[Math.floor(rand() * inner.length)];
    parent.children.splice(index, 1, ...node.children);
  } else {
    const parents = [t, ...inner.map((x) => x.node)].filter((n) => n.children.length >= 3);
    if (parents.length === 0) return;
    const p = parents[Math.floor(rand() * parents.length)];
    const i = Math.floor(rand() * (p.children.length - 1));
    const group: Tree = { label: LABELS[Math.floor(rand() * LABELS.length)], children: p.children.slice(i, i + 2) };
    p.children.splice(i, 2, group);
  }
}

export function prepareGold(t: Tree): Tree | undefined {
  const clean = removeEmptyElements(t);
  return clean ? stripRoot(stripFunctionTags(clean)) : undefined;
}

export function syntheticNbest(
  golds: readonly Tree[],
  options: { candidates?: number; goldRate?: number; seed?: number } = {},
): NbestSentence[] {
  const n = options.candidates ?? 10;
  const goldRate = options.goldRate ?? 0.6;
  const rand = rng(options.seed ?? 1);
  const out: NbestSentence[] = [];
  golds.forEach((given, i) => {
    const gold = prepareGold(given);
    if (!gold || gold.word !== undefined) return;
    const goldText = formatTree(gold);
    const seen = new Set<string>();
    const candidates: NbestSentence['candidates'] = [];
    if (rand() < goldRate) {
      seen.add(goldText);
      candidates.push({ tree: goldText, logprob: -20 - 4 * rand() });
    }
    for (let attempt = 0; candidates.length < n && attempt < 4 * n; attempt++) {
      const t = cloneTree(gold);
      const k = 1 + Math.floor(rand() * 5);
      for (let j = 0; j < k; j++) perturb(t, rand);
      const text = formatTree(t);
      if (seen.has(text)) continue;
      seen.add(text);
      candidates.push({ tree: text, logprob: -20 - 0.6 * k - 4 * rand() });
    }
    candidates.sort((a, b) => b.logprob - a.logprob);
    out.push({ id: `s${i + 1}`, tokens: words(gold), candidates, gold: goldText, line: i + 1 });
  });
  return out;
}

/** Test fixture: n-best lists made by perturbing gold trees (seeded), written to a temp folder. */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { cloneTree, formatTree, words, type Tree } from '../../lib/trees/tree.js';
import { removeEmptyElements, stripRoot } from '../../lib/trees/transforms.js';

export function perturbedNbest(treebank: string, out: string, seed: number, limit: number): void {
  let s = seed;
  const rnd = (): number => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const labels = ['NP', 'VP', 'PP', 'S', 'ADJP', 'ADVP', 'SBAR'];
  const internal = (t: Tree, acc: Tree[] = [], parent?: Tree): Tree[] => {
    if (t.word === undefined) {
      if (parent) acc.push(t);
      for (const c of t.children) internal(c, acc, t);
    }
    return acc;
  };
  const perturb = (t: Tree): Tree => {
    const c = cloneTree(t);
    const nodes = internal(c);
    if (nodes.length === 0) return c;
    const n = nodes[Math.floor(rnd() * nodes.length)];
    if (rnd() < 0.5) n.label = labels[Math.floor(rnd() * labels.length)];
    else if (n.children.length > 2) {
      const k = 1 + Math.floor(rnd() * (n.children.length - 2));
      const moved = n.children.splice(k, 2);
      n.children.splice(k, 0, { label: labels[Math.floor(rnd() * labels.length)], children: moved });
    } else {
      const flat: Tree[] = [];
      for (const ch of n.children)
        if (ch.word === undefined) flat.push(...ch.children);
        else flat.push(ch);
      n.children = flat;
    }
    return c;
  };
  const lines = readFileSync(treebank, 'utf8').split('\n').filter(Boolean).slice(0, limit);
  const json = lines.map((l, i) => {
    const gold = stripRoot(removeEmptyElements(parseTree(l)) as Tree);
    const candidates = [];
    let cur = gold;
    const k = 3 + Math.floor(rnd() * 6);
    for (let j = 0; j < k; j++) {
      cur = j === 0 && rnd() < 0.5 ? gold : perturb(j < 3 ? gold : cur);
      candidates.push({ tree: formatTree(cur), logprob: -10 - 3 * rnd() - j * 0.3 });
    }
    return JSON.stringify({ id: `s${i}`, tokens: words(gold), gold: formatTree(gold), candidates });
  });
  writeFileSync(out, json.join('\n') + '\n');
}

/**
 * Deterministic "parser output" made from gold trees by random edits, for comparing our
 * EVALB with the original evalb.c on many realistic cases: flattened and added brackets,
 * unary duplicates, relabelings (incl. ADVP<->PRT, function tags, TOP), tag errors, moved
 * punctuation, dropped traces and wrappers, and rare word/length mismatches and empty lines.
 */
import { formatTree, type Tree } from '../lib/trees/tree.js';

/** mulberry32: small deterministic PRNG. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const RELABEL: Record<string, string[]> = {
  NP: ['VP', 'NP-SBJ', 'NX', 'NP=2'],
  VP: ['S', 'NP'],
  S: ['SBAR', 'S-TPC-1', 'SINV'],
  ADVP: ['PRT', 'ADJP'],
  PRT: ['ADVP'],
  PP: ['ADVP', 'SBAR'],
  SBAR: ['S', 'PP'],
  ADJP: ['ADVP', 'NP'],
};
const TAG_ERRORS: Record<string, string> = {
  NN: 'NNS',
  NNS: 'NN',
  NNP: 'NN',
  VBD: 'VBN',
  VBN: 'VBD',
  JJ: 'NN',
  IN: 'RP',
  RB: 'IN',
  DT: 'PDT',
};

export function perturb(gold: Tree, random: () => number): string {
  const r = random();
  if (r < 0.01) return '';
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
  const edit = (n: Tree): Tree[] => {
    if (n.word !== undefined) {
      if (n.label === '-NONE-' && random() < 0.7) return [];
      let label = n.label;
      let word = n.word;
      if (TAG_ERRORS[label] && random() < 0.05) label = TAG_ERRORS[label];
      if (label === ',' && random() < 0.003) label = 'NN'; // length mismatch
      if (random() < 0.001) word = word + 'x'; // word mismatch
      return [{ label, children: [], word }];
    }
    let children = n.children.flatMap(edit);
    if (children.length === 0) return [];
    // Group two adjacent children into a new bracket.
    if (children.length > 2 && random() < 0.15) {
      const i = Math.floor(random() * (children.length - 1));
      children = [
        ...children.slice(0, i),
        { label: pick(['NP', 'VP', 'X', 'S']), children: children.slice(i, i + 2) },
        ...children.slice(i + 2),
      ];
    }
    // Move the first child of a phrase into its left sibling phrase: crossing brackets.
    for (let i = 0; i + 1 < children.length; i++) {
      const a = children[i];
      const b = children[i + 1];
      if (a.word === undefined && b.word === undefined && b.children.length > 1 && random() < 0.08) {
        children = [
          ...children.slice(0, i),
          { label: a.label, children: [...a.children, b.children[0]] },
          { label: b.label, children: b.children.slice(1) },
          ...children.slice(i + 2),
        ];
      }
    }
    let label = n.label;
    if (RELABEL[label] && random() < 0.08) label = pick(RELABEL[label]);
    else if (label !== '' && random() < 0.01) label = 'TOP';
    let out: Tree = { label, children };
    if (random() < 0.05) out = { label: label === '' ? 'S' : label, children: [out] }; // unary duplicate
    // Flatten: hand the children to the parent.
    if (label !== '' && random() < 0.1) return children;
    return [out];
  };
  const edited = edit(gold);
  if (edited.length === 0) return '';
  let text = edited.map(formatTree).join(' ');
  if (gold.label === '' && edited.length === 1 && random() < 0.1)
    text = formatTree(edited[0].children.length === 1 && edited[0].label === '' ? edited[0].children[0] : edited[0]);
  return text;
}

/** One test line per gold tree; the last line is never blank (a trailing blank line would be dropped). */
export function perturbedLines(trees: Tree[], goldLines: string[], seed: number): string[] {
  const random = rng(seed);
  return trees.map((t, i) => {
    const p = perturb(t, random);
    return i === trees.length - 1 && p === '' ? goldLines[i] : p;
  });
}

/**
 * A CRF's bracket posteriors, as its MBR parse reports them (ParsedNbest.brackets), the key
 * that looks one up for a node of a parse tree, and a tree's expected bracket loss under them.
 */
import type { Tree } from '../trees/tree.js';

/** A bracket (phrase label over words [start, end)) and its expected count under the CRF's posteriors. */
export interface BracketPosterior {
  /** The phrase label, as the parse's trees write it. */
  label: string;
  /** The first word's index. */
  start: number;
  /** One past the last word's index. */
  end: number;
  /** The expected number of such brackets in the tree (a probability, unless a unary chain repeats the label). */
  posterior: number;
}

/** The key of a bracket: its label and span. */
export function bracketKey(label: string, start: number, end: number): string {
  return `${label} ${start} ${end}`;
}

/** The posteriors by bracketKey. */
export function posteriorsByKey(brackets: readonly BracketPosterior[]): Map<string, number> {
  const byKey = new Map<string, number>();
  for (const b of brackets) byKey.set(bracketKey(b.label, b.start, b.end), b.posterior);
  return byKey;
}

/** Each phrasal node's posterior (0 when the list has none), in pre-order. */
export function nodePosteriors(tree: Tree, posteriors: ReadonlyMap<string, number>): number[] {
  const out: number[] = [];
  const walk = (t: Tree, start: number): number => {
    if (t.word !== undefined) return start + 1;
    const at = out.length;
    out.push(0);
    let end = start;
    for (const c of t.children) end = walk(c, end);
    out[at] = posteriors.get(bracketKey(t.label, start, end)) ?? 0;
    return end;
  };
  walk(tree, 0);
  return out;
}

/**
 * A tree's expected missed plus invented brackets, less the sentence's expected bracket count
 * (the same for every tree of the sentence), from its nodes' posteriors: what MBR decoding
 * minimizes.
 */
export function expectedBracketLoss(nodes: readonly number[]): number {
  return nodes.reduce((sum, p) => sum + 1 - 2 * Math.min(1, p), 0);
}

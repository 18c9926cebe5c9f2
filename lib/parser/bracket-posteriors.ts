/**
 * A CRF's bracket posteriors, as its MBR parse reports them (ParsedNbest.brackets), and the
 * key that looks one up for a node of a parse tree.
 */

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

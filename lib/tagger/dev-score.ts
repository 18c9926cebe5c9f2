/**
 * Dev-set score for early stopping and progress lines: conlleval chunk F1 (in the gold's tag
 * scheme, lib/eval/spans.ts) when the labels look like chunk tags, token accuracy otherwise.
 */
import { conllevalCorpus } from '../eval/conlleval.js';
import { detectTagScheme, isChunkTag } from '../eval/spans.js';

export interface DevScore {
  name: 'F1' | 'acc';
  value: number;
}

/** True when every label is `O` or has a B-/I-/E-/S- prefix (with at least one such label). */
export function looksLikeChunkTags(labels: Iterable<string>): boolean {
  let any = false;
  for (const l of labels) {
    if (l === 'O') continue;
    if (!isChunkTag(l)) return false;
    any = true;
  }
  return any;
}

/** Chunk F1 (percent, conlleval) or token accuracy (percent) over sentences. */
export function scoreTags(gold: string[][], guess: string[][], chunked: boolean): DevScore {
  if (chunked) {
    const scheme = detectTagScheme(gold) ?? 'iob2';
    const report = conllevalCorpus(
      gold.map((g, s) => ({ gold: g, predicted: guess[s] })),
      { scheme },
    );
    return { name: 'F1', value: report.overall.f1 };
  }
  let tokens = 0;
  let right = 0;
  for (let s = 0; s < gold.length; s++) {
    for (let i = 0; i < gold[s].length; i++) {
      tokens++;
      if (gold[s][i] === guess[s][i]) right++;
    }
  }
  return { name: 'acc', value: tokens === 0 ? 0 : (100 * right) / tokens };
}

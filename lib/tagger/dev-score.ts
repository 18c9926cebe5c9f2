/**
 * Dev-set score for early stopping and progress lines: chunk F1 (conlleval semantics,
 * IOB1/IOB2) when the labels look like chunk tags, token accuracy otherwise.
 * Temporary local chunk counting until lib/eval/conlleval.ts lands on main.
 */
export interface DevScore {
  name: 'F1' | 'acc';
  value: number;
}

/** True when every label is `O` or has a B-/I- prefix (with at least one such prefix). */
export function looksLikeChunkTags(labels: Iterable<string>): boolean {
  let any = false;
  for (const l of labels) {
    if (l === 'O') continue;
    if (!/^[BI]-./.test(l)) return false;
    any = true;
  }
  return any;
}

function chunks(tags: string[]): Set<string> {
  const out = new Set<string>();
  let start = -1;
  let type = '';
  const close = (end: number): void => {
    if (start >= 0) out.add(`${start},${end},${type}`);
    start = -1;
  };
  for (let i = 0; i < tags.length; i++) {
    const t = tags[i];
    const prefix = t === 'O' ? 'O' : t.slice(0, 1);
    const ty = t === 'O' ? '' : t.slice(2);
    if (prefix === 'O') close(i);
    else if (prefix === 'B' || start < 0 || ty !== type) {
      close(i);
      start = i;
      type = ty;
    }
  }
  close(tags.length);
  return out;
}

/** Micro chunk F1 (percent) and token accuracy over sentences. */
export function scoreTags(gold: string[][], guess: string[][], chunked: boolean): DevScore {
  let correct = 0;
  let found = 0;
  let wanted = 0;
  let tokens = 0;
  let right = 0;
  for (let s = 0; s < gold.length; s++) {
    for (let i = 0; i < gold[s].length; i++) {
      tokens++;
      if (gold[s][i] === guess[s][i]) right++;
    }
    if (chunked) {
      const g = chunks(gold[s]);
      const p = chunks(guess[s]);
      wanted += g.size;
      found += p.size;
      for (const c of p) if (g.has(c)) correct++;
    }
  }
  if (!chunked) return { name: 'acc', value: tokens === 0 ? 0 : (100 * right) / tokens };
  const precision = found === 0 ? 0 : correct / found;
  const recall = wanted === 0 ? 0 : correct / wanted;
  return { name: 'F1', value: precision + recall === 0 ? 0 : (200 * precision * recall) / (precision + recall) };
}

import type { TokenRows } from '../../lib/tagger/tagger.js';

/** A tiny tagging problem with a rule the taggers must learn (and some noise, so they keep learning). */
export function taggingData(sentences: number, seed: number, noise = 20): TokenRows[] {
  let x = seed;
  const rand = (n: number): number => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return Math.floor(x / 65536) % n;
  };
  const words = ['the', 'a', 'dog', 'cat', 'runs', 'sees', 'big', 'red', 'on', 'mat', 'and', 'it'];
  const pos = ['DT', 'DT', 'NN', 'NN', 'VB', 'VB', 'JJ', 'JJ', 'IN', 'NN', 'CC', 'PR'];
  const out: TokenRows[] = [];
  for (let s = 0; s < sentences; s++) {
    const n = 3 + rand(6);
    const rows: string[][] = [];
    let prev = 'O';
    for (let i = 0; i < n; i++) {
      const w = rand(words.length);
      const p = pos[w];
      let chunk =
        p === 'DT' || p === 'JJ' || p === 'NN'
          ? prev === 'O' || p === 'DT'
            ? 'B-NP'
            : 'I-NP'
          : p === 'VB'
            ? 'B-VP'
            : 'O';
      if (rand(noise) === 0) chunk = 'O';
      rows.push([words[w], p, chunk]);
      prev = chunk;
    }
    out.push(rows);
  }
  return out;
}

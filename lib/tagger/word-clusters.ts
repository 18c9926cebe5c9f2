/**
 * Word clusters from plain text, for the taggers' `cluster` template atoms: the exchange
 * algorithm (Kneser & Ney 1993; Martin, Liermann & Ney 1998) for a class bigram model,
 * then the classes merged bottom-up (as Brown et al. 1992 merge words) into a binary tree,
 * so that every word gets a bit string whose prefixes are coarser clusters.
 *
 * Objective (log-likelihood of a class bigram model, up to constants):
 *   sum_{c,d} f(N(c,d)) - 2 sum_c f(N(c)),   f(x) = x log x,
 * over class bigram counts N(c,d) and class counts N(c). One exchange pass takes each word,
 * most frequent first, out of its class and puts it into the class that gains most; only
 * the classes next to the word's neighbours change, so a pass costs about
 * classes x (distinct neighbours of the word), not classes^2 per word.
 */

import { abortCheckpoint } from '../errors.js';
import { readLines } from '../io/lines.js';
import { CLUSTER_CLASSES } from '../options/clusters.js';
import type { WordClusters } from '../parser/clusters.js';

/** Words and their bit strings (a prefix is the cluster one level up the merge tree): the parser's cluster type. */
export type { WordClusters };

/** Where an exchange pass is: passes count from 1 (a pass may be the last before `passes`), words from 0. */
export interface ClusterProgress {
  pass: number;
  passes: number;
  word: number;
  words: number;
}

/** Words visited over all passes so far, and in all passes: a progress bar's done and total. */
export function clusterWork(p: ClusterProgress): { done: number; total: number } {
  return { done: (p.pass - 1) * p.words + p.word, total: p.passes * p.words };
}

/** "N words in C clusters": C counted from the result, since fewer words than classes make fewer clusters. */
export function describeClusters(c: WordClusters): string {
  return `${c.words.length} words in ${new Set(c.clusters).size} clusters`;
}

export interface ClusterOptions {
  /** Number of classes of the exchange step (default CLUSTER_CLASSES, 128). */
  classes?: number;
  /** Exchange passes over the vocabulary (default 6; stops early when no word moves). */
  passes?: number;
  /** Words seen fewer times are left out (default 1: every word). */
  minCount?: number;
  /** Stops the work (AbortError): it yields to the event loop every 100 ms, so a Ctrl-C handler runs. */
  signal?: AbortSignal;
  /** Called every 1,024 words of an exchange pass. */
  onProgress?: (p: ClusterProgress) => void;
}

const f = (x: number): number => (x > 0 ? x * Math.log(x) : 0);

/**
 * Clusters the words of `sentences` (arrays of tokens). Deterministic for a given input. A
 * large text takes minutes; the work yields to the event loop, so `signal` can stop it.
 */
export async function clusterWords(
  sentences: Iterable<readonly string[]>,
  options: ClusterOptions = {},
): Promise<WordClusters> {
  const checkpoint = abortCheckpoint(options.signal);
  const minCount = Math.max(1, options.minCount ?? 1);
  // Vocabulary, most frequent first (ties by string, for determinism).
  const counts = new Map<string, number>();
  const stream: string[][] = [];
  for (const s of sentences) {
    await checkpoint();
    stream.push([...s]);
    for (const w of s) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  const words = [...counts]
    .filter(([, c]) => c >= minCount)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([w]) => w);
  const V = words.length;
  if (V === 0) return { words: [], clusters: [] };
  const C = Math.max(2, Math.min(options.classes ?? CLUSTER_CLASSES, V));
  const id = new Map<string, number>();
  words.forEach((w, i) => id.set(w, i));
  // Word bigrams (sentence boundaries and left-out words break the chain), as adjacency lists.
  const pairKey = (a: number, b: number): number => a * V + b;
  const bigrams = new Map<number, number>();
  const unigram = new Float64Array(V);
  for (const s of stream) {
    await checkpoint();
    let prev = -1;
    for (const w of s) {
      const k = id.get(w);
      if (k === undefined) {
        prev = -1;
        continue;
      }
      unigram[k]++;
      if (prev >= 0) bigrams.set(pairKey(prev, k), (bigrams.get(pairKey(prev, k)) ?? 0) + 1);
      prev = k;
    }
  }
  const succ: Array<Array<[number, number]>> = Array.from({ length: V }, () => []);
  const pred: Array<Array<[number, number]>> = Array.from({ length: V }, () => []);
  for (const [key, n] of bigrams) {
    const a = Math.floor(key / V);
    const b = key - a * V;
    succ[a].push([b, n]);
    pred[b].push([a, n]);
  }
  // Initial classes: round robin by frequency.
  const cls = new Int32Array(V);
  for (let w = 0; w < V; w++) cls[w] = w % C;
  const N = new Float64Array(C * C);
  const Nc = new Float64Array(C);
  for (let w = 0; w < V; w++) {
    Nc[cls[w]] += unigram[w];
    for (const [v, n] of succ[w]) N[cls[w] * C + cls[v]] += n;
  }
  const R = new Float64Array(C);
  const L = new Float64Array(C);
  const touched: number[] = [];
  const passes = options.passes ?? 6;
  for (let pass = 0; pass < passes; pass++) {
    let moved = 0;
    for (let w = 0; w < V; w++) {
      await checkpoint();
      if ((w & 1023) === 0) options.onProgress?.({ pass: pass + 1, passes, word: w, words: V });
      // Class counts of w's neighbours (w itself apart).
      touched.length = 0;
      let self = 0;
      for (const [v, n] of succ[w]) {
        if (v === w) self += n;
        else {
          if (R[cls[v]] === 0 && L[cls[v]] === 0) touched.push(cls[v]);
          R[cls[v]] += n;
        }
      }
      for (const [v, n] of pred[w]) {
        if (v === w) continue;
        if (R[cls[v]] === 0 && L[cls[v]] === 0) touched.push(cls[v]);
        L[cls[v]] += n;
      }
      const move = (k: number, sign: number): void => {
        for (const c of touched) {
          if (c === k) continue;
          N[k * C + c] += sign * R[c];
          N[c * C + k] += sign * L[c];
        }
        N[k * C + k] += sign * (R[k] + L[k] + self);
        Nc[k] += sign * unigram[w];
      };
      const from = cls[w];
      move(from, -1);
      let best = from;
      let bestGain = -Infinity;
      for (let k = 0; k < C; k++) {
        let gain = 0;
        for (const c of touched) {
          if (c === k) continue;
          gain += f(N[k * C + c] + R[c]) - f(N[k * C + c]) + f(N[c * C + k] + L[c]) - f(N[c * C + k]);
        }
        const kk = N[k * C + k];
        gain += f(kk + R[k] + L[k] + self) - f(kk);
        gain -= 2 * (f(Nc[k] + unigram[w]) - f(Nc[k]));
        if (gain > bestGain + 1e-9 || (k === from && gain >= bestGain - 1e-9)) {
          bestGain = gain;
          best = k;
        }
      }
      move(best, 1);
      if (best !== from) moved++;
      cls[w] = best;
      for (const c of touched) {
        R[c] = 0;
        L[c] = 0;
      }
    }
    if (moved === 0) break;
  }
  const bits = await mergeTree(N, Nc, C, checkpoint);
  return { words, clusters: words.map((_, w) => bits[cls[w]]) };
}

/**
 * Merges the C classes pairwise, always the pair that loses least likelihood, into a binary
 * tree; returns each class's path from the root ('0' left, '1' right).
 */
async function mergeTree(
  N0: Float64Array,
  Nc0: Float64Array,
  C: number,
  checkpoint: () => Promise<void>,
): Promise<string[]> {
  const N = Float64Array.from(N0);
  const Nc = Float64Array.from(Nc0);
  const alive: number[] = Array.from({ length: C }, (_, i) => i);
  // members[k]: classes under node k with their path so far (built from the leaves up, reversed).
  const paths: string[] = new Array(C).fill('');
  const members: number[][] = Array.from({ length: C }, (_, i) => [i]);
  const loss = (a: number, b: number): number => {
    // Objective change when b is merged into a.
    let before = 0;
    let after = 0;
    for (const c of alive) {
      if (c === a || c === b) continue;
      before += f(N[a * C + c]) + f(N[b * C + c]) + f(N[c * C + a]) + f(N[c * C + b]);
      after += f(N[a * C + c] + N[b * C + c]) + f(N[c * C + a] + N[c * C + b]);
    }
    before += f(N[a * C + a]) + f(N[a * C + b]) + f(N[b * C + a]) + f(N[b * C + b]);
    after += f(N[a * C + a] + N[a * C + b] + N[b * C + a] + N[b * C + b]);
    before -= 2 * (f(Nc[a]) + f(Nc[b]));
    after -= 2 * f(Nc[a] + Nc[b]);
    return before - after;
  };
  while (alive.length > 1) {
    await checkpoint();
    let ba = -1;
    let bb = -1;
    let bl = Infinity;
    for (let i = 0; i < alive.length; i++) {
      for (let j = i + 1; j < alive.length; j++) {
        const l = loss(alive[i], alive[j]);
        if (l < bl) {
          bl = l;
          ba = alive[i];
          bb = alive[j];
        }
      }
    }
    for (const m of members[ba]) paths[m] = '0' + paths[m];
    for (const m of members[bb]) paths[m] = '1' + paths[m];
    members[ba] = members[ba].concat(members[bb]);
    for (const c of alive) {
      if (c === ba || c === bb) continue;
      N[ba * C + c] += N[bb * C + c];
      N[c * C + ba] += N[c * C + bb];
    }
    N[ba * C + ba] += N[ba * C + bb] + N[bb * C + ba] + N[bb * C + bb];
    Nc[ba] += Nc[bb];
    alive.splice(alive.indexOf(bb), 1);
  }
  return paths.map((p) => (p === '' ? '0' : p));
}

/**
 * The clusters a trainer computes (`--cluster-text`): of the training sentences' words and the
 * plain text of `textFile`, one sentence per line, tokens split on white space ('train': the
 * training words alone). `lowercase` clusters the words lowercased: the chart parser looks a
 * word up as written, then lowercased, so "The" and "the" share their counts.
 */
export async function clustersFromText(
  training: Iterable<readonly string[]>,
  textFile: string,
  options: ClusterOptions & { lowercase?: boolean } = {},
): Promise<WordClusters> {
  const form = options.lowercase ? (w: string) => w.toLowerCase() : (w: string) => w;
  const sentences: string[][] = [];
  for (const s of training) sentences.push(s.map(form));
  if (textFile !== 'train')
    for await (const line of readLines(textFile)) {
      const tokens = line.text.split(/\s+/).filter((t) => t !== '');
      if (tokens.length > 0) sentences.push(tokens.map(form));
    }
  return clusterWords(sentences, options);
}

/** The `word<TAB>cluster` lines the taggers read (readClusters in templates.ts). */
export function formatClusters(c: WordClusters): string {
  return c.words.map((w, i) => `${w}\t${c.clusters[i]}`).join('\n');
}

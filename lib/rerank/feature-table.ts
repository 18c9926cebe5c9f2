/**
 * Feature tables for reranking: a dictionary of readable feature names (id = index) and a
 * CSR of feature ids per candidate, with L(x) and Score(x). Training tables apply the
 * count cutoff (a feature must appear on a candidate of at least `cutoff` different
 * sentences); dev/test tables map names through an existing dictionary and drop unknowns.
 * Saved in the model-file container (kind 'rerank-features': SHA-256 checked, atomic write).
 */
import { abortCheckpoint, InputError } from '../errors.js';
import { loadModel, saveModel } from '../io/model-file.js';
import { fromLittleEndianBytes, littleEndianBytes } from '../io/byte-order.js';
import { isTreeSettings, type TreeSettings } from './tree-settings.js';

export interface CandidateFeatureNames {
  names: readonly string[];
  logprob: number;
  /** Score(x) against gold; NaN when unknown. */
  score: number;
}

export interface SentenceFeatureNames {
  id: string;
  candidates: CandidateFeatureNames[];
}

export interface FeatureTable {
  /** Feature id -> readable name. */
  names: string[];
  ids: string[];
  sentencePtr: Float64Array;
  rowPtr: Float64Array;
  cols: Int32Array;
  logprob: Float64Array;
  /** NaN where no gold was given. */
  score: Float64Array;
  cutoff: number;
  /**
   * The head rules and word classes the tree features were extracted with (learned from the
   * gold trees); absent: the `collins` table and the PTB's classes, without the word-context
   * templates. A reranker trained on the table keeps them for the lists it reranks.
   */
  settings?: TreeSettings;
}

/**
 * The count cutoff, the one rule every reranker dictionary is built by: the features seen on a
 * candidate of >= cutoff distinct sentences, in order of first appearance. `visit(i, see)`
 * calls `see` with every feature of every candidate of sentence i.
 */
export function featuresOverCutoff<K>(
  sentences: number,
  visit: (i: number, see: (feature: K) => void) => void,
  cutoff: number,
): K[] {
  const seen = new Map<K, { sentences: number; last: number }>();
  for (let i = 0; i < sentences; i++) {
    visit(i, (feature) => {
      const e = seen.get(feature);
      if (e === undefined) seen.set(feature, { sentences: 1, last: i });
      else if (e.last !== i) {
        e.sentences++;
        e.last = i;
      }
    });
  }
  const out: K[] = [];
  for (const [feature, e] of seen) if (e.sentences >= cutoff) out.push(feature);
  return out;
}

/** Names seen on a candidate of >= cutoff distinct sentences, in order of first appearance. */
export function selectFeatures(sentences: readonly SentenceFeatureNames[], cutoff: number): string[] {
  return featuresOverCutoff<string>(
    sentences.length,
    (i, see) => {
      for (const c of sentences[i].candidates) for (const name of c.names) see(name);
    },
    cutoff,
  );
}

/** Interned feature ids per candidate (as lib/rerank/candidate-feature-ids.ts gives them). */
export interface FeatureIdRows {
  sentencePtr: ArrayLike<number>;
  rowPtr: ArrayLike<number>;
  cols: Int32Array;
}

/**
 * selectFeatures over interned ids: the ids seen on candidates of >= cutoff distinct sentences,
 * in order of first appearance. Ids are dense, so the counts live in a typed array indexed by
 * id (a Map over every occurrence took seconds per list set). Training lists hold tens of
 * millions of occurrences: the loop yields to the event loop, so `signal` can stop it.
 */
export async function selectFeatureIds(f: FeatureIdRows, cutoff: number, signal?: AbortSignal): Promise<number[]> {
  const checkpoint = abortCheckpoint(signal);
  let size = 0;
  for (const id of f.cols) if (id >= size) size = id + 1;
  // Per id, side by side: the last sentence it was seen in + 1, and in how many sentences.
  const seen = new Int32Array(2 * size);
  const firstSeen: number[] = [];
  for (let i = 0; i + 1 < f.sentencePtr.length; i++) {
    await checkpoint();
    for (let k = f.rowPtr[f.sentencePtr[i]]; k < f.rowPtr[f.sentencePtr[i + 1]]; k++) {
      const at = 2 * f.cols[k];
      if (seen[at] === i + 1) continue;
      if (seen[at] === 0) firstSeen.push(f.cols[k]);
      seen[at] = i + 1;
      seen[at + 1]++;
    }
  }
  return firstSeen.filter((id) => seen[2 * id + 1] >= cutoff);
}

/**
 * buildFeatureTable over interned ids: the table of `f` over the dictionary `selected` (ids,
 * named `names`; other ids are dropped). The ids of a candidate must be distinct. Yields to
 * the event loop as selectFeatureIds does.
 */
export async function buildIdFeatureTable(
  f: FeatureIdRows & { ids: string[]; logprob: Float64Array; score: Float64Array },
  selected: readonly number[],
  names: string[],
  signal?: AbortSignal,
): Promise<FeatureTable> {
  const checkpoint = abortCheckpoint(signal);
  let size = 0;
  for (const id of selected) size = Math.max(size, id + 1);
  const position = new Int32Array(size).fill(-1);
  selected.forEach((id, at) => (position[id] = at));
  const rowPtr = new Float64Array(f.rowPtr.length);
  const cols = new Int32Array(f.cols.length);
  let n = 0;
  for (let c = 0; c + 1 < f.rowPtr.length; c++) {
    if ((c & 255) === 0) await checkpoint();
    const start = n;
    for (let k = f.rowPtr[c]; k < f.rowPtr[c + 1]; k++) {
      const at = f.cols[k] < position.length ? position[f.cols[k]] : -1;
      if (at >= 0) cols[n++] = at;
    }
    cols.subarray(start, n).sort();
    rowPtr[c + 1] = n;
  }
  return {
    names,
    ids: f.ids,
    sentencePtr: Float64Array.from(f.sentencePtr),
    rowPtr,
    cols: cols.slice(0, n),
    logprob: f.logprob,
    score: f.score,
    cutoff: 0,
  };
}

/** Builds a table over `dictionary` (feature names absent from it are dropped). */
export function buildFeatureTable(
  sentences: readonly SentenceFeatureNames[],
  dictionary: readonly string[],
  cutoff = 0,
): FeatureTable {
  const index = new Map<string, number>();
  dictionary.forEach((n, i) => index.set(n, i));
  let candidates = 0;
  for (const s of sentences) candidates += s.candidates.length;
  const sentencePtr = new Float64Array(sentences.length + 1);
  const rowPtr = new Float64Array(candidates + 1);
  const logprob = new Float64Array(candidates);
  const score = new Float64Array(candidates);
  const cols: number[] = [];
  let c = 0;
  sentences.forEach((s, i) => {
    for (const cand of s.candidates) {
      const row = new Set<number>();
      for (const name of cand.names) {
        const id = index.get(name);
        if (id !== undefined) row.add(id);
      }
      const sorted = [...row].sort((a, b) => a - b);
      for (const id of sorted) cols.push(id);
      logprob[c] = cand.logprob;
      score[c] = cand.score;
      c++;
      rowPtr[c] = cols.length;
    }
    sentencePtr[i + 1] = c;
  });
  return {
    names: [...dictionary],
    ids: sentences.map((s) => s.id),
    sentencePtr,
    rowPtr,
    cols: Int32Array.from(cols),
    logprob,
    score,
    cutoff,
  };
}

/** Feature names per candidate again (e.g. to map a table onto another dictionary). */
export function tableToNames(t: FeatureTable): SentenceFeatureNames[] {
  const out: SentenceFeatureNames[] = [];
  for (let i = 0; i < t.ids.length; i++) {
    const candidates = [];
    for (let c = t.sentencePtr[i]; c < t.sentencePtr[i + 1]; c++) {
      const names: string[] = [];
      for (let q = t.rowPtr[c]; q < t.rowPtr[c + 1]; q++) names.push(t.names[t.cols[q]]);
      candidates.push({ names, logprob: t.logprob[c], score: t.score[c] });
    }
    out.push({ id: t.ids[i], candidates });
  }
  return out;
}

/** Whether every candidate has a score (gold was given for every sentence). */
export function hasScores(table: FeatureTable): boolean {
  return table.score.every((v) => !Number.isNaN(v));
}

const KIND = 'rerank-features';

export function encodeFeatureTable(t: FeatureTable): { meta: object; payload: Uint8Array } {
  const names = Buffer.from(t.names.join('\n'), 'utf8');
  const parts: Buffer[] = [];
  const u64 = (n: number): Buffer => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return b;
  };
  const arr = (a: Float64Array | Int32Array): void => {
    parts.push(u64(a.length), littleEndianBytes(a));
  };
  parts.push(u64(names.length), names);
  arr(t.sentencePtr);
  arr(t.rowPtr);
  arr(t.cols);
  arr(t.logprob);
  arr(t.score);
  return {
    meta: {
      cutoff: t.cutoff,
      sentences: t.ids.length,
      candidates: t.logprob.length,
      features: t.names.length,
      ids: t.ids,
      ...(t.settings ? { treeSettings: t.settings } : {}),
    },
    payload: Buffer.concat(parts),
  };
}

/** A saved table's meta (its settings are checked on decoding). */
interface FeatureTableMeta {
  cutoff: number;
  ids: string[];
  features: number;
  treeSettings?: unknown;
}

export function decodeFeatureTable(meta: FeatureTableMeta, payload: Uint8Array, file = '<buffer>'): FeatureTable {
  const buf = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  let pos = 0;
  const bad = (): never => {
    throw new InputError(file, undefined, 'feature table payload is truncated or inconsistent');
  };
  const u64 = (): number => {
    if (pos + 8 > buf.length) bad();
    const n = Number(buf.readBigUInt64LE(pos));
    pos += 8;
    return n;
  };
  const f64 = (): Float64Array => {
    const n = u64();
    if (pos + 8 * n > buf.length) bad();
    const out = fromLittleEndianBytes(Float64Array, buf.subarray(pos, pos + 8 * n));
    pos += 8 * n;
    return out;
  };
  const i32 = (): Int32Array => {
    const n = u64();
    if (pos + 4 * n > buf.length) bad();
    const out = fromLittleEndianBytes(Int32Array, buf.subarray(pos, pos + 4 * n));
    pos += 4 * n;
    return out;
  };
  const nameBytes = u64();
  if (pos + nameBytes > buf.length) bad();
  const text = buf.subarray(pos, pos + nameBytes).toString('utf8');
  pos += nameBytes;
  const names = text === '' ? [] : text.split('\n');
  const t: FeatureTable = {
    names,
    ids: meta.ids,
    sentencePtr: f64(),
    rowPtr: f64(),
    cols: i32(),
    logprob: f64(),
    score: f64(),
    cutoff: meta.cutoff,
  };
  if (meta.treeSettings !== undefined) {
    if (!isTreeSettings(meta.treeSettings))
      throw new InputError(file, undefined, 'feature table tree settings are malformed');
    t.settings = meta.treeSettings;
  }
  if (pos !== buf.length || names.length !== meta.features) bad();
  const candidates = t.logprob.length;
  if (
    t.sentencePtr.length !== t.ids.length + 1 ||
    t.sentencePtr[t.ids.length] !== candidates ||
    t.rowPtr.length !== candidates + 1 ||
    t.rowPtr[candidates] !== t.cols.length ||
    t.score.length !== candidates
  )
    bad();
  for (const k of t.cols) if (k < 0 || k >= names.length) bad();
  return t;
}

export function saveFeatureTable(file: string, t: FeatureTable): void {
  const { meta, payload } = encodeFeatureTable(t);
  saveModel(file, { kind: KIND, kindVersion: 1, meta, payload });
}

export function loadFeatureTable(file: string): FeatureTable {
  const m = loadModel<FeatureTableMeta>(file, KIND);
  if (m.kindVersion > 1)
    throw new InputError(file, undefined, `feature table version ${m.kindVersion} is newer than supported (1)`);
  const meta: unknown = m.meta;
  if (typeof meta !== 'object' || meta === null || !Array.isArray(m.meta.ids))
    throw new InputError(file, undefined, 'feature table metadata is malformed');
  return decodeFeatureTable(m.meta, m.payload, file);
}

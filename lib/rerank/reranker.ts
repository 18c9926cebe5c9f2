/**
 * A trained linear reranker F(x) = a0 L(x) + sum_k w_k h_k(x) over named features, as
 * saved by `structrank train-reranker` (model kind 'reranker'): the method, a0, the names
 * and weights of the features with non-zero weight, and for boosting / LogLoss selection
 * every round (over the same compact feature ids) so prefixes stay available.
 * Payload (little-endian): u64 n | n float64 weights | boosting model bytes (optional).
 */
import { ModelFileError, inModelFile } from '../errors.js';
import { loadModel, loadModelAsync, saveModel, type ModelFile } from '../io/model-file.js';
import { fromLittleEndianBytes, littleEndianBytes } from '../io/byte-order.js';
import { decodeBoostModel, encodeBoostModel, type BoostModelData } from './boost.js';
import { isTreeSettings, type TreeSettings } from './tree-settings.js';

export interface RerankerModel {
  /** 'boost', 'logloss', 'loglinear', ... (the train-reranker method). */
  method: string;
  a0: number;
  names: string[];
  weights: Float64Array;
  /** Rounds of boosting / LogLoss selection over the compact ids of `names`. */
  rounds?: BoostModelData;
  /** Free-form training facts (eps, N, dev score, Work, Savings, cutoff, ...). */
  info: Record<string, number | string | boolean>;
  /** Head rules and word classes of the parse-tree features (absent: Collins heads, PTB classes). */
  treeSettings?: TreeSettings;
}

const KIND = 'reranker';

/** Keeps features with a non-zero weight; renumbers rounds to the compact ids. */
export function compactReranker(
  method: string,
  a0: number,
  dictionary: readonly string[],
  dense: Float64Array,
  rounds: BoostModelData | undefined,
  info: RerankerModel['info'],
): RerankerModel {
  const keep = new Map<number, number>();
  const names: string[] = [];
  const weights: number[] = [];
  const use = (k: number): void => {
    if (!keep.has(k)) {
      keep.set(k, names.length);
      names.push(dictionary[k]);
      weights.push(dense[k]);
    }
  };
  if (rounds) for (const k of rounds.features) use(k);
  dense.forEach((w, k) => {
    if (w !== 0) use(k);
  });
  let compactRounds: BoostModelData | undefined;
  if (rounds) {
    compactRounds = {
      ...rounds,
      numFeatures: names.length,
      features: rounds.features.map((k) => keep.get(k) as number),
    };
  }
  return { method, a0, names, weights: Float64Array.from(weights), rounds: compactRounds, info };
}

export function saveReranker(file: string, m: RerankerModel): void {
  const head = Buffer.alloc(8);
  head.writeBigUInt64LE(BigInt(m.weights.length));
  const w = littleEndianBytes(m.weights);
  const rounds = m.rounds ? Buffer.from(encodeBoostModel(m.rounds)) : Buffer.alloc(0);
  saveModel(file, {
    kind: KIND,
    kindVersion: 1,
    meta: {
      method: m.method,
      a0: m.a0,
      names: m.names,
      info: m.info,
      ...(m.treeSettings ? { treeSettings: m.treeSettings } : {}),
    },
    payload: Buffer.concat([head, w, rounds]),
  });
}

type RerankerMeta = {
  method: string;
  a0: number;
  names: string[];
  info: RerankerModel['info'];
  treeSettings?: TreeSettings;
};

/** Reads a reranker model file; another kind of model is a ModelKindError. */
export function loadReranker(file: string): RerankerModel {
  return rerankerFromFile(file, loadModel<RerankerMeta>(file, KIND));
}

/** loadReranker without blocking the event loop while the file is read. */
export async function loadRerankerAsync(file: string): Promise<RerankerModel> {
  return rerankerFromFile(file, await loadModelAsync<RerankerMeta>(file, KIND));
}

function rerankerFromFile(file: string, f: ModelFile<RerankerMeta>): RerankerModel {
  const p = Buffer.from(f.payload.buffer, f.payload.byteOffset, f.payload.byteLength);
  const bad = (why: string): never => {
    throw new ModelFileError(file, `reranker model: ${why}`);
  };
  if (f.kindVersion > 1) bad(`version ${f.kindVersion} is newer than supported (1)`);
  const meta: unknown = f.meta;
  if (
    typeof meta !== 'object' ||
    meta === null ||
    typeof f.meta.method !== 'string' ||
    typeof f.meta.a0 !== 'number' ||
    !Array.isArray(f.meta.names)
  ) {
    bad('metadata is malformed');
  }
  if (p.length < 8) bad('payload is truncated');
  const n = Number(p.readBigUInt64LE(0));
  if (n !== f.meta.names.length || p.length < 8 + 8 * n) bad('weights do not match the feature names');
  const weights = fromLittleEndianBytes(Float64Array, p.subarray(8, 8 + 8 * n));
  let rounds: BoostModelData | undefined;
  if (p.length > 8 + 8 * n) {
    try {
      rounds = decodeBoostModel(new Uint8Array(p.subarray(8 + 8 * n)));
    } catch (err) {
      throw inModelFile(err, file);
    }
    if (rounds && rounds.numFeatures !== n) bad('rounds do not match the feature names');
  }
  const treeSettings = f.meta.treeSettings;
  if (treeSettings !== undefined && !isTreeSettings(treeSettings)) bad('tree settings are malformed');
  return {
    method: f.meta.method,
    a0: f.meta.a0,
    names: f.meta.names,
    weights,
    rounds,
    info: f.meta.info,
    ...(treeSettings ? { treeSettings } : {}),
  };
}

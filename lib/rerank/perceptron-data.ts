/**
 * Turns n-best sentences into what the native perceptron reads: candidates grouped by
 * sentence, log-probabilities, Score against gold (training), and the kernel's structures
 * (feature rows, trees in pre-order, or tag sequences).
 */
import { InputError } from '../errors.js';
import type { NbestSentence } from '../io/nbest.js';
import { SymbolTable } from '../kernels/symbols.js';
import { parseTree } from '../trees/bracket-parser.js';
import type { Tree } from '../trees/tree.js';
import { FeatureDictionary, FeatureRowBuilder, tagFeatures, treeFeatures } from './perceptron-features.js';
import type { NativeCandidateSpec, NativePreorderTrees, NativeTaggedSequences } from './perceptron-native.js';
import { oracleIndex } from './candidate-order.js';
import {
  listTagScoring,
  scoreFunction,
  tagCounts,
  tagScoring as detectTagScoring,
  treeCounts,
  type ScoreKind,
  type TaskScoring,
} from '../eval/score.js';

/** How tag candidates are scored: a chunk scheme or `accuracy` (lib/eval/score.ts). */
export type TagScoring = Exclude<TaskScoring, 'trees'>;

export type PerceptronKernel = 'tree' | 'tags' | 'linear';

/** Kernel settings shared by training and scoring. */
export interface KernelSettings {
  kernel: PerceptronKernel;
  /** Tree / tagging kernel decay. */
  lambda: number;
  /** Tagging kernel: weights of Sim1 (same word) and Sim2 (same word class). */
  sim1: number;
  sim2: number;
  wordFeature: string;
  /** Tagging kernel: K(a, b) / sqrt(K(a, a) K(b, b)) (absent in models saved before it existed). */
  normalize?: boolean;
  /** Linear kernel: use the file's `features` ('file') or the built-in extractor ('builtin'). */
  featureSource?: 'file' | 'builtin';
}

/** Removes an unlabeled outer wrapper `( (S ...))` -> `(S ...)`, as the tree kernels do. */
export function unwrapTree(t: Tree): Tree {
  return t.label === '' && t.word === undefined && t.children.length === 1 ? t.children[0] : t;
}

export function candidateTree(s: NbestSentence, j: number, file: string): Tree {
  const text = s.candidates[j].tree;
  if (text === undefined) throw new InputError(file, s.line, `sentence ${s.id}: candidate ${j} has no tree`);
  return parseTree(text, file, s.line);
}

export function candidateTags(s: NbestSentence, j: number, file: string): string[] {
  const tags = s.candidates[j].tags;
  if (tags === undefined) throw new InputError(file, s.line, `sentence ${s.id}: candidate ${j} has no tags`);
  return tags;
}

/** What the n-best sentences are: parse trees or tag sequences. */
export function taskOf(sentences: readonly NbestSentence[]): 'trees' | 'tags' {
  return sentences.length > 0 && sentences[0].candidates[0]?.tags !== undefined ? 'tags' : 'trees';
}

export function encodeTrees(trees: readonly Tree[], lambda: number): NativePreorderTrees {
  const symbols = new SymbolTable();
  const label: number[] = [];
  const word: number[] = [];
  const arity: number[] = [];
  const sizes = new Int32Array(trees.length);
  trees.forEach((given, index) => {
    const before = label.length;
    const stack: Tree[] = [unwrapTree(given)];
    while (stack.length > 0) {
      const n = stack.pop() as Tree;
      label.push(symbols.id(n.label));
      if (n.word !== undefined) {
        word.push(symbols.id(n.word));
        arity.push(0);
      } else {
        word.push(-1);
        arity.push(n.children.length);
        for (let c = n.children.length - 1; c >= 0; c--) stack.push(n.children[c]);
      }
    }
    sizes[index] = label.length - before;
  });
  return {
    symbols: symbols.names,
    label: Int32Array.from(label),
    word: Int32Array.from(word),
    arity: Int32Array.from(arity),
    sizes,
    lambda,
  };
}

function encodeTags(
  seqs: readonly { tokens: readonly string[]; tags: readonly string[] }[],
  k: KernelSettings,
): NativeTaggedSequences {
  const symbols = new SymbolTable();
  const label: number[] = [];
  const word: number[] = [];
  const lengths = new Int32Array(seqs.length);
  seqs.forEach((s, i) => {
    for (let t = 0; t < s.tags.length; t++) {
      label.push(symbols.id(s.tags[t]));
      word.push(symbols.id(s.tokens[t] ?? ''));
    }
    lengths[i] = s.tags.length;
  });
  return {
    symbols: symbols.names,
    label: Int32Array.from(label),
    word: Int32Array.from(word),
    lengths,
    lambda: k.lambda,
    sim1: k.sim1,
    sim2: k.sim2,
    wordFeature: k.wordFeature,
    normalize: k.normalize ?? false,
  };
}

export interface BuildOptions {
  file: string;
  /** Compute Score from gold (training, dev evaluation). */
  withScores: boolean;
  /** Linear kernel: the dictionary to intern feature names into (frozen for queries). */
  dictionary?: FeatureDictionary;
  /** How tag sequences are scored; detected from the gold tags when omitted. */
  tagScoring?: TagScoring;
  /** Which per-sentence Score (default `errors`). */
  score?: ScoreKind;
}

export interface BuiltCandidates {
  spec: NativeCandidateSpec;
  tagScoring: TagScoring | undefined;
  /** Oracle: the index of the best candidate per sentence (when scored). */
  oracle?: Int32Array;
}

/** Score of every candidate of a sentence against its gold. */
export function sentenceScores(
  s: NbestSentence,
  file: string,
  tagScoring: TagScoring | undefined,
  kind: ScoreKind = 'errors',
): number[] {
  if (s.gold === undefined) throw new InputError(file, s.line, `sentence ${s.id} has no gold (needed to train)`);
  const score = scoreFunction(kind);
  if (typeof s.gold === 'string') {
    const gold = parseTree(s.gold, file, s.line);
    return s.candidates.map((_, j) => score(treeCounts(gold, candidateTree(s, j, file))));
  }
  const gold = s.gold;
  const scoring = tagScoring ?? detectTagScoring([gold]);
  return s.candidates.map((_, j) => score(tagCounts(gold, candidateTags(s, j, file), scoring)));
}

export function buildCandidates(
  sentences: readonly NbestSentence[],
  k: KernelSettings,
  options: BuildOptions,
): BuiltCandidates {
  const { file } = options;
  const task = taskOf(sentences);
  if (k.kernel === 'tree' && task !== 'trees')
    throw new InputError(file, undefined, 'the tree kernel needs tree candidates');
  if (k.kernel === 'tags' && task !== 'tags')
    throw new InputError(file, undefined, 'the tagging kernel needs tag candidates');
  let tagScoring = options.tagScoring;
  if (task === 'tags' && tagScoring === undefined && options.withScores) {
    tagScoring = listTagScoring(sentences);
  }
  const sentencePtr = new Float64Array(sentences.length + 1);
  let total = 0;
  sentences.forEach((s, i) => {
    total += s.candidates.length;
    sentencePtr[i + 1] = total;
  });
  const logprobs = new Float64Array(total);
  const scores = options.withScores ? new Float64Array(total) : undefined;
  const oracle = options.withScores ? new Int32Array(sentences.length) : undefined;
  let at = 0;
  sentences.forEach((s, i) => {
    const sc = options.withScores ? sentenceScores(s, file, tagScoring, options.score) : undefined;
    s.candidates.forEach((c, j) => {
      logprobs[at + j] = c.logprob;
      if (sc && scores) scores[at + j] = sc[j];
    });
    if (oracle && sc)
      oracle[i] = oracleIndex(
        sc,
        s.candidates.map((c) => c.logprob),
      );
    at += s.candidates.length;
  });
  const spec: NativeCandidateSpec = { kernel: k.kernel, sentencePtr, logprobs, scores };
  if (k.kernel === 'linear') {
    const dictionary = options.dictionary ?? new FeatureDictionary();
    const rows = new FeatureRowBuilder(dictionary);
    const source = k.featureSource ?? 'builtin';
    for (const s of sentences) {
      s.candidates.forEach((c, j) => {
        if (source === 'file') {
          if (c.features === undefined)
            throw new InputError(file, s.line, `sentence ${s.id}: candidate ${j} has no features`);
          rows.add(c.features);
        } else if (task === 'trees') rows.add(treeFeatures(candidateTree(s, j, file)));
        else rows.add(tagFeatures(s.tokens, candidateTags(s, j, file)));
      });
    }
    spec.features = rows.build();
  } else if (k.kernel === 'tree') {
    const trees: Tree[] = [];
    for (const s of sentences) s.candidates.forEach((_, j) => trees.push(candidateTree(s, j, file)));
    spec.trees = encodeTrees(trees, k.lambda);
  } else {
    const seqs: { tokens: readonly string[]; tags: readonly string[] }[] = [];
    for (const s of sentences)
      s.candidates.forEach((_, j) => seqs.push({ tokens: s.tokens, tags: candidateTags(s, j, file) }));
    spec.tags = encodeTags(seqs, k);
  }
  return { spec, tagScoring, oracle };
}

/** True when every candidate of every sentence carries `features`. */
export function allHaveFeatures(sentences: readonly NbestSentence[]): boolean {
  return sentences.length > 0 && sentences.every((s) => s.candidates.every((c) => c.features !== undefined));
}

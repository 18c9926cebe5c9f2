/**
 * EVALB (Sekine & Collins 1997) in TypeScript, number for number, with COLLINS.prm as the
 * default parameters. What it computes, per sentence (the gold and test lines of EVALB):
 *
 * 1. Terminals: every preterminal whose tag is a DELETE_LABEL (exact tag: TOP, -NONE-,
 *    `,` `:` ``` `` ``` `''` `.`) is removed with its word BEFORE positions are assigned,
 *    so spans shift over deleted punctuation and traces. Sentence length (for the cutoff)
 *    counts the gold preterminals whose tag is not a DELETE_LABEL_FOR_LENGTH (-NONE-):
 *    punctuation counts.
 * 2. Brackets: every non-preterminal node gives (label, start, end) over the kept
 *    terminals, in preorder. A bracket covering no kept terminal is dropped; the label is
 *    cut at the first '-' or '=' (NP-SBJ-1 -> NP, NP=2 -> NP); a bracket whose cut label
 *    is a DELETE_LABEL (TOP) is dropped. The unlabeled wrapper `( (S ...))` and ROOT are
 *    ordinary brackets.
 * 3. Status: an empty test sentence (no kept terminals) is skipped; a different number of
 *    kept terminals is a length mismatch, a different word at some position a word
 *    mismatch (both "error" sentences). Skipped and error sentences add nothing to the
 *    bracket, crossing and tag totals but count as sentences (and in the cutoff group by
 *    their gold length).
 * 4. Matching: each gold bracket, in order, takes the first unmatched test bracket with the
 *    same span and an equal label (EQ_LABEL ADVP PRT makes those two equal). So duplicate
 *    brackets (NP (NP ...)) match as multisets: n gold against m test give min(n, m).
 * 5. Crossing: the number of test brackets that cross at least one gold bracket
 *    (g.start < t.start < g.end < t.end or t.start < g.start < t.end < g.end).
 * 6. Tags: position by position over kept terminals, full tags compared (EQ_LABEL applies).
 *
 * Unlike EVALB, nothing aborts after 10 errors.
 */
import type { Tree } from '../trees/tree.js';

export interface EvalbParams {
  /** DELETE_LABEL: preterminals with these tags are removed; brackets with these (cut) labels dropped. */
  deleteLabels: readonly string[];
  /** DELETE_LABEL_FOR_LENGTH: tags not counted in the sentence length. */
  deleteLabelsForLength: readonly string[];
  /** EQ_LABEL pairs: labels considered equal (in both directions). */
  equalLabels: readonly (readonly [string, string])[];
  /** EQ_WORD pairs: words considered equal. */
  equalWords: readonly (readonly [string, string])[];
  /** LABELED 1 (true) or 0 (unlabeled bracketing). */
  labeled: boolean;
}

/** COLLINS.prm, the parameters of the standard EVALB runs. */
export const COLLINS_PARAMS: EvalbParams = Object.freeze({
  deleteLabels: Object.freeze(['TOP', '-NONE-', ',', ':', '``', "''", '.']),
  deleteLabelsForLength: Object.freeze(['-NONE-']),
  equalLabels: Object.freeze([Object.freeze(['ADVP', 'PRT'] as const)]),
  equalWords: Object.freeze([]),
  labeled: true,
});

/** EVALB's default cutoff length. */
export const DEFAULT_CUTOFF = 40;

/**
 * One side of a sentence: a tree; several trees (one EVALB line holding several bracketed
 * items); or null / [] for an empty line (a failed parse).
 */
export type EvalbInput = Tree | readonly Tree[] | null | undefined;

export type EvalbStatus = 'ok' | 'length-mismatch' | 'word-mismatch' | 'skipped-empty';

export interface LabelCounts {
  gold: number;
  test: number;
  matched: number;
}

export interface EvalbSentence {
  status: EvalbStatus;
  /** EVALB's status column: 0 ok, 1 error (length or word mismatch), 2 skipped. */
  statusCode: 0 | 1 | 2;
  /** What went wrong, e.g. "length mismatch (4|5)"; '' when ok. */
  message: string;
  /** Sentence length for the cutoff: gold preterminals other than -NONE-. */
  length: number;
  /** Gold words after deletion (the tag-accuracy denominator when ok). */
  words: number;
  matched: number;
  goldBrackets: number;
  testBrackets: number;
  crossing: number;
  correctTags: number;
  /** Per-label counts (labels cut at '-'/'='; EQ_LABEL classes under their first label). */
  byLabel: Record<string, LabelCounts>;
}

interface Extracted {
  words: string[];
  tags: string[];
  /** Brackets as parallel arrays, preorder. */
  starts: number[];
  ends: number[];
  labels: string[];
  /** Length for the cutoff. */
  length: number;
}

function asForest(input: EvalbInput): readonly Tree[] {
  if (input === null || input === undefined) return [];
  return Array.isArray(input) ? (input as readonly Tree[]) : [input as Tree];
}

/** Parameters prepared for fast lookups; cached per params object. */
interface Compiled {
  deleteTag: Set<string>;
  deleteForLength: Set<string>;
  labelPartners: Map<string, Set<string>>;
  wordPartners: Map<string, Set<string>>;
  labeled: boolean;
  /** Cut label -> whether the bracket is dropped (label_comp against each DELETE_LABEL). */
  deletedBracket: Map<string, boolean>;
  /** Cut label -> per-label table key. */
  keys: Map<string, string>;
  firstOfPair: Map<string, string>;
}

const compiledCache = new WeakMap<EvalbParams, Compiled>();

function partners(pairs: readonly (readonly [string, string])[]): Map<string, Set<string>> {
  const m = new Map<string, Set<string>>();
  const add = (a: string, b: string): void => {
    let set = m.get(a);
    if (!set) m.set(a, (set = new Set()));
    set.add(b);
  };
  for (const [x, y] of pairs) {
    add(x, y);
    add(y, x);
  }
  return m;
}

function compile(params: EvalbParams): Compiled {
  let c = compiledCache.get(params);
  if (c) return c;
  const firstOfPair = new Map<string, string>();
  for (const [x, y] of params.equalLabels) if (!firstOfPair.has(y)) firstOfPair.set(y, x);
  c = {
    deleteTag: new Set(params.deleteLabels),
    deleteForLength: new Set(params.deleteLabelsForLength),
    labelPartners: partners(params.equalLabels),
    wordPartners: partners(params.equalWords),
    labeled: params.labeled,
    deletedBracket: new Map(),
    keys: new Map(),
    firstOfPair,
  };
  compiledCache.set(params, c);
  return c;
}

/** EVALB's label_comp / word_comp: equal, or an EQ pair in either direction. */
function same(a: string, b: string, pairs: Map<string, Set<string>>): boolean {
  return a === b || (pairs.get(a)?.has(b) ?? false);
}

function isDeletedBracket(label: string, c: Compiled): boolean {
  let d = c.deletedBracket.get(label);
  if (d === undefined) {
    d = c.deleteTag.has(label);
    if (!d) for (const p of c.labelPartners.get(label) ?? []) if (c.deleteTag.has(p)) d = true;
    c.deletedBracket.set(label, d);
  }
  return d;
}

/** The name a label is reported under in per-label tables: EQ_LABEL pairs share their first label. */
function labelKey(label: string, c: Compiled): string {
  return c.firstOfPair.get(label) ?? label;
}

function extract(input: EvalbInput, c: Compiled): Extracted {
  const out: Extracted = { words: [], tags: [], starts: [], ends: [], labels: [], length: 0 };
  const walk = (n: Tree): void => {
    if (n.word !== undefined) {
      if (!c.deleteForLength.has(n.label)) out.length++;
      if (c.deleteTag.has(n.label)) return;
      out.words.push(n.word);
      out.tags.push(n.label);
      return;
    }
    const id = out.starts.length;
    out.starts.push(out.words.length);
    out.ends.push(-1);
    out.labels.push(n.label);
    for (const ch of n.children) walk(ch);
    out.ends[id] = out.words.length;
  };
  for (const t of asForest(input)) walk(t);
  return out;
}

/** EVALB's modify_label: cut at the first '-' or '=' (even at position 0). */
export function evalbLabel(label: string): string {
  for (let i = 0; i < label.length; i++) {
    const ch = label.charCodeAt(i);
    if (ch === 45 || ch === 61) return label.slice(0, i);
  }
  return label;
}

const DELETED = 5;

/** Marks dropped brackets (EVALB's massage_data); returns the labels cut and the count kept. */
function massage(e: Extracted, c: Compiled): { labels: string[]; result: Int8Array; kept: number } {
  const n = e.starts.length;
  const labels = new Array<string>(n);
  const result = new Int8Array(n);
  let kept = 0;
  for (let i = 0; i < n; i++) {
    labels[i] = e.labels[i];
    if (e.starts[i] === e.ends[i]) {
      result[i] = DELETED;
      continue;
    }
    labels[i] = evalbLabel(e.labels[i]);
    if (isDeletedBracket(labels[i], c)) result[i] = DELETED;
    else kept++;
  }
  return { labels, result, kept };
}

function bump(byLabel: Record<string, LabelCounts>, key: string, field: keyof LabelCounts): void {
  const counts = byLabel[key] ?? (byLabel[key] = { gold: 0, test: 0, matched: 0 });
  counts[field]++;
}

/** Scores one sentence as EVALB does (see the module comment). */
export function evalbSentence(gold: EvalbInput, test: EvalbInput, params: EvalbParams = COLLINS_PARAMS): EvalbSentence {
  return score(gold, test, compile(params), true);
}

function score(gold: EvalbInput, test: EvalbInput, c: Compiled, withLabels: boolean): EvalbSentence {
  const g = extract(gold, c);
  const t = extract(test, c);
  const failed = (status: EvalbStatus, message: string): EvalbSentence => ({
    status,
    statusCode: status === 'skipped-empty' ? 2 : 1,
    message,
    length: g.length,
    words: g.words.length,
    matched: 0,
    goldBrackets: 0,
    testBrackets: 0,
    crossing: 0,
    correctTags: 0,
    byLabel: {},
  });
  if (t.words.length === 0) return failed('skipped-empty', 'empty test sentence');
  if (g.words.length !== t.words.length) {
    return failed('length-mismatch', `length mismatch (${g.words.length}|${t.words.length})`);
  }
  for (let i = 0; i < g.words.length; i++) {
    if (!same(g.words[i], t.words[i], c.wordPartners)) {
      return failed('word-mismatch', `word mismatch at word ${i + 1} (${g.words[i]}|${t.words[i]})`);
    }
  }

  const gm = massage(g, c);
  const tm = massage(t, c);
  const byLabel: Record<string, LabelCounts> = {};
  if (withLabels) {
    for (let i = 0; i < gm.labels.length; i++)
      if (gm.result[i] !== DELETED) bump(byLabel, labelKey(gm.labels[i], c), 'gold');
    for (let j = 0; j < tm.labels.length; j++)
      if (tm.result[j] !== DELETED) bump(byLabel, labelKey(tm.labels[j], c), 'test');
  }

  // Matching: greedy, gold in order, first unmatched test bracket with equal span and label.
  let matched = 0;
  for (let i = 0; i < gm.labels.length; i++) {
    if (gm.result[i] === DELETED) continue;
    for (let j = 0; j < tm.labels.length; j++) {
      if (tm.result[j] !== 0 || g.starts[i] !== t.starts[j] || g.ends[i] !== t.ends[j]) continue;
      if (!c.labeled || same(gm.labels[i], tm.labels[j], c.labelPartners)) {
        gm.result[i] = 1;
        tm.result[j] = 1;
        matched++;
        if (withLabels) bump(byLabel, labelKey(gm.labels[i], c), 'matched');
        break;
      }
    }
  }

  // Crossing: test brackets that cross some gold bracket.
  let crossing = 0;
  for (let j = 0; j < tm.labels.length; j++) {
    if (tm.result[j] === DELETED) continue;
    const ts = t.starts[j];
    const te = t.ends[j];
    for (let i = 0; i < gm.labels.length; i++) {
      if (gm.result[i] === DELETED) continue;
      const gs = g.starts[i];
      const ge = g.ends[i];
      if ((gs < ts && ge > ts && ge < te) || (gs > ts && gs < te && ge > te)) {
        crossing++;
        break;
      }
    }
  }

  let correctTags = 0;
  for (let i = 0; i < g.tags.length; i++) if (same(g.tags[i], t.tags[i], c.labelPartners)) correctTags++;

  return {
    status: 'ok',
    statusCode: 0,
    message: '',
    length: g.length,
    words: g.words.length,
    matched,
    goldBrackets: gm.kept,
    testBrackets: tm.kept,
    crossing,
    correctTags,
    byLabel,
  };
}

/**
 * The reranking score of a parse (the per-sentence Score, docs/pipeline.md): F1 (0..100, EVALB brackets) times the
 * number of gold brackets; 0 when the sentence cannot be scored (word or length mismatch,
 * empty test). Strip a trivial root from both trees first (stripRoot) if the root bracket
 * should not count.
 */
export function parseScore(gold: EvalbInput, test: EvalbInput, params: EvalbParams = COLLINS_PARAMS): number {
  const s = score(gold, test, compile(params), false);
  if (s.status !== 'ok' || s.goldBrackets + s.testBrackets === 0) return 0;
  return ((200 * s.matched) / (s.goldBrackets + s.testBrackets)) * s.goldBrackets;
}

/** An EVALB summary block. Percentages are 0-100 as EVALB prints them (unrounded here). */
export interface EvalbSummary {
  sentences: number;
  errorSentences: number;
  skippedSentences: number;
  validSentences: number;
  recall: number;
  precision: number;
  f1: number;
  exactMatch: number;
  averageCrossing: number;
  zeroCrossing: number;
  twoOrLessCrossing: number;
  taggingAccuracy: number;
  matchedBrackets: number;
  goldBrackets: number;
  testBrackets: number;
}

export interface LabelScore extends LabelCounts {
  recall: number;
  precision: number;
  f1: number;
}

/** What `eval parse --json` prints. */
export interface EvalbReport {
  all: EvalbSummary;
  cutoff: EvalbSummary;
  byLabel: Record<string, LabelScore>;
}

/** Raw totals of one summary group (EVALB's TOTAL_* / TOT40_* counters). */
export class EvalbTotals {
  sentences = 0;
  errorSentences = 0;
  skippedSentences = 0;
  matched = 0;
  gold = 0;
  test = 0;
  exact = 0;
  words = 0;
  crossing = 0;
  zeroCrossing = 0;
  twoOrLessCrossing = 0;
  correctTags = 0;

  add(s: EvalbSentence): void {
    this.sentences++;
    if (s.statusCode === 1) this.errorSentences++;
    else if (s.statusCode === 2) this.skippedSentences++;
    else {
      this.gold += s.goldBrackets;
      this.test += s.testBrackets;
      this.matched += s.matched;
      if (s.goldBrackets === s.testBrackets && s.testBrackets === s.matched) this.exact++;
      this.words += s.words;
      this.crossing += s.crossing;
      if (s.crossing === 0) this.zeroCrossing++;
      if (s.crossing <= 2) this.twoOrLessCrossing++;
      this.correctTags += s.correctTags;
    }
  }

  get validSentences(): number {
    return this.sentences - this.errorSentences - this.skippedSentences;
  }

  summary(): EvalbSummary {
    const valid = this.validSentences;
    const recall = this.gold > 0 ? (100 * this.matched) / this.gold : 0;
    const precision = this.test > 0 ? (100 * this.matched) / this.test : 0;
    return {
      sentences: this.sentences,
      errorSentences: this.errorSentences,
      skippedSentences: this.skippedSentences,
      validSentences: valid,
      recall,
      precision,
      f1: recall + precision > 0 ? (2 * precision * recall) / (precision + recall) : 0,
      exactMatch: valid > 0 ? (100 * this.exact) / valid : 0,
      averageCrossing: valid > 0 ? this.crossing / valid : 0,
      zeroCrossing: valid > 0 ? (100 * this.zeroCrossing) / valid : 0,
      twoOrLessCrossing: valid > 0 ? (100 * this.twoOrLessCrossing) / valid : 0,
      taggingAccuracy: this.words > 0 ? (100 * this.correctTags) / this.words : 0,
      matchedBrackets: this.matched,
      goldBrackets: this.gold,
      testBrackets: this.test,
    };
  }
}

function labelScore(c: LabelCounts): LabelScore {
  const recall = c.gold > 0 ? (100 * c.matched) / c.gold : 0;
  const precision = c.test > 0 ? (100 * c.matched) / c.test : 0;
  return { ...c, recall, precision, f1: recall + precision > 0 ? (2 * recall * precision) / (recall + precision) : 0 };
}

/** Accumulates sentences into the all / cutoff summaries and the per-label table. */
export class EvalbAccumulator {
  readonly all = new EvalbTotals();
  readonly short = new EvalbTotals();
  readonly labels: Record<string, LabelCounts> = {};

  constructor(readonly cutoff = DEFAULT_CUTOFF) {}

  add(s: EvalbSentence): void {
    this.all.add(s);
    if (s.length <= this.cutoff) this.short.add(s);
    for (const [label, c] of Object.entries(s.byLabel)) {
      const t = this.labels[label] ?? (this.labels[label] = { gold: 0, test: 0, matched: 0 });
      t.gold += c.gold;
      t.test += c.test;
      t.matched += c.matched;
    }
  }

  report(): EvalbReport {
    const byLabel: Record<string, LabelScore> = {};
    const keys = Object.keys(this.labels).sort(
      (a, b) => this.labels[b].gold - this.labels[a].gold || (a < b ? -1 : a > b ? 1 : 0),
    );
    for (const k of keys) byLabel[k] = labelScore(this.labels[k]);
    return { all: this.all.summary(), cutoff: this.short.summary(), byLabel };
  }
}

export interface EvalbCorpusOptions {
  /** Sentences of length <= cutoff form the second summary (default 40). */
  cutoff?: number;
  params?: EvalbParams;
}

/**
 * Scores (gold, test) pairs; returns the summaries for all sentences and for length <= cutoff.
 *
 * @example
 * ```ts
 * const report = evalbCorpus(gold.map((g, i) => [g, parsed[i]] as const));
 * console.log(report.all.f1);
 * ```
 */
export function evalbCorpus(
  pairs: Iterable<readonly [EvalbInput, EvalbInput]>,
  options: EvalbCorpusOptions = {},
): EvalbReport & { sentences: EvalbSentence[] } {
  const acc = new EvalbAccumulator(options.cutoff ?? DEFAULT_CUTOFF);
  const sentences: EvalbSentence[] = [];
  for (const [gold, test] of pairs) {
    const s = evalbSentence(gold, test, options.params ?? COLLINS_PARAMS);
    sentences.push(s);
    acc.add(s);
  }
  return { ...acc.report(), sentences };
}

/**
 * Chunk / entity evaluation with the semantics of conlleval.pl (CoNLL-2000, version
 * 2004-01-26), reimplemented from its published description and behaviour:
 *
 * - a tag splits at its first '-' into prefix and type ("B-NP" -> B, NP; "O" -> O, "");
 * - a chunk starts / ends between two tokens by conlleval's startOfChunk / endOfChunk
 *   rules, which read IOB1 and IOB2 alike: an I- after O or after another type opens a
 *   chunk, a B- always opens one, a change of type closes one;
 * - a chunk is correct when gold and guess open it at the same token with the same type and
 *   both close it at the same token (checked token by token, as conlleval does);
 * - an empty line or a line whose first field is `-X-` is a sentence boundary (tags forced
 *   to O, not counted as a token); `-DOCSTART-` is an ordinary token;
 * - token accuracy counts tokens whose gold and guessed tags are equal, over all token lines;
 * - precision, recall and F1 are micro-averaged percentages (0 when undefined).
 *
 * Chunk boundaries come from lib/eval/spans.ts (IOB1, IOB2, IOBES, BILOU).
 */

import { chunkRules, splitTag, TAG_SCHEMES, type ChunkRule, type TagScheme } from './spans.js';

export { chunkSpans, splitTag, type ChunkSpan } from './spans.js';

/** A tag scheme (lib/eval/spans.ts). */
export type ChunkScheme = TagScheme;

export const CHUNK_SCHEMES: readonly ChunkScheme[] = TAG_SCHEMES;

/** conlleval's sentence-boundary token. */
export const BOUNDARY = '-X-';

export interface ChunkCounts {
  correct: number;
  gold: number;
  predicted: number;
}

export interface ConllevalOverall {
  tokens: number;
  goldChunks: number;
  predictedChunks: number;
  correctChunks: number;
  /** Percentages, 0-100. */
  accuracy: number;
  precision: number;
  recall: number;
  f1: number;
}

export interface ConllevalTypeScore {
  gold: number;
  predicted: number;
  correct: number;
  precision: number;
  recall: number;
  f1: number;
}

export interface ConllevalReport {
  overall: ConllevalOverall;
  /** Per chunk type, in conlleval's (sorted) order. */
  byType: Record<string, ConllevalTypeScore>;
}

/** A sentence to score: gold and predicted tags, optionally the words (`-X-` = boundary line). */
export interface ChunkSentence {
  gold: string[];
  predicted: string[];
  words?: string[];
}

interface TypeCounts {
  gold: number;
  predicted: number;
  correct: number;
}

/**
 * conlleval's counting loop as a state machine: push each token line's gold and guessed tag
 * (or a boundary), then read the report. Streams: memory is per chunk type, not per token.
 */
export class ConllevalCounter {
  tokens = 0;
  correctTags = 0;
  goldChunks = 0;
  predictedChunks = 0;
  correctChunks = 0;
  readonly byType = new Map<string, TypeCounts>();

  private readonly start: ChunkRule;
  private readonly end: ChunkRule;
  private inCorrect = false;
  private lastCorrect = 'O';
  private lastCorrectType = '';
  private lastGuessed = 'O';
  private lastGuessedType = '';
  private finished = false;

  constructor(readonly scheme: ChunkScheme = 'iob2') {
    ({ start: this.start, end: this.end } = chunkRules(scheme));
  }

  private type(t: string): TypeCounts {
    let c = this.byType.get(t);
    if (!c) {
      c = { gold: 0, predicted: 0, correct: 0 };
      this.byType.set(t, c);
    }
    return c;
  }

  /** One token line. `firstField` is the line's first column (`-X-` makes it a boundary). */
  push(goldTag: string, guessedTag: string, firstField?: string): void {
    if (firstField === BOUNDARY) {
      this.boundary();
      return;
    }
    this.step(goldTag, guessedTag, false);
  }

  /** A sentence boundary: an empty line or a `-X-` line. */
  boundary(): void {
    this.step('O', 'O', true);
  }

  private step(goldTag: string, guessedTag: string, isBoundary: boolean): void {
    const g = splitTag(guessedTag);
    const c = splitTag(goldTag);
    const guessed = g.prefix;
    const guessedType = g.type;
    const correct = c.prefix;
    const correctType = c.type;
    const { start, end } = this;

    if (this.inCorrect) {
      const correctEnds = end(this.lastCorrect, correct, this.lastCorrectType, correctType);
      const guessedEnds = end(this.lastGuessed, guessed, this.lastGuessedType, guessedType);
      if (correctEnds && guessedEnds && this.lastGuessedType === this.lastCorrectType) {
        this.inCorrect = false;
        this.correctChunks++;
        this.type(this.lastCorrectType).correct++;
      } else if (correctEnds !== guessedEnds || guessedType !== correctType) {
        this.inCorrect = false;
      }
    }
    const correctStarts = start(this.lastCorrect, correct, this.lastCorrectType, correctType);
    const guessedStarts = start(this.lastGuessed, guessed, this.lastGuessedType, guessedType);
    if (correctStarts && guessedStarts && guessedType === correctType) this.inCorrect = true;
    if (correctStarts) {
      this.goldChunks++;
      this.type(correctType).gold++;
    }
    if (guessedStarts) {
      this.predictedChunks++;
      this.type(guessedType).predicted++;
    }
    if (!isBoundary) {
      if (correct === guessed && guessedType === correctType) this.correctTags++;
      this.tokens++;
    }
    this.lastGuessed = guessed;
    this.lastCorrect = correct;
    this.lastGuessedType = guessedType;
    this.lastCorrectType = correctType;
  }

  /** End of input: a chunk still open and correct so far counts as correct. */
  finish(): this {
    if (this.finished) return this;
    this.finished = true;
    if (this.inCorrect) {
      this.correctChunks++;
      this.type(this.lastCorrectType).correct++;
      this.inCorrect = false;
    }
    return this;
  }

  counts(): ChunkCounts {
    return { correct: this.correctChunks, gold: this.goldChunks, predicted: this.predictedChunks };
  }

  report(): ConllevalReport {
    this.finish();
    const overall: ConllevalOverall = {
      tokens: this.tokens,
      goldChunks: this.goldChunks,
      predictedChunks: this.predictedChunks,
      correctChunks: this.correctChunks,
      accuracy: this.tokens > 0 ? (100 * this.correctTags) / this.tokens : 0,
      ...prf(this.correctChunks, this.goldChunks, this.predictedChunks),
    };
    const byType: Record<string, ConllevalTypeScore> = {};
    for (const t of [...this.byType.keys()].sort(compareCodePoints)) {
      const c = this.byType.get(t) as TypeCounts;
      byType[t] = { gold: c.gold, predicted: c.predicted, correct: c.correct, ...prf(c.correct, c.gold, c.predicted) };
    }
    return { overall, byType };
  }
}

/** Perl's `sort`: by code point, not by locale. */
function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Precision, recall and F1 in percent, conlleval's way (0 when a denominator is 0). */
export function prf(
  correct: number,
  gold: number,
  predicted: number,
): { precision: number; recall: number; f1: number } {
  const precision = predicted > 0 ? (100 * correct) / predicted : 0;
  const recall = gold > 0 ? (100 * correct) / gold : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

function checkLengths(gold: readonly string[], pred: readonly string[]): void {
  if (gold.length !== pred.length)
    throw new RangeError(`gold has ${gold.length} tags but the prediction has ${pred.length}`);
}

/**
 * Chunk counts of one sentence (as conlleval would count it between two boundaries); used for
 * the reranking score `F1 * |gold chunks|`.
 */
export function chunkCounts(
  gold: readonly string[],
  pred: readonly string[],
  scheme: ChunkScheme = 'iob2',
): ChunkCounts {
  checkLengths(gold, pred);
  const counter = new ConllevalCounter(scheme);
  for (let i = 0; i < gold.length; i++) counter.push(gold[i], pred[i]);
  counter.boundary();
  return counter.finish().counts();
}

/**
 * Scores sentences like conlleval scores a file with a blank line after each sentence.
 *
 * @example
 * ```ts
 * const report = conllevalCorpus([{ gold: ['B-PER', 'O'], predicted: ['B-PER', 'O'] }], { scheme: 'iob2' });
 * console.log(report.overall.f1); // 100
 * ```
 */
export function conllevalCorpus(
  sentences: Iterable<ChunkSentence>,
  options: { scheme?: ChunkScheme } = {},
): ConllevalReport {
  const counter = new ConllevalCounter(options.scheme ?? 'iob2');
  for (const s of sentences) {
    checkLengths(s.gold, s.predicted);
    for (let i = 0; i < s.gold.length; i++) counter.push(s.gold[i], s.predicted[i], s.words?.[i]);
    counter.boundary();
  }
  return counter.report();
}

/** C printf("%6.2f"): rounds the exact binary value, ties to even (toFixed breaks ties upward). */
function fixed2(x: number): string {
  let s = x.toFixed(2);
  const scaled = x * 8;
  // x is exactly halfway between two hundredths only when x = odd/8; then round to even.
  if (Number.isInteger(scaled) && scaled % 2 !== 0) {
    const down = (Math.floor(x * 100) / 100).toFixed(2);
    const lastDigit = Number(down[down.length - 1]);
    if (x >= 0 && lastDigit % 2 === 0) s = down;
  }
  return s.padStart(6);
}

/** The report as conlleval prints it. */
export function formatConllevalReport(report: ConllevalReport): string {
  const o = report.overall;
  const lines = [
    `processed ${o.tokens} tokens with ${o.goldChunks} phrases; found: ${o.predictedChunks} phrases; correct: ${o.correctChunks}.`,
  ];
  if (o.tokens > 0) {
    lines.push(
      `accuracy: ${fixed2(o.accuracy)}%; precision: ${fixed2(o.precision)}%; recall: ${fixed2(o.recall)}%; FB1: ${fixed2(o.f1)}`,
    );
  }
  for (const [type, t] of Object.entries(report.byType)) {
    lines.push(
      `${type.padStart(17)}: precision: ${fixed2(t.precision)}%; recall: ${fixed2(t.recall)}%; FB1: ${fixed2(t.f1)}  ${t.predicted}`,
    );
  }
  return lines.join('\n') + '\n';
}

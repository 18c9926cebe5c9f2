/**
 * Tagging accuracy: the share of tokens whose predicted tag equals the gold tag, overall and
 * on unknown words (words not seen in the training data). Percentages 0-100.
 */

export interface TagAccuracy {
  tokens: number;
  correct: number;
  accuracy: number;
  /** Tokens whose word is not in the training vocabulary; null when no vocabulary was given. */
  unknownTokens: number | null;
  unknownCorrect: number | null;
  unknownAccuracy: number | null;
}

/** A sentence to score: its words, gold and predicted tags. */
export interface TaggedSentence {
  words: readonly string[];
  gold: readonly string[];
  predicted: readonly string[];
}

/** Accumulates counts token by token. */
export class TagCounter {
  tokens = 0;
  correct = 0;
  unknownTokens = 0;
  unknownCorrect = 0;

  /** `known`: the training vocabulary (exact, case-sensitive word forms), if any. */
  constructor(readonly known?: ReadonlySet<string>) {}

  push(word: string, gold: string, predicted: string): void {
    const right = gold === predicted;
    this.tokens++;
    if (right) this.correct++;
    if (this.known && !this.known.has(word)) {
      this.unknownTokens++;
      if (right) this.unknownCorrect++;
    }
  }

  report(): TagAccuracy {
    const pct = (a: number, b: number) => (b > 0 ? (100 * a) / b : 0);
    const hasVocabulary = this.known !== undefined;
    return {
      tokens: this.tokens,
      correct: this.correct,
      accuracy: pct(this.correct, this.tokens),
      unknownTokens: hasVocabulary ? this.unknownTokens : null,
      unknownCorrect: hasVocabulary ? this.unknownCorrect : null,
      unknownAccuracy: hasVocabulary ? pct(this.unknownCorrect, this.unknownTokens) : null,
    };
  }
}

/**
 * Scores sentences; `known` is the training vocabulary for the unknown-word figures.
 *
 * @example
 * ```ts
 * const r = tagAccuracy([{ words: ['a', 'dog'], gold: ['DT', 'NN'], predicted: ['DT', 'VB'] }]);
 * console.log(r.accuracy); // 50
 * ```
 */
export function tagAccuracy(sentences: Iterable<TaggedSentence>, known?: ReadonlySet<string>): TagAccuracy {
  const counter = new TagCounter(known);
  for (const s of sentences) {
    if (s.gold.length !== s.predicted.length || s.words.length !== s.gold.length) {
      throw new RangeError(
        `sentence has ${s.words.length} words, ${s.gold.length} gold and ${s.predicted.length} predicted tags`,
      );
    }
    for (let i = 0; i < s.gold.length; i++) counter.push(s.words[i], s.gold[i], s.predicted[i]);
  }
  return counter.report();
}

/** One-line text report. */
export function formatTagAccuracy(r: TagAccuracy): string {
  let text = `tokens: ${r.tokens}; correct: ${r.correct}; accuracy: ${r.accuracy.toFixed(2)}%`;
  if (r.unknownTokens !== null) {
    text += `\nunknown words: ${r.unknownTokens}; correct: ${r.unknownCorrect}; accuracy: ${(r.unknownAccuracy ?? 0).toFixed(2)}%`;
  }
  return text + '\n';
}

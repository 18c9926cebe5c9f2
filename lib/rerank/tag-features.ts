/**
 * Reranking features of a tag sequence (for boosting and the log-linear model on tagging
 * n-best lists, the NER experiment of Collins & Duffy 2002a): tag n-grams, tags with the word, its shape and
 * suffix and the neighbouring words, and whole entities (IOB chunks) with their words, length
 * and context. Counts become threshold features as for trees.
 */
import { chunkSpans, detectTagScheme, isChunkTag } from '../eval/spans.js';
import { suffixOf, wordShape } from './word-forms.js';
import type { NbestSentence } from '../io/nbest.js';

/** Feature counts of one candidate tag sequence over its words. */
export function tagSequenceFeatures(words: readonly string[], tags: readonly string[]): Record<string, number> {
  const f: Record<string, number> = {};
  const add = (name: string): void => {
    f[name] = (f[name] ?? 0) + 1;
  };
  const n = tags.length;
  const lw = words.map((w) => w.toLowerCase());
  for (let i = 0; i < n; i++) {
    const t = tags[i];
    const prev = i > 0 ? tags[i - 1] : '<s>';
    const prev2 = i > 1 ? tags[i - 2] : '<s>';
    add(`TT:${prev} ${t}`);
    add(`TTT:${prev2} ${prev} ${t}`);
    add(`TW:${t} ${lw[i]}`);
    add(`TS:${t} ${wordShape(words[i])}`);
    add(`TX:${t} ${suffixOf(lw[i], 3)}`);
    add(`TWp:${t} ${i > 0 ? lw[i - 1] : '<s>'}`);
    add(`TWn:${t} ${i + 1 < n ? lw[i + 1] : '</s>'}`);
    add(`TTW:${prev} ${t} ${lw[i]}`);
  }
  add(`TT:${n > 0 ? tags[n - 1] : '<s>'} </s>`);
  if (tags.every(isChunkTag)) {
    // The sequence's own scheme: BILOU's L- and U- end entities that IOB2 rules would not.
    for (const c of chunkSpans(tags, detectTagScheme([tags]) ?? 'iob2')) {
      const text = lw.slice(c.start, c.end).join(' ');
      add(`E:${c.type} ${text}`);
      add(`EL:${c.type} ${Math.min(c.end - c.start, 5)}`);
      add(`EP:${c.type} ${c.start > 0 ? lw[c.start - 1] : '<s>'}`);
      add(`EN:${c.type} ${c.end < n ? lw[c.end] : '</s>'}`);
      add(`ES:${c.type} ${words.slice(c.start, c.end).map(wordShape).join(' ')}`);
    }
  }
  return f;
}

/** The sentences with every tag candidate's features attached (what the extractor reads for tag lists). */
export function withTagSequenceFeatures(sentences: readonly NbestSentence[]): NbestSentence[] {
  return sentences.map((s) => ({
    ...s,
    candidates: s.candidates.map((cand) =>
      cand.tags ? { ...cand, features: tagSequenceFeatures(s.tokens, cand.tags) } : cand,
    ),
  }));
}

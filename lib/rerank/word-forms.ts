/** Word forms the reranking features read, in any script: shapes and suffixes. */
import { native } from '../native.js';

interface WordsAddon {
  wordShape(word: string): string;
}

/**
 * Shapes already computed: a reranker asks for the same words in every candidate. Emptied
 * when full, so a long process over a large vocabulary keeps only its recent words.
 */
const shapes = new Map<string, string>();
const MAX_CACHED_SHAPES = 1 << 16;

/**
 * The word's shape in any script, the one definition the parser and the taggers use too
 * (`native/core/word_signature.h`): runs of upper-case letters become X, of lower-case x, of
 * caseless letters (CJK, Arabic, Devanagari, ...) L, of digits d; combining marks stay with
 * their letter; other characters are kept ("São" -> "Xx", "Москва" -> "Xx", "東京" -> "L").
 */
export function wordShape(w: string): string {
  let shape = shapes.get(w);
  if (shape === undefined) {
    shape = native<WordsAddon>().wordShape(w);
    if (shapes.size >= MAX_CACHED_SHAPES) shapes.clear();
    shapes.set(w, shape);
  }
  return shape;
}

/** The last n characters (code points, so a character outside the BMP is never cut in two). */
export function suffixOf(w: string, n: number): string {
  const chars = Array.from(w);
  return chars.length <= n ? w : chars.slice(-n).join('');
}

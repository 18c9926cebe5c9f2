/** Word forms the reranking features read, in any script: shapes and suffixes. */

/**
 * The word's shape in any script: runs of upper-case letters become X, of lower-case x, of
 * caseless letters (CJK, Arabic, Devanagari, ...) L, of digits d; combining marks stay with
 * their letter; other characters are kept ("São" -> "Xx", "Москва" -> "Xx", "東京" -> "L").
 */
export function wordShape(w: string): string {
  return w
    .replace(/(?:[\p{Lu}\p{Lt}]\p{M}*)+/gu, 'X')
    .replace(/(?:\p{Ll}\p{M}*)+/gu, 'x')
    .replace(/(?:[\p{Lo}\p{Lm}]\p{M}*)+/gu, 'L')
    .replace(/\p{Nd}+/gu, 'd');
}

/** The last n characters (code points, so a character outside the BMP is never cut in two). */
export function suffixOf(w: string, n: number): string {
  const chars = Array.from(w);
  return chars.length <= n ? w : chars.slice(-n).join('');
}

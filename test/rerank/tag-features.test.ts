import { describe, expect, it } from 'vitest';
import { tagSequenceFeatures } from '../../lib/rerank/tag-features.js';
import { suffixOf, wordShape } from '../../lib/rerank/word-forms.js';

describe('reranking features of tag sequences, in any script and chunk scheme', () => {
  it('shapes words of every script alike: X upper, x lower, L caseless, d digits', () => {
    expect(wordShape('McDonald')).toBe('XxXx');
    expect(wordShape('1,234.5')).toBe('d,d.d');
    expect(wordShape('Ñandú')).toBe('Xx');
    expect(wordShape('São')).toBe('Xx'); // Portuguese: ã was kept as itself before
    expect(wordShape('Αθήνα')).toBe('Xx'); // Greek
    expect(wordShape('Москва')).toBe('Xx'); // Cyrillic
    expect(wordShape('ΝΑΤΟ')).toBe('X');
    expect(wordShape('東京')).toBe('L'); // CJK: caseless letters
    expect(wordShape('नमस्ते')).toBe('L'); // Devanagari with its vowel signs (combining marks)
    expect(wordShape('nai\u0308ve')).toBe('x'); // a decomposed diaeresis stays with its letter
    expect(wordShape('٣٤')).toBe('d'); // Arabic-Indic digits
  });

  it('takes suffixes by character, never cutting one outside the BMP in two', () => {
    expect(suffixOf('corriendo', 3)).toBe('ndo');
    expect(suffixOf('𠀋𠀌𠀍𠀎', 3)).toBe('𠀌𠀍𠀎'); // CJK Extension B: surrogate pairs in UTF-16
    expect(suffixOf('ab', 3)).toBe('ab');
    expect(tagSequenceFeatures(['𠀋𠀌𠀍𠀎'], ['O'])['TX:O 𠀌𠀍𠀎']).toBe(1);
  });

  it("reads entities in the sequence's own scheme (BILOU, IOBES, IOB2)", () => {
    const words = ['John', 'lives', 'in', 'New', 'York'];
    const entities = (tags: string[]): string[] =>
      Object.keys(tagSequenceFeatures(words, tags))
        .filter((k) => k.startsWith('E:'))
        .sort();
    const want = ['E:LOC new york', 'E:PER john'];
    expect(entities(['U-PER', 'O', 'O', 'B-LOC', 'L-LOC'])).toEqual(want);
    expect(entities(['S-PER', 'O', 'O', 'B-LOC', 'E-LOC'])).toEqual(want);
    expect(entities(['B-PER', 'O', 'O', 'B-LOC', 'I-LOC'])).toEqual(want);
    // Two adjacent single-word entities: IOB2's rules would read one.
    const adjacent = Object.keys(tagSequenceFeatures(['Paris', 'Rome'], ['U-LOC', 'U-LOC'])).filter((k) =>
      k.startsWith('E:'),
    );
    expect(adjacent.sort()).toEqual(['E:LOC paris', 'E:LOC rome']);
    expect(tagSequenceFeatures(['Москва'], ['B-LOC'])['ES:LOC Xx']).toBe(1);
  });
});

/**
 * SequenceBank: many tagged sequences (words with labels) in the compact native form the
 * tagging kernel reads: interned label, word and word-class ids per token.
 */
import { InputError, UsageError } from '../errors.js';
import { columnIndex, type ConllSentence } from '../io/conll.js';
import type { ConlluField, ConlluSentence } from '../io/conllu.js';
import { native } from '../native.js';
import type { KernelsAddon, NativeSequenceBank } from './native-kernels.js';
import { IntBuffer, SymbolTable } from './symbols.js';

export interface TaggedSequence {
  words: readonly string[];
  tags: readonly string[];
}

/** Built-in word-feature functions for Sim2 (see README: word features). */
export type BuiltinWordFeature = 'caps' | 'digits' | 'suffix2' | 'suffix3' | 'shape';
/** A word's class, or undefined / '' when it has none. */
export type WordFeatureFunction = (word: string) => string | undefined;

export const builtinWordFeatures: readonly BuiltinWordFeature[] = ['caps', 'digits', 'suffix2', 'suffix3', 'shape'];

export interface SequenceBankOptions {
  /** The word-class function for the Sim2 kernel variant (needed for `sim2: true`). */
  wordFeature?: BuiltinWordFeature | WordFeatureFunction;
  logprobs?: ArrayLike<number>;
  source?: string;
  lines?: ArrayLike<number>;
}

const customIds = new WeakMap<WordFeatureFunction, number>();
let nextCustomId = 1;
function customName(f: WordFeatureFunction): string {
  let id = customIds.get(f);
  if (id === undefined) {
    id = nextCustomId++;
    customIds.set(f, id);
  }
  return `custom:${id}`;
}

/**
 * Tag sequences (words and tags) loaded once into the native core, for tagging kernels.
 *
 * @example
 * ```ts
 * const bank = SequenceBank.fromSequences([{ words: ['The', 'dog'], tags: ['B-NP', 'I-NP'] }]);
 * const matrix = gram(bank, { lambda: 0.5 });
 * ```
 */
export class SequenceBank {
  readonly handle: NativeSequenceBank;
  readonly logprobs: Float64Array | undefined;
  readonly size: number;
  /** Name of the word feature the bank was built with ('none' when none). */
  readonly wordFeature: string;

  private constructor(handle: NativeSequenceBank, logprobs: Float64Array | undefined, wordFeature: string) {
    this.handle = handle;
    this.size = handle.size();
    this.logprobs = logprobs;
    this.wordFeature = wordFeature;
  }

  static fromSequences(seqs: readonly TaggedSequence[], options: SequenceBankOptions = {}): SequenceBank {
    const source = options.source ?? '<sequences>';
    const symbols = new SymbolTable();
    const label = new IntBuffer();
    const word = new IntBuffer();
    const klass = new IntBuffer();
    const lengths = new Int32Array(seqs.length);
    const feature = options.wordFeature;
    if (typeof feature === 'string' && !builtinWordFeatures.includes(feature)) {
      throw new UsageError(`unknown word feature '${feature}' (${builtinWordFeatures.join(', ')})`);
    }
    const custom = typeof feature === 'function' ? feature : undefined;
    seqs.forEach((s, index) => {
      const line = options.lines?.[index];
      if (s.words.length === 0) throw new InputError(source, line, `sequence ${index + 1} is empty`);
      if (s.words.length !== s.tags.length) {
        throw new InputError(
          source,
          line,
          `sequence ${index + 1} has ${s.words.length} words but ${s.tags.length} tags`,
        );
      }
      for (let t = 0; t < s.words.length; t++) {
        label.push(symbols.id(s.tags[t]));
        word.push(symbols.id(s.words[t]));
        if (custom) {
          const c = custom(s.words[t]);
          klass.push(c === undefined || c === '' ? -1 : symbols.id(c));
        }
      }
      lengths[index] = s.words.length;
    });
    if (options.logprobs !== undefined && options.logprobs.length !== seqs.length) {
      throw new UsageError(`logprobs has ${options.logprobs.length} entries for ${seqs.length} sequences`);
    }
    const name = custom ? customName(custom) : ((feature as string | undefined) ?? 'none');
    const addon = native<KernelsAddon>();
    const handle = custom
      ? new addon.SequenceBank(symbols.names, label.toArray(), word.toArray(), lengths, name, klass.toArray())
      : new addon.SequenceBank(symbols.names, label.toArray(), word.toArray(), lengths, name);
    return new SequenceBank(handle, options.logprobs ? Float64Array.from(options.logprobs) : undefined, name);
  }

  /**
   * From CoNLL sentences: `columns` names the columns in order; the ones named `word` and
   * `tag` are used.
   */
  static fromConll(
    sentences: readonly ConllSentence[],
    columns: readonly string[],
    options: SequenceBankOptions = {},
  ): SequenceBank {
    const source = options.source ?? '<conll>';
    const w = columnIndex([...columns], 'word', source);
    const t = columnIndex([...columns], 'tag', source);
    for (const s of sentences) {
      if (s.rows[0].length !== columns.length) {
        throw new InputError(
          source,
          s.line,
          `expected ${columns.length} columns (${columns.join(',')}), found ${s.rows[0].length}`,
        );
      }
    }
    const seqs = sentences.map((s) => ({ words: s.rows.map((r) => r[w]), tags: s.rows.map((r) => r[t]) }));
    return SequenceBank.fromSequences(seqs, { ...options, source, lines: sentences.map((s) => s.line) });
  }

  /** From CoNLL-U sentences: the FORMs are the words, the field `tagField` the tags. */
  static fromConllu(
    sentences: readonly ConlluSentence[],
    tagField: ConlluField,
    options: SequenceBankOptions = {},
  ): SequenceBank {
    const seqs = sentences.map((s) => ({ words: s.tokens.map((t) => t.form), tags: s.tokens.map((t) => t[tagField]) }));
    return SequenceBank.fromSequences(seqs, {
      ...options,
      source: options.source ?? '<conllu>',
      lines: sentences.map((s) => s.line),
    });
  }

  get bytes(): number {
    return this.handle.bytes();
  }

  get totalTokens(): number {
    return this.handle.totalTokens();
  }
}

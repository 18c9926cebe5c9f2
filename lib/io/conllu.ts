/**
 * CoNLL-U (Universal Dependencies): 10 tab-separated columns per word line, `#` comment
 * lines before a sentence, a blank line after it. Multiword-token range lines (`3-4`) are
 * kept as information, not as tokens; empty nodes (`5.1`) are skipped. Streaming.
 */
import { InputError } from '../errors.js';
import { readLines, readLinesSync, type Line } from './lines.js';

export interface ConlluToken {
  id: number;
  form: string;
  lemma: string;
  upos: string;
  xpos: string;
  feats: string;
  /** Head word index (0 = root), or null where the file has `_`. */
  head: number | null;
  deprel: string;
  deps: string;
  misc: string;
  /** The word line's number in the file. */
  line: number;
}

/** A multiword token line, e.g. `3-4  don't`: spans syntactic words first..last. */
export interface ConlluMultiword {
  first: number;
  last: number;
  form: string;
  misc: string;
  line: number;
}

export interface ConlluSentence {
  /** The `# sent_id = ...` comment, if any. */
  id?: string;
  /** Syntactic words (the integer-ID lines). */
  tokens: ConlluToken[];
  multiwords: ConlluMultiword[];
  /** Comment lines without the leading '#' and one following space. */
  comments: string[];
  /** Number of empty-node lines (`5.1`) skipped. */
  emptyNodes: number;
  /** Line of the sentence's first line (comment or word). */
  line: number;
}

/** The two column formats of tagging files: CoNLL columns and CoNLL-U. */
export type ColumnFormat = 'conll' | 'conllu';

/** A file's format: the one given, else CoNLL-U for `*.conllu` files, else CoNLL columns. */
export function columnFormatOf(file: string, given?: ColumnFormat): ColumnFormat {
  return given ?? (file.endsWith('.conllu') ? 'conllu' : 'conll');
}

/** The CoNLL-U fields a tagger can read or predict, by their column in a word line. */
export const CONLLU_FIELDS = { form: 1, lemma: 2, upos: 3, xpos: 4, feats: 5, deprel: 7 } as const;
export type ConlluField = keyof typeof CONLLU_FIELDS;

/** A column name as a CoNLL-U field (`word` is `form`), or undefined for other names. */
export function conlluField(name: string): ConlluField | undefined {
  const field = name === 'word' ? 'form' : name;
  return Object.hasOwn(CONLLU_FIELDS, field) ? (field as ConlluField) : undefined;
}

/** A sentence as token rows of the given fields, as a tagger reads CoNLL columns. */
export function conlluRows(s: ConlluSentence, fields: readonly ConlluField[]): string[][] {
  return s.tokens.map((t) => fields.map((f) => t[f]));
}

/** The fields that can hold the tags a scorer or kernel reads (every field but FORM), for messages. */
export const CONLLU_TAG_FIELD_NAMES = Object.keys(CONLLU_FIELDS)
  .filter((f) => f !== 'form')
  .join(', ');

/** The field `--tag` names (default upos), or undefined when it names no field or FORM. */
export function conlluTagField(name: string | undefined): Exclude<ConlluField, 'form'> | undefined {
  const field = conlluField(name ?? 'upos');
  return field === 'form' ? undefined : field;
}

/** The column of MISC, where annotation without a field of its own goes (`name=value|...`). */
export const CONLLU_MISC_COLUMN = 9;

/** The field names for messages: "word (= form), lemma, upos, xpos, feats, deprel". */
export const CONLLU_FIELD_NAMES = `word (= form), ${Object.keys(CONLLU_FIELDS).slice(1).join(', ')}`;

const INTEGER = /^[1-9][0-9]*$/;
const WORD_LINE = /^[1-9][0-9]*\t/;
const RANGE = /^([1-9][0-9]*)-([1-9][0-9]*)$/;
const DECIMAL = /^[0-9]+\.[1-9][0-9]*$/;
const SENT_ID = /^#\s*sent_id\s*=\s*(.*)$/;

/** Whether a line is a syntactic word's (an integer ID; not a multiword range, an empty node or a comment). */
export function isConlluWordLine(line: string): boolean {
  return WORD_LINE.test(line);
}

/** Assembles sentences from lines; shared by the sync and async readers. */
export class ConlluAssembler {
  private current: ConlluSentence | undefined;
  sentences = 0;

  constructor(private readonly file: string) {}

  private fail(line: number, problem: string): never {
    throw new InputError(this.file, line, problem);
  }

  private open(line: number): ConlluSentence {
    this.current ??= { tokens: [], multiwords: [], comments: [], emptyNodes: 0, line };
    return this.current;
  }

  push(line: Line): ConlluSentence | undefined {
    const text = line.text;
    if (text.trim() === '') return this.flush();
    if (text.startsWith('#')) {
      const s = this.open(line.number);
      if (s.tokens.length > 0 || s.multiwords.length > 0)
        this.fail(line.number, 'comment line inside a sentence (comments go before its first word line)');
      s.comments.push(text.slice(1).replace(/^ /, ''));
      const m = SENT_ID.exec(text);
      if (m) s.id = m[1].trim();
      return undefined;
    }
    const fields = text.split('\t');
    if (fields.length !== 10) this.fail(line.number, `expected 10 tab-separated columns, found ${fields.length}`);
    const s = this.open(line.number);
    const id = fields[0];
    if (INTEGER.test(id)) {
      const n = Number(id);
      if (n !== s.tokens.length + 1)
        this.fail(line.number, `word ID ${n} out of order: expected ${s.tokens.length + 1}`);
      const head = fields[6];
      if (head !== '_' && head !== '0' && !INTEGER.test(head))
        this.fail(line.number, `HEAD '${head}' is not an integer`);
      s.tokens.push({
        id: n,
        form: fields[1],
        lemma: fields[2],
        upos: fields[3],
        xpos: fields[4],
        feats: fields[5],
        head: head === '_' ? null : Number(head),
        deprel: fields[7],
        deps: fields[8],
        misc: fields[9],
        line: line.number,
      });
      return undefined;
    }
    const range = RANGE.exec(id);
    if (range) {
      const first = Number(range[1]);
      const last = Number(range[2]);
      if (last < first) this.fail(line.number, `multiword range '${id}' ends before it starts`);
      if (first !== s.tokens.length + 1)
        this.fail(line.number, `multiword range '${id}' out of order: the next word is ${s.tokens.length + 1}`);
      s.multiwords.push({ first, last, form: fields[1], misc: fields[9], line: line.number });
      return undefined;
    }
    if (DECIMAL.test(id)) {
      s.emptyNodes++;
      return undefined;
    }
    return this.fail(line.number, `ID '${id}' is not an integer, a range (3-4) or an empty node (5.1)`);
  }

  flush(): ConlluSentence | undefined {
    const s = this.current;
    if (!s) return undefined;
    this.current = undefined;
    if (s.tokens.length === 0) this.fail(s.line, 'sentence has no word lines');
    const n = s.tokens.length;
    for (const mw of s.multiwords) {
      if (mw.last > n)
        this.fail(mw.line, `multiword range ${mw.first}-${mw.last} goes past the sentence's last word ${n}`);
    }
    this.sentences++;
    return s;
  }

  finish(lines: number): ConlluSentence | undefined {
    const last = this.flush();
    if (this.sentences === 0)
      throw new InputError(this.file, undefined, lines === 0 ? 'empty file' : 'no sentences in file');
    return last;
  }
}

/**
 * Streams the sentences of a CoNLL-U file.
 *
 * @example
 * ```ts
 * for await (const s of readConllu('en_ewt-ud-dev.conllu')) console.log(s.tokens.length);
 * ```
 */
export async function* readConllu(file: string): AsyncGenerator<ConlluSentence> {
  const assembler = new ConlluAssembler(file);
  let lines = 0;
  for await (const line of readLines(file)) {
    lines = line.number;
    const s = assembler.push(line);
    if (s) yield s;
  }
  const last = assembler.finish(lines);
  if (last) yield last;
}

/**
 * Reads a whole CoNLL-U file synchronously.
 *
 * @example
 * ```ts
 * const sentences = readConlluSync('en_ewt-ud-dev.conllu');
 * ```
 */
export function readConlluSync(file: string): ConlluSentence[] {
  const assembler = new ConlluAssembler(file);
  const out: ConlluSentence[] = [];
  let lines = 0;
  for (const line of readLinesSync(file)) {
    lines = line.number;
    const s = assembler.push(line);
    if (s) out.push(s);
  }
  const last = assembler.finish(lines);
  if (last) out.push(last);
  return out;
}

import { z } from 'zod';
import { defineCommand } from './command.js';
import { claimOutputs } from './claim.js';
import { option } from '../options/field.js';
import { requiredFile } from '../options/common.js';
import { InputError, UsageError } from '../errors.js';
import { writeTextAtomic } from '../io/atomic-writer.js';
import { readTreebank } from '../io/treebank.js';
import { readConll } from '../io/conll.js';
import { CONLLU_FIELD_NAMES, conlluField, readConllu, type ConlluField } from '../io/conllu.js';
import { Progress } from '../progress.js';

type Format = 'trees' | 'conll' | 'conllu';

/** One sentence as named columns, and where it starts in the input. */
interface Sentence {
  rows: string[][];
  line: number;
}

/** A treebank's columns: the overt words (no -NONE- elements) and their part-of-speech tags. */
const TREE_COLUMNS = ['word', 'pos'];

/** The CoNLL-U field a column name goes to: CoNLL-U's own names, `word` for FORM, a treebank's `pos` for XPOS. */
function fieldOfColumn(name: string): ConlluField | undefined {
  return name === 'pos' ? 'xpos' : conlluField(name);
}

const CONLLU_ORDER: readonly ConlluField[] = ['form', 'lemma', 'upos', 'xpos', 'feats', 'deprel'];

function parseColumnNames(spec: string | undefined): string[] | undefined {
  if (spec === undefined) return undefined;
  const names = spec.split(',').map((c) => c.trim());
  if (names.some((c) => c === '') || new Set(names).size !== names.length)
    throw new UsageError('convert: --columns must be distinct non-empty names');
  return names;
}

/** The input's sentences as rows of `columns` (the treebank's, the chosen CoNLL-U fields, or the CoNLL file's). */
async function* sentencesOf(
  from: Format,
  input: string,
  columns: string[],
  separator: 'whitespace' | 'tab',
): AsyncGenerator<Sentence> {
  if (from === 'trees') {
    for await (const { tree, line } of readTreebank(input)) {
      const rows: string[][] = [];
      const walk = (t: typeof tree): void => {
        if (t.word !== undefined) {
          if (t.label !== '-NONE-') rows.push([t.word, t.label]);
        } else for (const c of t.children) walk(c);
      };
      walk(tree);
      if (rows.length === 0) throw new InputError(input, line, 'tree has no words');
      yield { rows, line };
    }
    return;
  }
  if (from === 'conllu') {
    const fields = columns.map((c) => conlluField(c) as ConlluField);
    for await (const s of readConllu(input)) {
      if (s.tokens.length === 0) continue;
      yield { rows: s.tokens.map((t) => fields.map((f) => t[f])), line: s.line };
    }
    return;
  }
  for await (const s of readConll(input, { separator, columns: columns.length })) yield { rows: s.rows, line: s.line };
}

/** Refuses a field a whitespace-separated output could not read back (a word with a space in it). */
function checkField(input: string, line: number, value: string, separator: 'whitespace' | 'tab'): void {
  if (value === '') throw new InputError(input, line, 'empty field');
  if (separator === 'tab' ? value.includes('\t') : /\s/.test(value)) {
    throw new InputError(
      input,
      line,
      `'${value}' contains ${separator === 'tab' ? 'a tab' : 'whitespace'}: it cannot be one column of the output${separator === 'tab' ? '' : ' (use --separator tab)'}`,
    );
  }
}

const command = defineCommand({
  description: `Converts between the corpus formats structrank reads: bracketed treebanks (trees), CoNLL
column files (conll), CoNLL-U (conllu) and tokenized text (text: one sentence per line,
tokens separated by spaces, as parse reads it).

trees to conll, conllu or text: the overt words and their part-of-speech tags (columns
word,pos; in CoNLL-U, FORM and XPOS); -NONE- elements are dropped.

conllu to conll or text: the fields named by --columns (default word,upos) of every syntactic
word; comments, multiword ranges and empty nodes are dropped.

conll to conllu or text: --columns names the file's columns; word goes to FORM, the names of
CoNLL-U fields (lemma, upos, xpos, feats, deprel; pos = xpos) to theirs, other columns are
dropped; HEAD and DEPS are '_'.

Trees cannot be made from columns (they have no brackets). The output is written whole or
not at all; bad input is an error naming the file and line.`,
  options: {
    from: option(z.enum(['trees', 'conll', 'conllu']), 'the input format'),
    to: option(z.enum(['conll', 'conllu', 'text']), 'the output format'),
    input: requiredFile('the corpus to convert (- = standard input)'),
    out: option(z.string().min(1).default('-'), 'the output file (- = standard output)', { value: 'F' }),
    columns: option(
      z.string().optional(),
      'conll input: the names of its columns (required); conllu input: the fields to write among word (= form), lemma, upos, xpos, feats, deprel (default word,upos)',
      { value: 'A,B,...' },
    ),
    separator: option(
      z.enum(['whitespace', 'tab']).default('whitespace'),
      'column separator of CoNLL input and output (whitespace: written as one space)',
    ),
  },
  examples: [
    'structrank convert --from trees --to conll --input data/gum-open/train.mrg --out gum-train.conll',
    'structrank convert --from conllu --to conll --columns word,upos --input en_ewt-ud-train.conllu --out ewt-train.conll',
    'structrank convert --from conll --to conllu --columns word,xpos --input gum-train.conll --out gum-train.conllu',
    'structrank convert --from trees --to text --input data/gum-open/test.mrg --out gum-test.txt',
  ],
  async run(values) {
    const { from, to, input, out, separator } = values;
    claimOutputs('convert', { '--input': input }, { '--out': out });
    if (from === to) throw new UsageError(`convert: --from and --to are both ${from}`);
    let columns = parseColumnNames(values.columns);
    if (from === 'trees') {
      if (columns !== undefined)
        throw new UsageError('convert: --columns does not apply to --from trees (its columns are word,pos)');
      columns = TREE_COLUMNS;
    } else if (from === 'conllu') {
      columns ??= ['word', 'upos'];
      const bad = columns.find((c) => conlluField(c) === undefined);
      if (bad !== undefined)
        throw new UsageError(
          `convert: with --from conllu, --columns names fields among ${CONLLU_FIELD_NAMES}; got '${bad}'`,
        );
    } else if (columns === undefined)
      throw new UsageError('convert: --from conll needs --columns (the names of its columns, e.g. word,pos)');
    const names = columns;
    const wordIndex = names.findIndex((c) => conlluField(c) === 'form');
    if ((to === 'text' || to === 'conllu') && wordIndex < 0)
      throw new UsageError(`convert: --to ${to} needs a word column among --columns`);
    // CoNLL-U: each of its fields from the column of that name, '_' where none.
    const fieldColumns = CONLLU_ORDER.map((f) => names.findIndex((c) => fieldOfColumn(c) === f));
    const sep = separator === 'tab' ? '\t' : ' ';
    const progress = new Progress({ label: 'convert', unit: 'sentences' });
    let count = 0;
    async function* lines(): AsyncGenerator<string> {
      for await (const s of sentencesOf(from, input, names, separator)) {
        count++;
        progress.update(count);
        if (to === 'text') {
          for (const r of s.rows) checkField(input, s.line, r[wordIndex], 'whitespace');
          yield s.rows.map((r) => r[wordIndex]).join(' ') + '\n';
        } else if (to === 'conll') {
          for (const r of s.rows) for (const v of r) checkField(input, s.line, v, separator);
          yield s.rows.map((r) => r.join(sep)).join('\n') + '\n\n';
        } else {
          const words = s.rows.map((r, i) => {
            for (const v of r) checkField(input, s.line, v, 'tab');
            const f = fieldColumns.map((c) => (c < 0 ? '_' : r[c]));
            return [String(i + 1), f[0], f[1], f[2], f[3], f[4], '_', f[5], '_', '_'].join('\t');
          });
          yield `# sent_id = ${count}\n${words.join('\n')}\n\n`;
        }
      }
      if (count === 0) throw new InputError(input, undefined, 'no sentences in file');
    }
    await writeTextAtomic(out, lines());
    progress.finish();
    if (out !== '-') console.error(`convert: ${count} sentences, ${from} -> ${to}: ${out}`);
  },
});
export default command;

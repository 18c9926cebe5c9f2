/**
 * Tags a CoNLL-U file (Universal Dependencies) and writes it back as CoNLL-U: every line as
 * it was (comments, multiword-token ranges, empty nodes), with the predicted label in its own
 * field on each word line (`upos`, `xpos`, ...). A label that is no CoNLL-U field (an entity
 * or chunk tag) goes to MISC as `label=TAG`, the place UD keeps other annotation. The tagger
 * reads the fields its input columns name (`word` is FORM).
 */
import { UsageError } from '../errors.js';
import { AtomicFile } from '../io/atomic-writer.js';
import {
  CONLLU_FIELDS,
  CONLLU_FIELD_NAMES,
  CONLLU_MISC_COLUMN,
  ConlluAssembler,
  conlluField,
  conlluRows,
  isConlluWordLine,
  type ConlluField,
  type ConlluSentence,
} from '../io/conllu.js';
import { readLines } from '../io/lines.js';
import { formatNbestLine, type NbestSentence } from '../io/nbest.js';
import type { Tagger } from './tagger.js';

export interface TagConlluOptions {
  input: string;
  /** Output file; undefined: standard output. */
  out?: string;
  /** With `outNbest`: also write the `nbest` best tag sequences of each sentence. */
  nbest?: number;
  outNbest?: string;
  threads: number;
  signal?: AbortSignal;
}

/** Sentences tagged at a time. */
const BATCH = 500;

interface Pending {
  lines: string[];
  sentence: ConlluSentence;
}

/** Where a tagger's input columns and its label live in a CoNLL-U word line. */
function conlluLayout(tagger: Tagger): { inputs: ConlluField[]; label: ConlluField | undefined } {
  const { inputColumns, label } = tagger.meta;
  const inputs = inputColumns.map((name) => {
    const field = conlluField(name);
    if (field === undefined)
      throw new UsageError(
        `tag: the model reads a column '${name}', which is no CoNLL-U field (${CONLLU_FIELD_NAMES}); give CoNLL columns with --format conll`,
      );
    return field;
  });
  return { inputs, label: conlluField(label) };
}

/** A word line with `tag` written into the label's field, or into MISC as `name=tag`. */
function withLabel(line: string, tag: string, labelField: ConlluField | undefined, labelName: string): string {
  const fields = line.split('\t');
  if (labelField !== undefined) fields[CONLLU_FIELDS[labelField]] = tag;
  else {
    const misc =
      fields[CONLLU_MISC_COLUMN] === '_'
        ? []
        : fields[CONLLU_MISC_COLUMN].split('|').filter((a) => !a.startsWith(`${labelName}=`));
    fields[CONLLU_MISC_COLUMN] = [...misc, `${labelName}=${tag}`].join('|');
  }
  return fields.join('\t');
}

/** Tags `input` into `out` (and the n-best lists into `outNbest`), each written atomically. */
export async function tagConllu(tagger: Tagger, options: TagConlluOptions): Promise<void> {
  const { input, threads, signal } = options;
  const nbest = options.outNbest !== undefined ? (options.nbest ?? 0) : 0;
  const layout = conlluLayout(tagger);
  const labelName = tagger.meta.label;
  const rowsOf = (s: ConlluSentence): string[][] => conlluRows(s, layout.inputs);

  const out = await AtomicFile.open(options.out ?? '-');
  let nbestOut: AtomicFile | undefined;
  try {
    if (options.outNbest !== undefined) nbestOut = await AtomicFile.open(options.outNbest);
  } catch (err) {
    await out.discard();
    throw err;
  }
  let sentenceId = 0;
  let batch: Pending[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const rows = batch.map((p) => rowsOf(p.sentence));
    const tags = await tagger.tag(rows, { threads, signal });
    const text: string[] = [];
    batch.forEach((p, s) => {
      let i = 0;
      for (const line of p.lines)
        text.push(isConlluWordLine(line) ? withLabel(line, tags[s][i++], layout.label, labelName) : line);
    });
    await out.write(`${text.join('\n')}\n`);
    if (nbestOut) {
      const lists = await tagger.tagNbest(rows, nbest, { threads, signal });
      const json = batch.map((p, s) => {
        const record: NbestSentence = {
          id: `s${++sentenceId}`,
          tokens: p.sentence.tokens.map((t) => t.form),
          candidates: lists[s],
          line: p.sentence.line,
        };
        const gold =
          layout.label !== undefined ? p.sentence.tokens.map((t) => t[layout.label as ConlluField]) : undefined;
        if (gold !== undefined && gold.some((g) => g !== '_')) record.gold = gold;
        return formatNbestLine(record);
      });
      await nbestOut.write(`${json.join('\n')}\n`);
    }
    batch = [];
  };

  const assembler = new ConlluAssembler(input);
  let lines: string[] = [];
  let lineCount = 0;
  const take = async (sentence: ConlluSentence | undefined): Promise<void> => {
    if (sentence === undefined) return;
    batch.push({ lines, sentence });
    lines = [];
    if (batch.length >= BATCH) await flush();
  };
  try {
    for await (const line of readLines(input)) {
      lineCount = line.number;
      const done = assembler.push(line);
      // The blank line that ends a sentence is written after it (flush joins with newlines).
      if (done !== undefined) {
        lines.push(line.text);
        await take(done);
      } else if (line.text.trim() === '') {
        // A blank line outside a sentence: kept where it is.
        if (batch.length > 0) batch[batch.length - 1].lines.push(line.text);
        else await out.write(`${line.text}\n`);
      } else {
        lines.push(line.text);
      }
    }
    await take(assembler.finish(lineCount));
    await flush();
    await out.commit();
    await nbestOut?.commit();
  } catch (err) {
    await out.discard();
    await nbestOut?.discard();
    throw err;
  }
}

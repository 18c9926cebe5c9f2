/**
 * Reading CoNLL files for evaluation: `-DOCSTART-` lines stay tokens (as conlleval counts
 * them), and a gold and a test file are walked together, sentence by sentence, refusing
 * files that do not align token by token.
 */
import { InputError } from '../errors.js';
import { ConllAssembler, type ConllSentence } from '../io/conll.js';
import { readLines } from '../io/lines.js';
import { readConllu, type ConlluField } from '../io/conllu.js';

/** A sentence and whether a blank line follows it (conlleval treats that line as a boundary). */
export interface EvalSentence extends ConllSentence {
  blankAfter: boolean;
  /** Each row's line, where rows are not consecutive lines (CoNLL-U); else `line + i`. */
  rowLines?: number[];
}

const rowLine = (s: EvalSentence, i: number): number => s.rowLines?.[i] ?? s.line + i;

/** Streams a CoNLL-U file's sentences as rows of (form, one field's value), for scoring that field. */
export async function* readConlluField(file: string, field: ConlluField): AsyncGenerator<EvalSentence> {
  for await (const s of readConllu(file)) {
    yield {
      rows: s.tokens.map((t) => [t.form, t[field]]),
      line: s.line,
      blankAfter: true,
      rowLines: s.tokens.map((t) => t.line),
    };
  }
}

/** Streams a CoNLL file's sentences, requiring at least `minColumns` columns per token line. */
export async function* readConllTokens(file: string, minColumns = 1): AsyncGenerator<EvalSentence> {
  const assembler = new ConllAssembler(file, { keepDocstart: true });
  const check = (s: ConllSentence, blankAfter: boolean): EvalSentence => {
    const width = s.rows[0].length;
    if (width < minColumns) {
      throw new InputError(
        file,
        s.line,
        `expected at least ${minColumns} columns (the last ${minColumns} are the gold and predicted tags), found ${width}`,
      );
    }
    return { rows: s.rows, line: s.line, blankAfter };
  };
  let lines = 0;
  for await (const line of readLines(file)) {
    lines++;
    // With keepDocstart only a blank line completes a sentence.
    const s = assembler.push(line);
    if (s) yield check(s, true);
  }
  const last = assembler.flush();
  if (last) yield check(last, false);
  if (lines === 0) throw new InputError(file, undefined, 'empty file');
}

export interface AlignedSentence {
  gold: EvalSentence;
  test: EvalSentence;
}

/**
 * Walks two CoNLL files together. Sentences must have the same number of tokens and, when
 * both files have a word column before the tag, the same words.
 */
export async function* alignedConll(goldFile: string, testFile: string): AsyncGenerator<AlignedSentence> {
  yield* alignedSentences(goldFile, testFile, readConllTokens);
}

/** Walks two CoNLL-U files together: rows of (form, `field`), aligned as alignedConll requires. */
export async function* alignedConllu(
  goldFile: string,
  testFile: string,
  field: ConlluField,
): AsyncGenerator<AlignedSentence> {
  yield* alignedSentences(goldFile, testFile, (file) => readConlluField(file, field));
}

async function* alignedSentences(
  goldFile: string,
  testFile: string,
  read: (file: string) => AsyncGenerator<EvalSentence>,
): AsyncGenerator<AlignedSentence> {
  const goldIt = read(goldFile)[Symbol.asyncIterator]();
  const testIt = read(testFile)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const [g, t] = await Promise.all([goldIt.next(), testIt.next()]);
      if (g.done && t.done) return;
      if (g.done) {
        const ts = t.value as EvalSentence;
        throw new InputError(testFile, ts.line, `sentence has no counterpart: ${goldFile} ended before it`);
      }
      if (t.done) {
        throw new InputError(
          testFile,
          undefined,
          `ended early: the gold sentence at ${goldFile}:${g.value.line} has no counterpart`,
        );
      }
      const gold = g.value;
      const test = t.value as EvalSentence;
      const n = Math.min(gold.rows.length, test.rows.length);
      for (let i = 0; i < n; i++) {
        const gr = gold.rows[i];
        const tr = test.rows[i];
        if (gr.length > 1 && tr.length > 1 && gr[0] !== tr[0]) {
          throw new InputError(
            testFile,
            rowLine(test, i),
            `token '${tr[0]}' does not match the gold token '${gr[0]}' (${goldFile}:${rowLine(gold, i)}); the files are not aligned`,
          );
        }
      }
      if (gold.rows.length !== test.rows.length) {
        throw new InputError(
          testFile,
          n < test.rows.length ? rowLine(test, n) : rowLine(test, n - 1) + 1,
          `sentence has ${test.rows.length} tokens but the gold sentence (${goldFile}:${gold.line}) has ${gold.rows.length}; the files are not aligned`,
        );
      }
      yield { gold, test };
    }
  } finally {
    await Promise.allSettled([goldIt.return?.(undefined), testIt.return?.(undefined)]);
  }
}

/**
 * Reading CoNLL files for evaluation: `-DOCSTART-` lines stay tokens (as conlleval counts
 * them), and a gold and a test file are walked together, sentence by sentence, refusing
 * files that do not align token by token.
 */
import { InputError } from '../errors.js';
import { ConllAssembler, type ConllSentence } from '../io/conll.js';
import { readLines } from '../io/lines.js';

/** A sentence and whether a blank line follows it (conlleval treats that line as a boundary). */
export interface EvalSentence extends ConllSentence {
  blankAfter: boolean;
}

/** Streams a CoNLL file's sentences, requiring at least `minColumns` columns per token line. */
export async function* readConllTokens(file: string, minColumns = 1): AsyncGenerator<EvalSentence> {
  const assembler = new ConllAssembler(file, { keepDocstart: true });
  const check = (s: ConllSentence, blankAfter: boolean): EvalSentence => {
    const width = s.rows[0].length;
    if (width < minColumns) {
      throw new InputError(file, s.line, `expected at least ${minColumns} columns (the last ${minColumns} are the gold and predicted tags), found ${width}`);
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
  const goldIt = readConllTokens(goldFile)[Symbol.asyncIterator]();
  const testIt = readConllTokens(testFile)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const [g, t] = await Promise.all([goldIt.next(), testIt.next()]);
      if (g.done && t.done) return;
      if (g.done) {
        const ts = t.value as EvalSentence;
        throw new InputError(testFile, ts.line, `sentence has no counterpart: ${goldFile} ended before it`);
      }
      if (t.done) {
        throw new InputError(testFile, undefined, `ended early: the gold sentence at ${goldFile}:${g.value.line} has no counterpart`);
      }
      const gold = g.value;
      const test = t.value as EvalSentence;
      const n = Math.min(gold.rows.length, test.rows.length);
      for (let i = 0; i < n; i++) {
        const gr = gold.rows[i];
        const tr = test.rows[i];
        if (gr.length > 1 && tr.length > 1 && gr[0] !== tr[0]) {
          throw new InputError(testFile, test.line + i, `token '${tr[0]}' does not match the gold token '${gr[0]}' (${goldFile}:${gold.line + i}); the files are not aligned`);
        }
      }
      if (gold.rows.length !== test.rows.length) {
        throw new InputError(
          testFile,
          test.line + n,
          `sentence has ${test.rows.length} tokens but the gold sentence (${goldFile}:${gold.line}) has ${gold.rows.length}; the files are not aligned`,
        );
      }
      yield { gold, test };
    }
  } finally {
    await Promise.allSettled([goldIt.return?.(undefined), testIt.return?.(undefined)]);
  }
}

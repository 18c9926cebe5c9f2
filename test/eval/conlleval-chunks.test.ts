import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  chunkCounts,
  chunkSpans,
  conllevalCorpus,
  formatConllevalReport,
  splitTag,
  type ChunkScheme,
  type ChunkSpan,
} from '../../lib/eval/conlleval.js';
import { evalChunkFiles } from '../../lib/eval/chunk-files.js';
import { readConllSync } from '../../lib/io/conll.js';
import { dataFile, itWithData, runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** Writes `word gold guess` lines; sentences separated by blank lines. */
function conllFile(name: string, text: string): string {
  return tmp.file(
    name,
    text.replace(/^\s+/gm, (m) => (m.includes('\n') ? '\n' : '')),
  );
}

describe('splitTag', () => {
  it('splits at the first hyphen', () => {
    expect(splitTag('B-NP')).toEqual({ prefix: 'B', type: 'NP' });
    expect(splitTag('I-B-X')).toEqual({ prefix: 'I', type: 'B-X' });
    expect(splitTag('O')).toEqual({ prefix: 'O', type: '' });
  });
});

describe('conlleval semantics, hand-computed', () => {
  it('IOB2 with a type mismatch and an I- after another type', async () => {
    // gold: NP[1-2] VP[3] NP[5-6]; guess: NP[1-2] VP[3] PP[5] NP[6] (I-NP after B-PP opens a chunk)
    const f = conllFile(
      'a.txt',
      `w1 B-NP B-NP
       w2 I-NP I-NP
       w3 B-VP B-VP
       w4 O O
       w5 B-NP B-PP
       w6 I-NP I-NP
       `,
    );
    const r = await evalChunkFiles({ file: f });
    expect(r.overall).toEqual({
      tokens: 6,
      goldChunks: 3,
      predictedChunks: 4,
      correctChunks: 2,
      accuracy: (100 * 5) / 6,
      precision: 50,
      recall: (100 * 2) / 3,
      f1: (2 * 50 * (200 / 3)) / (50 + 200 / 3),
    });
    expect(r.byType.NP).toEqual({ gold: 2, predicted: 2, correct: 1, precision: 50, recall: 50, f1: 50 });
    expect(r.byType.VP).toEqual({ gold: 1, predicted: 1, correct: 1, precision: 100, recall: 100, f1: 100 });
    expect(r.byType.PP).toEqual({ gold: 0, predicted: 1, correct: 0, precision: 0, recall: 0, f1: 0 });
    expect(Object.keys(r.byType)).toEqual(['NP', 'PP', 'VP']);
    expect(formatConllevalReport(r)).toBe(
      'processed 6 tokens with 3 phrases; found: 4 phrases; correct: 2.\n' +
        'accuracy:  83.33%; precision:  50.00%; recall:  66.67%; FB1:  57.14\n' +
        '               NP: precision:  50.00%; recall:  50.00%; FB1:  50.00  2\n' +
        '               PP: precision:   0.00%; recall:   0.00%; FB1:   0.00  1\n' +
        '               VP: precision: 100.00%; recall: 100.00%; FB1: 100.00  1\n',
    );
  });

  it('IOB1: an I- after O opens a chunk, B- only separates same-type neighbours', () => {
    // gold NP[2-3]; guess NP[2] NP[3]
    expect(chunkCounts(['O', 'I-NP', 'I-NP', 'O'], ['O', 'I-NP', 'B-NP', 'O'], 'iob1')).toEqual({
      correct: 0,
      gold: 1,
      predicted: 2,
    });
    expect(chunkSpans(['I-NP', 'I-NP', 'B-NP', 'I-VP', 'O', 'I-PP'], 'iob1')).toEqual([
      { type: 'NP', start: 0, end: 2 },
      { type: 'NP', start: 2, end: 3 },
      { type: 'VP', start: 3, end: 4 },
      { type: 'PP', start: 5, end: 6 },
    ]);
    // IOB1 and the same chunks in IOB2 score alike
    const iob1 = { gold: ['I-NP', 'I-NP', 'B-NP', 'I-VP', 'O'], predicted: ['I-NP', 'I-NP', 'I-NP', 'I-VP', 'O'] };
    const iob2 = { gold: ['B-NP', 'I-NP', 'B-NP', 'B-VP', 'O'], predicted: ['B-NP', 'I-NP', 'I-NP', 'B-VP', 'O'] };
    const r1 = conllevalCorpus([iob1], { scheme: 'iob1' });
    const r2 = conllevalCorpus([iob2], { scheme: 'iob2' });
    expect(r1.overall.correctChunks).toBe(1);
    expect(r1.overall.goldChunks).toBe(3);
    expect(r1.overall.predictedChunks).toBe(2);
    expect({ ...r1.overall, accuracy: 0 }).toEqual({ ...r2.overall, accuracy: 0 });
    expect(r1.byType).toEqual(r2.byType);
  });

  it('B- followed by I- of another type: two gold chunks, neither matched by one long guess', () => {
    expect(chunkSpans(['B-NP', 'I-VP'])).toEqual([
      { type: 'NP', start: 0, end: 1 },
      { type: 'VP', start: 1, end: 2 },
    ]);
    expect(chunkCounts(['B-NP', 'I-VP'], ['B-NP', 'I-NP'])).toEqual({ correct: 0, gold: 2, predicted: 1 });
    expect(chunkCounts(['B-NP', 'I-VP'], ['B-NP', 'B-VP'])).toEqual({ correct: 2, gold: 2, predicted: 2 });
  });

  it('a chunk at sentence end is closed by the blank line; an I- after it opens a new chunk', async () => {
    const two = conllFile('end2.txt', 'a O O\nb B-NP B-NP\n\nc I-NP I-NP\nd O O\n');
    const one = conllFile('end1.txt', 'a O O\nb B-NP B-NP\nc I-NP I-NP\nd O O\n');
    expect((await evalChunkFiles({ file: two })).overall).toMatchObject({
      tokens: 4,
      goldChunks: 2,
      predictedChunks: 2,
      correctChunks: 2,
    });
    expect((await evalChunkFiles({ file: one })).overall).toMatchObject({
      tokens: 4,
      goldChunks: 1,
      predictedChunks: 1,
      correctChunks: 1,
    });
    // a chunk running to the last line of a file without a final newline still counts
    const last = conllFile('end3.txt', 'a B-NP B-NP\nb I-NP I-NP');
    expect((await evalChunkFiles({ file: last })).overall).toMatchObject({
      tokens: 2,
      goldChunks: 1,
      correctChunks: 1,
    });
    // a guess that runs on while gold ends at the sentence's last token
    expect(chunkCounts(['O', 'B-NP'], ['O', 'B-NP'])).toEqual({ correct: 1, gold: 1, predicted: 1 });
    expect(chunkCounts(['B-NP', 'O'], ['B-NP', 'I-NP'])).toEqual({ correct: 0, gold: 1, predicted: 1 });
  });

  it('-X- lines are sentence boundaries, not tokens', async () => {
    const x = conllFile('x.txt', 'a B-NP B-NP\n-X- I-NP I-NP\nb I-NP I-NP\n');
    expect((await evalChunkFiles({ file: x })).overall).toMatchObject({
      tokens: 2,
      goldChunks: 2,
      predictedChunks: 2,
      correctChunks: 2,
      accuracy: 100,
    });
    const api = conllevalCorpus([
      { words: ['a', '-X-', 'b'], gold: ['B-NP', 'I-NP', 'I-NP'], predicted: ['B-NP', 'I-NP', 'I-NP'] },
    ]);
    expect(api.overall).toMatchObject({ tokens: 2, goldChunks: 2, correctChunks: 2 });
    const y = conllFile('y.txt', 'a B-NP B-NP\n-Y- I-NP I-NP\nb I-NP I-NP\n');
    expect((await evalChunkFiles({ file: y })).overall).toMatchObject({
      tokens: 3,
      goldChunks: 1,
      predictedChunks: 1,
      correctChunks: 1,
    });
  });

  it('end of input without a blank line closes a chunk differently from a blank line (odd prefixes)', async () => {
    // At b the guess has the unknown prefix '.', so conlleval's endOfChunk differs between gold
    // (I -> O ends) and guess ('.' -> O does not): a blank line makes the chunk wrong, while
    // end of input counts the chunk that was correct so far.
    const noBlank = conllFile('eof1.txt', 'a B-NP B-NP\nb I-NP .-NP\n');
    const blank = conllFile('eof2.txt', 'a B-NP B-NP\nb I-NP .-NP\n\n\n');
    expect((await evalChunkFiles({ file: noBlank })).overall.correctChunks).toBe(1);
    expect((await evalChunkFiles({ file: blank })).overall.correctChunks).toBe(0);
    const g1 = conllFile('eofg1.txt', 'a B-NP\nb I-NP\n');
    const t1 = conllFile('eoft1.txt', 'a B-NP\nb .-NP\n');
    const g2 = conllFile('eofg2.txt', 'a B-NP\nb I-NP\n\n');
    expect((await evalChunkFiles({ gold: g1, test: t1 })).overall.correctChunks).toBe(1);
    expect((await evalChunkFiles({ gold: g2, test: t1 })).overall.correctChunks).toBe(0);
  });

  it('-DOCSTART- is an ordinary token', async () => {
    const f = conllFile('doc.txt', '-DOCSTART- O O\n\na B-PER B-PER\nb O B-LOC\n');
    const r = await evalChunkFiles({ file: f });
    expect(r.overall).toEqual({
      tokens: 3,
      goldChunks: 1,
      predictedChunks: 2,
      correctChunks: 1,
      accuracy: 200 / 3,
      precision: 50,
      recall: 100,
      f1: 200 / 3,
    });
    expect(formatConllevalReport(r).split('\n')[1]).toBe(
      'accuracy:  66.67%; precision:  50.00%; recall: 100.00%; FB1:  66.67',
    );
  });

  it('rounds printed percentages like C printf (ties to even)', () => {
    // accuracy = 100 * 97 / 800 = 12.125 exactly: C prints 12.12, toFixed would print 12.13
    const gold = Array(800).fill('O');
    const predicted = gold.map((_, i) => (i < 97 ? 'O' : 'B-X'));
    const r = conllevalCorpus([{ gold, predicted }]);
    expect(r.overall.accuracy).toBe(12.125);
    expect(formatConllevalReport(r).split('\n')[1]).toMatch(/^accuracy:  12\.12%;/);
  });

  it('IOBES mode: S- and E- close, B- and S- open', () => {
    const tags = ['S-PER', 'S-PER', 'B-ORG', 'E-ORG', 'B-ORG', 'I-ORG', 'E-ORG', 'O', 'I-LOC', 'E-LOC'];
    expect(chunkSpans(tags, 'iobes')).toEqual([
      { type: 'PER', start: 0, end: 1 },
      { type: 'PER', start: 1, end: 2 },
      { type: 'ORG', start: 2, end: 4 },
      { type: 'ORG', start: 4, end: 7 },
      { type: 'LOC', start: 8, end: 10 },
    ]);
    // conlleval's own rules merge S-PER S-PER into one chunk; IOBES mode does not
    expect(chunkCounts(['S-PER', 'S-PER'], ['S-PER', 'S-PER'], 'iob2')).toEqual({ correct: 1, gold: 1, predicted: 1 });
    expect(chunkCounts(['S-PER', 'S-PER'], ['S-PER', 'S-PER'], 'iobes')).toEqual({ correct: 2, gold: 2, predicted: 2 });
    expect(chunkCounts(['B-ORG', 'E-ORG', 'O'], ['B-ORG', 'I-ORG', 'E-ORG'], 'iobes')).toEqual({
      correct: 0,
      gold: 1,
      predicted: 1,
    });
  });
});

/** Independent chunk definitions for brute-force checks. */
function bruteSpans(tags: string[], scheme: ChunkScheme): ChunkSpan[] {
  const spans: ChunkSpan[] = [];
  const parts = tags.map((t) => (t === 'O' ? { p: 'O', t: '' } : { p: t[0], t: t.slice(2) }));
  let i = 0;
  while (i < parts.length) {
    const { p, t } = parts[i];
    if (p === 'O') {
      i++;
      continue;
    }
    let j = i + 1;
    if (scheme === 'iobes') {
      if (p !== 'E' && p !== 'S') {
        while (j < parts.length && (parts[j].p === 'I' || parts[j].p === 'E') && parts[j].t === t) {
          j++;
          if (parts[j - 1].p === 'E') break;
        }
      }
    } else {
      while (j < parts.length && parts[j].p === 'I' && parts[j].t === t) j++;
    }
    spans.push({ type: t, start: i, end: j });
    i = j;
  }
  return spans;
}

function bruteCounts(gold: string[], pred: string[], scheme: ChunkScheme) {
  const g = bruteSpans(gold, scheme);
  const p = bruteSpans(pred, scheme);
  const key = (s: ChunkSpan) => `${s.type}:${s.start}:${s.end}`;
  const gs = new Set(g.map(key));
  return { correct: p.filter((s) => gs.has(key(s))).length, gold: g.length, predicted: p.length };
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('brute-force recounts', () => {
  it('random IOB and IOBES sequences: chunk counts equal span-set matching', () => {
    const rand = rng(7);
    for (const scheme of ['iob1', 'iob2', 'iobes'] as const) {
      const prefixes = scheme === 'iobes' ? ['B', 'I', 'E', 'S'] : ['B', 'I'];
      const tag = () =>
        rand() < 0.3 ? 'O' : `${prefixes[Math.floor(rand() * prefixes.length)]}-${rand() < 0.5 ? 'NP' : 'VP'}`;
      for (let k = 0; k < 3000; k++) {
        const n = 1 + Math.floor(rand() * 8);
        const gold = Array.from({ length: n }, tag);
        const pred = Array.from({ length: n }, tag);
        expect(chunkCounts(gold, pred, scheme), `${scheme} ${gold} | ${pred}`).toEqual(bruteCounts(gold, pred, scheme));
        expect(chunkSpans(gold, scheme)).toEqual(bruteSpans(gold, scheme));
      }
    }
  });

  itWithData(['conll2000'], 'conll2000 test: gold against itself is 100 F1 with 23852 chunks', async () => {
    const f = dataFile('conll2000', 'test.txt');
    const r = await evalChunkFiles({ gold: f, test: f });
    expect(r.overall).toEqual({
      tokens: 47377,
      goldChunks: 23852,
      predictedChunks: 23852,
      correctChunks: 23852,
      accuracy: 100,
      precision: 100,
      recall: 100,
      f1: 100,
    });
    expect(r.byType.NP.gold).toBe(12422);
  });

  itWithData(
    ['conll2000'],
    'conll2000 test with perturbed predictions: the report equals a brute-force recount, in IOB2 and in IOB1',
    async () => {
      const sentences = readConllSync(dataFile('conll2000', 'test.txt'));
      const rand = rng(11);
      const types = ['NP', 'VP', 'PP', 'ADJP'];
      const perturbed = sentences.map((s) =>
        s.rows.map((r) =>
          rand() < 0.1 ? (rand() < 0.3 ? 'O' : `${rand() < 0.5 ? 'B' : 'I'}-${types[Math.floor(rand() * 4)]}`) : r[2],
        ),
      );
      const goldTags = sentences.map((s) => s.rows.map((r) => r[2]));
      const lines: string[] = [];
      let correct = 0;
      let gold = 0;
      let predicted = 0;
      let tagsRight = 0;
      let tokens = 0;
      sentences.forEach((s, i) => {
        s.rows.forEach((r, j) => lines.push(`${r[0]} ${r[1]} ${r[2]} ${perturbed[i][j]}`));
        lines.push('');
        const c = bruteCounts(goldTags[i], perturbed[i], 'iob2');
        correct += c.correct;
        gold += c.gold;
        predicted += c.predicted;
        tokens += s.rows.length;
        tagsRight += goldTags[i].filter((t, j) => t === perturbed[i][j]).length;
      });
      const f = tmp.file('perturbed.txt', lines.join('\n'));
      const r = await evalChunkFiles({ file: f });
      expect(r.overall.tokens).toBe(tokens);
      expect(r.overall.correctChunks).toBe(correct);
      expect(r.overall.goldChunks).toBe(gold);
      expect(r.overall.predictedChunks).toBe(predicted);
      expect(r.overall.accuracy).toBe((100 * tagsRight) / tokens);
      expect(correct).toBeLessThan(gold);
      // the per-sentence counts add up to the corpus counts
      const sum = goldTags
        .map((g, i) => chunkCounts(g, perturbed[i]))
        .reduce((a, b) => ({
          correct: a.correct + b.correct,
          gold: a.gold + b.gold,
          predicted: a.predicted + b.predicted,
        }));
      expect(sum).toEqual({ correct, gold, predicted });
      // the same chunks written in IOB1 give the same chunk scores
      const toIob1 = (tags: string[]) => {
        const out = tags.map(() => 'O');
        let prevEnd = -1;
        let prevType = '';
        for (const s of chunkSpans(tags)) {
          for (let k = s.start; k < s.end; k++) out[k] = `I-${s.type}`;
          if (s.start === prevEnd && s.type === prevType) out[s.start] = `B-${s.type}`;
          prevEnd = s.end;
          prevType = s.type;
        }
        return out;
      };
      const r1 = conllevalCorpus(
        goldTags.map((g, i) => ({ gold: toIob1(g), predicted: toIob1(perturbed[i]) })),
        { scheme: 'iob1' },
      );
      expect({ ...r1.overall, accuracy: 0 }).toEqual({ ...r.overall, accuracy: 0 });
      expect(r1.byType).toEqual(r.byType);
    },
  );
});

describe('eval chunks CLI', () => {
  const gold = () => tmp.file('g.txt', 'He PRP B-NP\nran VBD B-VP\n\nOK UH B-INTJ\n');
  const test = () => tmp.file('t.txt', 'He PRP B-NP\nran VBD I-NP\n\nOK UH B-INTJ\n');

  it('prints conlleval text and the --json report', () => {
    const r = runCli(['eval', 'chunks', '--gold', gold(), '--test', test()]);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('processed 3 tokens with 3 phrases; found: 2 phrases; correct: 1.');
    const j = runCli(['eval', 'chunks', '--gold', gold(), '--test', test(), '--json']);
    const report = JSON.parse(j.stdout);
    expect(Object.keys(report)).toEqual(['overall', 'byType']);
    expect(Object.keys(report.overall)).toEqual([
      'tokens',
      'goldChunks',
      'predictedChunks',
      'correctChunks',
      'accuracy',
      'precision',
      'recall',
      'f1',
    ]);
    expect(report.overall).toMatchObject({
      tokens: 3,
      goldChunks: 3,
      predictedChunks: 2,
      correctChunks: 1,
      precision: 50,
    });
    expect(Object.keys(report.byType.NP)).toEqual(['gold', 'predicted', 'correct', 'precision', 'recall', 'f1']);
  });

  it('matches --file on the same data', () => {
    const both = tmp.file('gt.txt', 'He PRP B-NP B-NP\nran VBD B-VP I-NP\n\nOK UH B-INTJ B-INTJ\n');
    const a = runCli(['eval', 'chunks', '--file', both, '--json']);
    const b = runCli(['eval', 'chunks', '--gold', gold(), '--test', test(), '--json']);
    expect(a.stdout).toBe(b.stdout);
  });

  it.each([
    [
      'a sentence of different length',
      'He PRP B-NP\nran VBD I-NP\nfast RB O\n\nOK UH B-INTJ\n',
      /t2\.txt:3: sentence has 3 tokens but the gold sentence \(.*g\.txt:1\) has 2/,
    ],
    [
      'a different word',
      'He PRP B-NP\nwalked VBD I-NP\n\nOK UH B-INTJ\n',
      /t2\.txt:2: token 'walked' does not match the gold token 'ran'/,
    ],
    [
      'a missing sentence',
      'He PRP B-NP\nran VBD I-NP\n',
      /t2\.txt: ended early: the gold sentence at .*g\.txt:4 has no counterpart/,
    ],
    [
      'an extra sentence',
      'He PRP B-NP\nran VBD I-NP\n\nOK UH B-INTJ\n\nMore X O\n',
      /t2\.txt:6: sentence has no counterpart/,
    ],
    ['a wrong column count', 'He PRP B-NP\nran VBD\n\nOK UH B-INTJ\n', /t2\.txt:2: expected 3 columns, found 2/],
    ['an empty file', '', /t2\.txt: empty file/],
  ])('refuses a test file with %s', (_name, text, message) => {
    const r = runCli(['eval', 'chunks', '--gold', gold(), '--test', tmp.file('t2.txt', text)]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it('reports usage errors and missing files', () => {
    expect(runCli(['eval', 'chunks', '--gold', gold()]).stderr).toMatch(/missing required option --test/);
    expect(runCli(['eval', 'chunks', '--file', gold(), '--scheme', 'bio']).stderr).toMatch(
      /invalid value for --scheme: 'bio'/,
    );
    const one = runCli(['eval', 'chunks', '--file', tmp.file('one.txt', 'B-NP\n')]);
    expect(one.stderr).toMatch(/one\.txt:1: expected at least 2 columns/);
    const ragged = runCli(['eval', 'chunks', '--file', tmp.file('ragged.txt', 'a B-NP B-NP\n\nb O\n')]);
    expect(ragged.status).toBe(1);
    expect(ragged.stderr).toMatch(/ragged\.txt:3: expected 3 columns, found 2/);
    const utf = runCli([
      'eval',
      'chunks',
      '--file',
      tmp.file(
        'utf.txt',
        Buffer.concat([Buffer.from('a O O\n'), Buffer.from([0x62, 0xe9, 0x20, 0x4f, 0x20, 0x4f, 0x0a])]),
      ),
    ]);
    expect(utf.stderr).toMatch(/utf\.txt:2: invalid UTF-8/);
    expect(runCli(['eval', 'chunks', '--file', tmp.file('empty.txt', '')]).stderr).toMatch(/empty\.txt: empty file/);
    expect(runCli(['eval', 'chunks', '--file', gold(), '--gold', gold()]).stderr).toMatch(
      /either --file, or --gold and --test/,
    );
    const missing = runCli(['eval', 'chunks', '--gold', gold(), '--test', tmp.dir + '/nope.txt']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/nope\.txt: no such file/);
  });

  itWithData(['conll2002-esp'], 'gives conll2002 esp.testa 100 F1 against itself', () => {
    const f = dataFile('conll2002-esp', 'esp.testa');
    const r = JSON.parse(runCli(['eval', 'chunks', '--gold', f, '--test', f, '--json']).stdout);
    expect(r.overall).toMatchObject({ tokens: 52923, f1: 100 });
    expect(Object.keys(r.byType)).toEqual(['LOC', 'MISC', 'ORG', 'PER']);
    expect(readFileSync(f, 'utf8').length).toBeGreaterThan(0);
  });
});

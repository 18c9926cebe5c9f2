import { afterAll, describe, expect, it } from 'vitest';
import { readParseSentences } from '../../lib/eval/parse-files.js';
import { evalbFiles } from '../../lib/eval/parse-files.js';
import { formatTree } from '../../lib/trees/tree.js';
import { dataFile, describeWithData, runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const SUMMARY_FIELDS = [
  'sentences',
  'errorSentences',
  'skippedSentences',
  'validSentences',
  'recall',
  'precision',
  'f1',
  'exactMatch',
  'averageCrossing',
  'zeroCrossing',
  'twoOrLessCrossing',
  'taggingAccuracy',
  'matchedBrackets',
  'goldBrackets',
  'testBrackets',
];

async function sentences(file: string, emptyParses = false) {
  const out: { trees: string[]; line: number }[] = [];
  for await (const s of readParseSentences(file, { emptyParses }))
    out.push({ trees: s.trees.map(formatTree), line: s.line });
  return out;
}

describe('reading sentences for eval parse', () => {
  it('treats blank lines and (()) in a one-tree-per-line test file as failed parses', async () => {
    const t = tmp.file('t1.tst', '(S (NN a))\n\n(())\n()\n(S (NN b)) \n\n\n');
    expect(await sentences(t, true)).toEqual([
      { trees: ['(S (NN a))'], line: 1 },
      { trees: [], line: 2 },
      { trees: [], line: 3 },
      { trees: [], line: 4 },
      { trees: ['(S (NN b))'], line: 5 },
    ]);
    // The gold side ignores blank lines.
    expect((await sentences(tmp.file('t1.gld', '(S (NN a))\n\n(S (NN b))\n'))).map((s) => s.line)).toEqual([1, 3]);
  });

  it('reads trees spread over lines, ignoring blank separators', async () => {
    const t = tmp.file('t2.tst', '\n(S\n  (NN a))\n\n(S (NN b)\n)\n\n(S (NN c))\n');
    expect(await sentences(t, true)).toEqual([
      { trees: ['(S (NN a))'], line: 2 },
      { trees: ['(S (NN b))'], line: 5 },
      { trees: ['(S (NN c))'], line: 8 },
    ]);
  });

  it('scores a multi-line test file against a one-line gold file', async () => {
    const gold = tmp.file('m.gld', '(S (NP (DT a) (NN b)) (VP (VB c)))\n(S (NP (NN d)) (VP (VB e)))\n');
    const test = tmp.file('m.tst', '( (S\n    (NP (DT a) (NN b))\n    (VP (VB c))))\n\n(S (NP (NN d)) (VP (VB e)))\n');
    const r = await evalbFiles(gold, test);
    expect([r.all.sentences, r.all.matchedBrackets, r.all.goldBrackets, r.all.testBrackets]).toEqual([2, 6, 6, 7]);
  });
});

describe('structrank eval parse', () => {
  describeWithData(['ptb-sample'], 'on ptb-sample test.mrg', () => {
    const ptbTest = dataFile('ptb-sample', 'test.mrg');

    it('gives 100 for ptb-sample test.mrg against itself, with exactly the documented JSON fields', () => {
      const r = runCli(['eval', 'parse', '--gold', ptbTest, '--test', ptbTest, '--json']);
      expect(r.status).toBe(0);
      expect(r.stderr).toBe('');
      const j = JSON.parse(r.stdout);
      expect(Object.keys(j)).toEqual(['all', 'cutoff', 'byLabel']);
      expect(Object.keys(j.all)).toEqual(SUMMARY_FIELDS);
      expect(Object.keys(j.cutoff)).toEqual(SUMMARY_FIELDS);
      expect(j.all).toMatchObject({
        sentences: 245,
        errorSentences: 0,
        skippedSentences: 0,
        validSentences: 245,
        recall: 100,
        precision: 100,
        f1: 100,
        exactMatch: 100,
        averageCrossing: 0,
        zeroCrossing: 100,
        twoOrLessCrossing: 100,
        taggingAccuracy: 100,
      });
      expect(j.all.goldBrackets).toBe(j.all.testBrackets);
      expect(j.cutoff.sentences).toBeLessThan(245);
      expect(j.cutoff.f1).toBe(100);
      expect(Object.keys(j.byLabel.NP)).toEqual(['gold', 'test', 'matched', 'recall', 'precision', 'f1']);
      expect(j.byLabel.NP.f1).toBe(100);
      // Labels are cut at '-' / '=', PRT is counted under ADVP, TOP/-NONE- never appear.
      expect(Object.keys(j.byLabel).some((l) => l.includes('-') || l.includes('='))).toBe(false);
      expect(j.byLabel.PRT).toBeUndefined();
      // The unlabeled wrapper is a bracket (label '') on both sides.
      expect(j.byLabel['']).toMatchObject({ gold: 245, test: 245, matched: 245 });
    });

    it('prints EVALB-style summaries and a label table, per-sentence lines with --verbose', () => {
      const plain = runCli(['eval', 'parse', '--gold', ptbTest, '--test', ptbTest, '--cutoff', '10']);
      expect(plain.status).toBe(0);
      expect(plain.stdout).toMatch(/-- All --\nNumber of sentence        =    245\n/);
      expect(plain.stdout).toContain('-- len<=10 --');
      expect(plain.stdout).toContain('Bracketing FMeasure       = 100.00');
      expect(plain.stdout).toMatch(/\nNP +\d+ +\d+ +\d+  100\.00     100\.00  100\.00\n/);
      expect(plain.stdout).not.toContain(' ID  Len.');
      const verbose = runCli(['eval', 'parse', '--gold', ptbTest, '--test', ptbTest, '--verbose']);
      expect(verbose.stdout).toContain(' ID  Len.  Stat. Recal  Prec.');
      expect(verbose.stdout).toContain(
        '\n   1   21    0  100.00 100.00    16     16   16      0     17    17   100.00\n',
      );
    });

    it('prints -nan for an F-measure of an empty group as evalb.c does, 0 in JSON', () => {
      const text = runCli(['eval', 'parse', '--gold', ptbTest, '--test', ptbTest, '--cutoff', '0']);
      expect(text.stdout).toContain('-- len<=0 --\nNumber of sentence        =      0\n');
      expect(text.stdout).toContain('Bracketing FMeasure       =   -nan\n');
      const json = JSON.parse(
        runCli(['eval', 'parse', '--gold', ptbTest, '--test', ptbTest, '--cutoff', '0', '--json']).stdout,
      );
      expect(json.cutoff).toMatchObject({ sentences: 0, f1: 0, recall: 0 });
    });
  });

  it('reports and skips every error sentence, never aborting after 10', () => {
    const lines = Array.from({ length: 15 }, (_, i) => `(S (NP (NN w${i})) (VP (VB v)))`);
    const gold = tmp.file('many.gld', lines.join('\n') + '\n');
    const test = tmp.file(
      'many.tst',
      lines.map((l, i) => (i < 12 ? l.replace('(VB v)', '(VB x)') : l)).join('\n') + '\n',
    );
    const r = runCli(['eval', 'parse', '--gold', gold, '--test', test, '--json']);
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect([j.all.sentences, j.all.errorSentences, j.all.validSentences, j.all.f1]).toEqual([15, 12, 3, 100]);
    expect(r.stderr.trim().split('\n')).toHaveLength(12);
    expect(r.stderr).toContain(`sentence 12 (${gold}:12, ${test}:12): error: word mismatch at word 2 (v|x)`);
  });

  const gold3 = '(S (NP (NN a)) (VP (VB b)))\n(S (NP (NN c)) (VP (VB d)))\n(S (NP (NN e)) (VP (VB f)))\n';

  it.each([
    [
      'an unbalanced test line',
      '(S (NP (NN a)) (VP (VB b)))\n(S (NP (NN c)) (VP (VB d))))\n(S (NP (NN e)) (VP (VB f)))\n',
      /bad1\.tst:2: unbalanced brackets/,
    ],
    [
      'an unclosed test line',
      '(S (NP (NN a)) (VP (VB b)))\n(S (NP (NN c)) (VP (VB d))\n(S (NP (NN e)) (VP (VB f)))\n',
      /bad2\.tst:2: unbalanced brackets/,
    ],
    [
      'a test file with fewer trees',
      '(S (NP (NN a)) (VP (VB b)))\n(S (NP (NN c)) (VP (VB d)))\n',
      /gold\.mrg:3: the gold file has more trees than the test file .*bad3\.tst, which has 2/,
    ],
    [
      'a test file with more trees',
      gold3 + '(S (NP (NN g)) (VP (VB h)))\n',
      /bad4\.tst:4: the test file has more trees than the gold file .*gold\.mrg, which has 3$/m,
    ],
    [
      'a test file with an extra blank line',
      '(S (NP (NN a)) (VP (VB b)))\n\n(S (NP (NN c)) (VP (VB d)))\n(S (NP (NN e)) (VP (VB f)))\n',
      /bad5\.tst:4: .*more trees.*--ignore-blank-lines/,
    ],
  ])('refuses %s with a one-line error', (_name, text, message) => {
    const gold = tmp.file('gold.mrg', gold3);
    const name = `bad${['an unbalanced test line', 'an unclosed test line', 'a test file with fewer trees', 'a test file with more trees', 'a test file with an extra blank line'].indexOf(_name) + 1}.tst`;
    const test = tmp.file(name, text);
    const r = runCli(['eval', 'parse', '--gold', gold, '--test', test, '--json']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    // Sentences scored before the problem shows may have been reported already (the
    // blank-line case reports sentence 2 as skipped); the error is the last line.
    const errLines = r.stderr.trim().split('\n');
    if (!_name.includes('blank')) expect(errLines).toHaveLength(1);
    expect(errLines[errLines.length - 1]).toMatch(message);
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it('accepts that extra blank line with --ignore-blank-lines', () => {
    const gold = tmp.file('gold.mrg', gold3);
    const test = tmp.file(
      'blank.tst',
      '(S (NP (NN a)) (VP (VB b)))\n\n(S (NP (NN c)) (VP (VB d)))\n(S (NP (NN e)) (VP (VB f)))\n',
    );
    const r = runCli(['eval', 'parse', '--gold', gold, '--test', test, '--json', '--ignore-blank-lines']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).all.f1).toBe(100);
  });

  it('counts the root wrapper as written, and not with --strip-root', async () => {
    // Gold S(0,3) NP(0,2) VP(2,3) under the wrapper; test S(0,3) NP(1,3), written under the
    // wrapper in one sentence and under ROOT in the other. As written, the unlabeled wrapper
    // matches in the first sentence only (ROOT is another label); stripped, neither counts.
    const gold = tmp.file(
      'root.gold',
      '( (S (NP (DT the) (NN dog)) (VP (VBD ran))))\n( (S (NP (DT the) (NN dog)) (VP (VBD ran))))\n',
    );
    const test = tmp.file(
      'root.tst',
      '( (S (DT the) (NP (NN dog) (VBD ran))))\n(ROOT (S (DT the) (NP (NN dog) (VBD ran))))\n',
    );
    const asWritten = await evalbFiles(gold, test);
    expect([asWritten.all.matchedBrackets, asWritten.all.goldBrackets, asWritten.all.testBrackets]).toEqual([3, 8, 6]);
    const stripped = await evalbFiles(gold, test, { stripRoot: true });
    expect([stripped.all.matchedBrackets, stripped.all.goldBrackets, stripped.all.testBrackets]).toEqual([2, 6, 4]);
    expect(stripped.all.f1).toBeCloseTo(40, 10);
    const r = runCli(['eval', 'parse', '--gold', gold, '--test', test, '--json', '--strip-root']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).all).toEqual(stripped.all);
    expect(JSON.parse(r.stdout).byLabel['']).toBeUndefined();
  });

  it('refuses a missing file and bad usage', () => {
    const gold = tmp.file('gold.mrg', gold3);
    const missing = runCli(['eval', 'parse', '--gold', gold, '--test', tmp.dir + '/nope.tst']);
    expect(missing.status).toBe(1);
    expect(missing.stderr.trim()).toBe(`structrank: ${tmp.dir}/nope.tst: no such file`);
    const usage = runCli(['eval', 'parse', '--gold', gold]);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/missing required option --test/);
    const cutoff = runCli(['eval', 'parse', '--gold', gold, '--test', gold, '--cutoff', 'x']);
    expect(cutoff.status).toBe(2);
  });
});

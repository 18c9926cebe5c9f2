// EVALB's own sample (test/fixtures/evalb-sample, see its README): every per-sentence line
// and every summary line of sample.rsl, reproduced exactly.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readEvalbParams } from '../../lib/eval/evalb-params.js';
import { scoreTreebankFiles } from '../../lib/eval/parse-files.js';
import { EVALB_HEADER, formatSentenceLine, formatSummary, formatTotalsLine } from '../../lib/eval/evalb-format.js';
import { repoRoot, runCli } from '../helpers.js';

const dir = join(repoRoot, 'test', 'fixtures', 'evalb-sample');
const gld = join(dir, 'sample.gld');
const tst = join(dir, 'sample.tst');
const prm = join(dir, 'sample.prm');
const rsl = readFileSync(join(dir, 'sample.rsl'), 'utf8').split('\n');
// sample.rsl comes from an older evalb: on error and skipped lines it shows the gold word
// count in the Words column, where the evalb.c of the same release prints 0.
const currentRsl = rsl.map((l, i) =>
  i >= 3 && i < 27
    ? l.replace(
        /^(\s*\d+\s+\d+\s+[12](?:\s+\S+){6}\s+)(\d+)/,
        (_m, head: string, words: string) => head + '0'.padStart(words.length),
      )
    : l,
);

describe('EVALB sample', () => {
  it('reads sample.prm', () => {
    const { params, cutoff } = readEvalbParams(prm);
    expect(cutoff).toBe(40);
    expect(params.deleteLabels).toEqual(['TOP', '-NONE-', ',', ':', '``', "''"]);
    expect(params.deleteLabelsForLength).toEqual(['-NONE-']);
    expect(params.equalLabels).toEqual([['T', 'TT']]);
    expect(params.equalWords).toEqual([['This', 'this']]);
    expect(params.labeled).toBe(true);
  });

  it('reproduces every line of sample.rsl', async () => {
    const { params, cutoff } = readEvalbParams(prm);
    const lines: string[] = [];
    const acc = await scoreTreebankFiles(gld, tst, {
      params,
      cutoff,
      onSentence: (s, i) => lines.push(formatSentenceLine(i, s)),
    });
    expect(EVALB_HEADER.split('\n')).toEqual(rsl.slice(0, 3));
    expect(lines).toEqual(currentRsl.slice(3, 27));
    expect(currentRsl[13]).toBe('  11    4    2    0.00   0.00     0      0    0      0      0     0     0.00');
    // The totals line: sample.rsl comes from an older evalb with other column widths that
    // printed 16 in the crossing column (the per-sentence crossings add up to 1). Same
    // numbers otherwise; the layout is the one of the current evalb.c.
    const fields = (l: string): string[] => l.trim().split(/\s+/);
    const expected = fields(rsl[28]);
    expected[5] = '1';
    expect(fields(formatTotalsLine(acc.all))).toEqual(expected);
    expect(formatTotalsLine(acc.all)).toBe(
      '                 87.76  90.53     86    98    95      1    108   106    98.15',
    );
    const report = acc.report();
    // Current evalb prints a "Bracketing FMeasure" line that the old sample.rsl lacks.
    const noF = (block: string): string[] => block.split('\n').filter((l) => !l.startsWith('Bracketing FMeasure'));
    expect(noF(formatSummary('All', report.all))).toEqual(rsl.slice(31, 43));
    expect(noF(formatSummary('len<=40', report.cutoff))).toEqual(rsl.slice(44, 56));
    expect(report.all).toMatchObject({
      sentences: 24,
      errorSentences: 5,
      skippedSentences: 2,
      validSentences: 17,
      matchedBrackets: 86,
      goldBrackets: 98,
      testBrackets: 95,
    });
    expect(report.cutoff).toMatchObject({ sentences: 23, validSentences: 16, matchedBrackets: 52, goldBrackets: 64 });
  });

  it('reproduces it from the CLI with --params and --verbose', () => {
    const r = runCli(['eval', 'parse', '--gold', gld, '--test', tst, '--params', prm, '--verbose']);
    expect(r.status).toBe(0);
    const out = r.stdout.split('\n');
    expect(out.slice(0, 27)).toEqual(currentRsl.slice(0, 27));
    expect(r.stdout).toContain('Bracketing Recall         =  87.76');
    expect(r.stdout).toContain('Bracketing Precision      =  85.25');
    // Errors and skips are reported on stderr, one line each, all of them.
    expect(r.stderr.trim().split('\n')).toHaveLength(7);
    expect(r.stderr).toMatch(/sentence 12 .*word mismatch at word 2 \(is\|was\)/);
    expect(r.stderr).toMatch(/sentence 13 .*length mismatch \(4\|5\)/);
    expect(r.stderr).toMatch(/sentence 11 .*empty test sentence/);
  });
});

/** EVALB's printed layout: per-sentence lines, the summary blocks, and a per-label table. */
import type { EvalbAccumulator, EvalbSentence, EvalbSummary, EvalbTotals, LabelScore } from './evalb.js';

/**
 * printf("%.<digits>f") as glibc does it: the exact binary value rounded to nearest, ties
 * to even (JavaScript's toFixed rounds exact ties up, e.g. 0.125 -> "0.13", C "0.12").
 */
export function cFixed(x: number, digits: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const negative = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  let s = a.toFixed(digits);
  // toFixed(100) is exact for the values printed here; detect an exact tie.
  const exact = a.toFixed(100);
  const dot = exact.indexOf('.');
  const tail = exact.slice(dot + 1 + digits);
  if (/^50*$/.test(tail)) {
    const truncated = exact.slice(0, digits > 0 ? dot + 1 + digits : dot);
    const lastDigit = Number(truncated[truncated.length - 1]);
    if (lastDigit % 2 === 0) s = truncated;
  }
  return negative ? `-${s}` : s;
}

function pad(s: string | number, width: number): string {
  return String(s).padStart(width);
}

const f62 = (x: number): string => pad(cFixed(x, 2), 6);

export const EVALB_HEADER = [
  '  Sent.                        Matched  Bracket   Cross        Correct Tag',
  ' ID  Len.  Stat. Recal  Prec.  Bracket gold test Bracket Words  Tags Accracy',
  '============================================================================',
].join('\n');

export const EVALB_RULE = '============================================================================';

/**
 * One per-sentence line, as evalb.c prints it (an error or skipped line shows 0 words, as
 * the current evalb.c does; EVALB's old sample.rsl showed the gold word count there).
 */
export function formatSentenceLine(id: number, s: EvalbSentence): string {
  const recall = s.goldBrackets === 0 ? 0 : (100 * s.matched) / s.goldBrackets;
  const precision = s.testBrackets === 0 ? 0 : (100 * s.matched) / s.testBrackets;
  const tagAcc = s.statusCode !== 0 || s.words === 0 ? 0 : (100 * s.correctTags) / s.words;
  return (
    `${pad(id, 4)}  ${pad(s.length, 3)}    ${s.statusCode}  ` +
    `${f62(recall)} ${f62(precision)}   ${pad(s.matched, 3)}    ${pad(s.goldBrackets, 3)}  ${pad(s.testBrackets, 3)}    ${pad(s.crossing, 3)}` +
    `   ${pad(s.statusCode === 0 ? s.words : 0, 4)}  ${pad(s.statusCode === 0 ? s.correctTags : 0, 4)}   ${f62(tagAcc)}`
  );
}

/** The totals line under the per-sentence table. */
export function formatTotalsLine(t: EvalbTotals): string {
  let line = '';
  if (t.gold > 0 && t.test > 0) {
    line += `                ${f62((100 * t.matched) / t.gold)} ${f62((100 * t.matched) / t.test)} ${pad(t.matched, 6)} ${pad(t.gold, 5)} ${pad(t.test, 5)}  ${pad(t.crossing, 5)}`;
  }
  line += `  ${pad(t.words, 5)} ${pad(t.correctTags, 5)}   ${f62(t.words > 0 ? (100 * t.correctTags) / t.words : 0)}`;
  return line;
}

/** One summary block ("-- All --" or "-- len<=40 --"). */
export function formatSummary(title: string, s: EvalbSummary): string {
  const n = (x: number): string => pad(x, 6);
  return [
    `-- ${title} --`,
    `Number of sentence        = ${n(s.sentences)}`,
    `Number of Error sentence  = ${n(s.errorSentences)}`,
    `Number of Skip  sentence  = ${n(s.skippedSentences)}`,
    `Number of Valid sentence  = ${n(s.validSentences)}`,
    `Bracketing Recall         = ${f62(s.recall)}`,
    `Bracketing Precision      = ${f62(s.precision)}`,
    // evalb.c computes 2PR/(P+R) unguarded: 0/0 prints as -nan (x86-64 glibc).
    `Bracketing FMeasure       = ${s.recall + s.precision === 0 ? pad('-nan', 6) : f62(s.f1)}`,
    `Complete match            = ${f62(s.exactMatch)}`,
    `Average crossing          = ${f62(s.averageCrossing)}`,
    `No crossing               = ${f62(s.zeroCrossing)}`,
    `2 or less crossing        = ${f62(s.twoOrLessCrossing)}`,
    `Tagging accuracy          = ${f62(s.taggingAccuracy)}`,
  ].join('\n');
}

/** The per-label table (all valid sentences), most frequent gold label first. */
export function formatLabelTable(byLabel: Record<string, LabelScore>): string {
  const labels = Object.keys(byLabel);
  const shown = (l: string): string => (l === '' ? '(empty)' : l);
  const width = Math.max(5, ...labels.map((l) => shown(l).length));
  const lines = [
    `-- Labels (all valid sentences) --`,
    `${'label'.padEnd(width)}    gold    test  matched  recall  precision      f1`,
  ];
  for (const l of labels) {
    const c = byLabel[l];
    lines.push(
      `${shown(l).padEnd(width)}  ${pad(c.gold, 6)}  ${pad(c.test, 6)}  ${pad(c.matched, 7)}  ${f62(c.recall)}     ${f62(c.precision)}  ${f62(c.f1)}`,
    );
  }
  return lines.join('\n');
}

/** Everything after the per-sentence lines: totals line, both summaries, label table. */
export function formatEvalbReport(acc: EvalbAccumulator): string {
  const report = acc.report();
  return [
    EVALB_RULE,
    formatTotalsLine(acc.all),
    '=== Summary ===',
    '',
    formatSummary('All', report.all),
    '',
    formatSummary(`len<=${acc.cutoff}`, report.cutoff),
    '',
    formatLabelTable(report.byLabel),
  ].join('\n');
}

import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { formatResultsTable, lineChart, niceTicks, renderReport, writeReport } from '../../lib/pipeline/report.js';
import type { PipelineResults } from '../../lib/pipeline/run.js';
import { tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** Synthetic results (the shape runPipeline returns), for the report code only. */
const results: PipelineResults = {
  task: 'parse',
  measure: 'labeled bracket F1',
  sizes: { train: 1000, dev: 200, test: 250, folds: 4, nbest: 20, averageCandidates: 17.5 },
  systems: [
    {
      name: 'base (chart parser)',
      kind: 'base',
      testF1: 80,
      devF1: 79.5,
      seconds: 95,
      byLength: [90, 82, 78, 75, Number.NaN],
    },
    {
      name: 'oracle',
      kind: 'oracle',
      testF1: 90,
      devF1: 89,
      errorReduction: 50,
      byLength: [97, 92, 88, 85, Number.NaN],
    },
    {
      name: 'boosting',
      kind: 'reranker',
      testF1: 82,
      devF1: 81,
      errorReduction: 10,
      seconds: 12.5,
      selected: { eps: 0.0025, rounds: 3000 },
      byLength: [91, 84, 80, 77, Number.NaN],
    },
  ],
  curves: [
    {
      reranker: 'boosting',
      axis: 'rounds',
      chosen: { x: 3000, label: 'eps=0.0025' },
      series: [
        { label: 'eps=0.001', x: [0, 1000, 2000, 3000, 4000], y: [15000, 15100, 15150, 15140, 15120] },
        { label: 'eps=0.0025', x: [0, 1000, 2000, 3000, 4000], y: [15000, 15120, 15180, 15200, 15190] },
      ],
    },
  ],
  lengthBuckets: ['1-10', '11-20', '21-30', '31-40', '41+'],
  bucketSentences: [60, 90, 70, 30, 0],
  steps: [
    { name: 'train-fold1of4', seconds: 20, cached: false },
    { name: 'rerank-boosting', seconds: 12.5, cached: true },
  ],
  unavailable: [{ name: 'tree-kernel perceptron', why: "reranker 'tree-kernel perceptron': not available yet" }],
  totalSeconds: 130,
};

describe('pipeline report', () => {
  it('prints the results table with F1, relative error reduction, times and choices', () => {
    const t = formatResultsTable(results);
    const lines = t.split('\n');
    expect(lines[0]).toMatch(/^system\s+test F1\s+dev F1\s+rel\. err\. red\.\s+time\s+chosen on dev$/);
    expect(t).toMatch(/base \(chart parser\)\s+80\.00\s+79\.50\s+-\s+1m35s/);
    expect(t).toMatch(/oracle\s+90\.00\s+89\.00\s+\+50\.0%/);
    expect(t).toMatch(/boosting\s+82\.00\s+81\.00\s+\+10\.0%\s+13s\s+eps=0\.0025 rounds=3000/);
    expect(t).toMatch(/tree-kernel perceptron\s+n\/a.*not available yet/);
  });

  it('HTML report: the table, the learning-curve SVG with the chosen N, F1 by length', async () => {
    const file = await writeReport(tmp.dir, results, 'demo <test>');
    const html = readFileSync(file, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<title>demo &lt;test&gt;</title>');
    expect(html).toMatch(
      /<table id="results">[\s\S]*<td>boosting<\/td><td>82\.00<\/td><td>81\.00<\/td><td>\+10\.0%<\/td>/,
    );
    const svgs: string[] = html.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
    expect(svgs.length).toBe(2);
    expect(svgs[0]).toContain('boosting: dev score against rounds');
    expect((svgs[0].match(/class="series"/g) ?? []).length).toBe(2);
    expect(svgs[0]).toContain('chosen N = 3000 (eps=0.0025)');
    expect(svgs[1]).toContain('by sentence length');
    expect(svgs[1]).toContain('31-40');
    expect(svgs[1]).not.toContain('41+'); // no test sentence is that long: the bucket is left out
    expect(svgs[1]).toContain('sentences per bucket: 60 / 90 / 70 / 30<');
    expect((svgs[1].match(/class="series"/g) ?? []).length).toBe(3);
    expect(html).toContain('not available yet');
    expect(renderReport(results)).toContain('<table id="steps">');
  });

  it('legend: five series get five distinct places, none overlapping', () => {
    const series = ['a', 'b', 'c', 'd', 'e'].map((label, i) => ({ label, x: [0, 1], y: [i, i + 1] }));
    const svg = lineChart({ title: 't', xLabel: 'x', yLabel: 'y', series });
    const places = [...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)" font-size="11">([a-e])<\/text>/g)].map(
      (m) => `${m[1]},${m[2]}`,
    );
    expect(places.length).toBe(5);
    expect(new Set(places).size).toBe(5);
    const height = Number(/height="(\d+)"/.exec(svg)?.[1]);
    for (const p of places) expect(Number(p.split(',')[1])).toBeLessThan(height);
  });

  it('chart helpers: round ticks; points map inside the plot area', () => {
    expect(niceTicks(0, 100)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(15000, 15200)).toEqual([15000, 15050, 15100, 15150, 15200]);
    const svg = lineChart({
      title: 't',
      xLabel: 'x',
      yLabel: 'y',
      series: [{ label: 's', x: [0, 10], y: [1, 2] }],
      width: 400,
      height: 300,
    });
    const d = /d="M([\d.]+),([\d.]+) L([\d.]+),([\d.]+)"/.exec(svg);
    expect(d).not.toBeNull();
    const [x0, y0, x1, y1] = (d as RegExpExecArray).slice(1).map(Number);
    expect(x0).toBeCloseTo(70, 5);
    expect(x1).toBeCloseTo(380, 5);
    expect(y0).toBeGreaterThan(y1);
  });
});

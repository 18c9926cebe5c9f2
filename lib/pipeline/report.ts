/**
 * Reports of a pipeline run: the results table as text (for the terminal) and a
 * self-contained HTML page with the table, the boosting learning curve (dev score against
 * rounds, like figure 5 of Collins & Koo 2005) and F1 by sentence length, both as inline SVG.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeTextAtomic } from '../io/atomic-writer.js';
import { formatSeconds } from '../progress.js';
import type { PipelineResults, SystemResult } from './run.js';

const fmt = (x: number | undefined, digits = 2): string =>
  x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(digits);
const signed = (x: number | undefined): string =>
  x === undefined || !Number.isFinite(x) ? '-' : `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`;

function selectedText(s: SystemResult): string {
  if (!s.selected) return '';
  return Object.entries(s.selected)
    .map(([k, v]) => `${k}=${typeof v === 'number' ? +v.toPrecision(6) : v}`)
    .join(' ');
}

/**
 * The results table as aligned text.
 *
 * @example
 * ```ts
 * console.log(formatResultsTable(await runPipeline(config)));
 * ```
 */
export function formatResultsTable(r: PipelineResults): string {
  const head = [
    'system',
    `test ${r.measure === 'tag accuracy' ? 'acc' : 'F1'}`,
    `dev ${r.measure === 'tag accuracy' ? 'acc' : 'F1'}`,
    'rel. err. red.',
    'time',
    'chosen on dev',
  ];
  const rows = r.systems.map((s) => [
    s.name,
    fmt(s.testF1),
    fmt(s.devF1),
    s.kind === 'base' ? '-' : signed(s.errorReduction),
    s.seconds === undefined ? '-' : formatSeconds(s.seconds),
    selectedText(s),
  ]);
  for (const u of r.unavailable) rows.push([u.name, 'n/a', 'n/a', 'n/a', '-', 'not available yet']);
  const widths = head.map((h, c) => Math.max(h.length, ...rows.map((row) => row[c].length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, c) => (c === 0 || c === cells.length - 1 ? cell.padEnd(widths[c]) : cell.padStart(widths[c])))
      .join('  ')
      .trimEnd();
  const out = [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
  out.push(
    '',
    `${r.measure}; ${r.sizes.train} jackknifed training sentences (${r.sizes.folds} folds), ${r.sizes.dev} dev, ${r.sizes.test} test; ` +
      `${r.sizes.nbest}-best lists (${r.sizes.averageCandidates.toFixed(1)} candidates per test sentence on average)`,
  );
  out.push(
    `relative error reduction = (F_reranker - F_base) / (100 - F_base); total time ${formatSeconds(r.totalSeconds)}`,
  );
  return out.join('\n');
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export interface ChartSeries {
  label: string;
  x: number[];
  y: number[];
}

export interface LineChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
  /** Category names for x = 0, 1, 2, ... (instead of numeric ticks). */
  xCategories?: string[];
  /** A vertical marker line, e.g. the N chosen on dev. */
  marker?: { x: number; label: string };
  width?: number;
  height?: number;
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

/** Round tick values covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) as number;
  const ticks: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(+t.toPrecision(12));
  return ticks;
}

/** Tick labels of one axis: all in thousands ('k') when any reaches 10,000. */
function tickFormatter(ticks: readonly number[]): (v: number) => string {
  return ticks.some((t) => Math.abs(t) >= 1e4)
    ? (v) => `${+(v / 1000).toPrecision(4)}k`
    : (v) => `${+v.toPrecision(6)}`;
}

/** An inline SVG line chart. */
export function lineChart(o: LineChartOptions): string {
  const W = o.width ?? 640;
  // The legend sits under the x-axis label, three entries a row; each extra row adds height.
  const legendColumns = 3;
  const legendRows = Math.max(1, Math.ceil(o.series.length / legendColumns));
  const H = (o.height ?? 340) + (legendRows - 1) * 16;
  const m = { left: 70, right: 20, top: 36, bottom: 70 + (legendRows - 1) * 16 };
  const pw = W - m.left - m.right;
  const ph = H - m.top - m.bottom;
  const xs = o.series.flatMap((s) => s.x);
  const ys = o.series.flatMap((s) => s.y).filter(Number.isFinite);
  let x0 = Math.min(...xs, o.marker?.x ?? Infinity);
  let x1 = Math.max(...xs, o.marker?.x ?? -Infinity);
  if (o.xCategories) {
    x0 = -0.5;
    x1 = o.xCategories.length - 0.5;
  }
  if (!(x1 > x0)) x1 = x0 + 1;
  let y0 = Math.min(...ys);
  let y1 = Math.max(...ys);
  if (!Number.isFinite(y0)) {
    y0 = 0;
    y1 = 1;
  }
  const pad = (y1 - y0) * 0.08 || Math.abs(y0) * 0.01 || 1;
  y0 -= pad;
  y1 += pad;
  const X = (v: number): number => m.left + ((v - x0) / (x1 - x0)) * pw;
  const Y = (v: number): number => m.top + ph - ((v - y0) / (y1 - y0)) * ph;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(o.title)}" font-family="sans-serif" font-size="12">`,
  );
  parts.push(
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14" font-weight="bold">${escapeHtml(o.title)}</text>`,
  );
  parts.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#999"/>`);
  const yTicks = niceTicks(y0, y1);
  const yText = tickFormatter(yTicks);
  for (const t of yTicks) {
    const y = Y(t).toFixed(1);
    parts.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${y}" y2="${y}" stroke="#eee"/>`);
    parts.push(`<text x="${m.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${yText(t)}</text>`);
  }
  const xTicks = o.xCategories ? o.xCategories.map((_, i) => i) : niceTicks(x0, x1);
  const xText = tickFormatter(xTicks);
  for (const t of xTicks) {
    const x = X(t).toFixed(1);
    parts.push(`<line x1="${x}" x2="${x}" y1="${m.top + ph}" y2="${m.top + ph + 5}" stroke="#999"/>`);
    parts.push(
      `<text x="${x}" y="${m.top + ph + 18}" text-anchor="middle">${escapeHtml(o.xCategories ? o.xCategories[t] : xText(t))}</text>`,
    );
  }
  parts.push(`<text x="${m.left + pw / 2}" y="${m.top + ph + 36}" text-anchor="middle">${escapeHtml(o.xLabel)}</text>`);
  parts.push(
    `<text transform="translate(16 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(o.yLabel)}</text>`,
  );
  if (o.marker && Number.isFinite(o.marker.x)) {
    const x = X(o.marker.x).toFixed(1);
    parts.push(
      `<line class="marker" x1="${x}" x2="${x}" y1="${m.top}" y2="${m.top + ph}" stroke="#555" stroke-dasharray="4 3"/>`,
    );
    parts.push(`<text x="${x}" y="${m.top + 12}" dx="4" font-size="11">${escapeHtml(o.marker.label)}</text>`);
  }
  o.series.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    const pts = s.x.map((x, k) => [x, s.y[k]] as const).filter(([, y]) => Number.isFinite(y));
    if (pts.length === 0) return;
    const d = pts.map(([x, y], k) => `${k === 0 ? 'M' : 'L'}${X(x).toFixed(1)},${Y(y).toFixed(1)}`).join(' ');
    parts.push(
      `<path class="series" d="${d}" fill="none" stroke="${color}" stroke-width="2"><title>${escapeHtml(s.label)}</title></path>`,
    );
    if (pts.length <= 30)
      for (const [x, y] of pts)
        parts.push(`<circle cx="${X(x).toFixed(1)}" cy="${Y(y).toFixed(1)}" r="3" fill="${color}"/>`);
    const lx = m.left + (i % legendColumns) * (pw / legendColumns);
    const ly = m.top + ph + 56 + Math.floor(i / legendColumns) * 16;
    parts.push(
      `<rect x="${lx}" y="${ly - 8}" width="12" height="3" fill="${color}"/><text x="${lx + 16}" y="${ly - 4}" font-size="11">${escapeHtml(s.label)}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** The self-contained HTML report. */
export function renderReport(r: PipelineResults, title = 'structrank reranking pipeline'): string {
  const rows = r.systems
    .map(
      (s) =>
        `<tr><td>${escapeHtml(s.name)}</td><td>${fmt(s.testF1)}</td><td>${fmt(s.devF1)}</td><td>${s.kind === 'base' ? '-' : signed(s.errorReduction)}</td>` +
        `<td>${s.seconds === undefined ? '-' : formatSeconds(s.seconds)}</td><td>${escapeHtml(selectedText(s))}</td></tr>`,
    )
    .concat(
      r.unavailable.map(
        (u) =>
          `<tr class="unavailable"><td>${escapeHtml(u.name)}</td><td colspan="5">not available yet: ${escapeHtml(u.why)}</td></tr>`,
      ),
    )
    .join('\n');
  const curves = r.curves
    .map((c) =>
      lineChart({
        title: `${c.reranker}: dev score against ${c.axis}`,
        xLabel: c.axis,
        yLabel: 'summed dev Score',
        series: c.series,
        marker: c.chosen
          ? { x: c.chosen.x, label: `chosen N = ${c.chosen.x}${c.chosen.label ? ` (${c.chosen.label})` : ''}` }
          : undefined,
      }),
    )
    .join('\n');
  // Buckets past the longest test sentence (e.g. 41+ when the data stops at 40 words) are left out.
  let buckets = r.lengthBuckets.length;
  while (buckets > 1 && r.bucketSentences[buckets - 1] === 0) buckets--;
  const byLength = lineChart({
    title: `Test ${r.measure} by sentence length`,
    xLabel: 'sentence length (words); sentences per bucket: ' + r.bucketSentences.slice(0, buckets).join(' / '),
    yLabel: r.measure,
    xCategories: r.lengthBuckets.slice(0, buckets),
    series: r.systems.map((s) => ({
      label: s.name,
      x: s.byLength.slice(0, buckets).map((_, i) => i),
      y: s.byLength.slice(0, buckets).map((v) => (v === null ? Number.NaN : v)),
    })),
  });
  const steps = r.steps
    .map(
      (s) =>
        `<tr><td>${escapeHtml(s.name)}</td><td>${formatSeconds(s.seconds)}</td><td>${s.cached ? 'cached' : 'run'}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: sans-serif; max-width: 900px; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
td, th { border: 1px solid #ccc; padding: 4px 10px; text-align: right; }
td:first-child, th:first-child, td:last-child, th:last-child { text-align: left; }
tr.unavailable td { color: #888; }
figure { margin: 1.5em 0; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>Task: ${r.task === 'parse' ? 'constituency parsing' : 'tagging'}; measure: ${escapeHtml(r.measure)}.
${r.sizes.train} jackknifed training sentences (${r.sizes.folds} folds), ${r.sizes.dev} dev, ${r.sizes.test} test;
${r.sizes.nbest}-best lists (${r.sizes.averageCandidates.toFixed(1)} candidates per test sentence on average).</p>
<table id="results">
<thead><tr><th>system</th><th>test</th><th>dev</th><th>relative error reduction</th><th>time</th><th>chosen on dev</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
<p>Relative error reduction = (F<sub>reranker</sub> - F<sub>base</sub>) / (100 - F<sub>base</sub>). The oracle always picks the
candidate with the highest score: it bounds what reranking can reach.</p>
${curves ? `<h2>Learning curve</h2>\n<figure>\n${curves}\n<figcaption>Summed dev Score after N rounds (Collins &amp; Koo 2005, figure 5); the dashed line is the N chosen on dev.</figcaption>\n</figure>` : ''}
<h2>By sentence length</h2>
<figure>
${byLength}
</figure>
<h2>Steps</h2>
<table id="steps">
<thead><tr><th>step</th><th>time</th><th>this run</th></tr></thead>
<tbody>
${steps}
</tbody>
</table>
<p>Total ${formatSeconds(r.totalSeconds)}.</p>
</body>
</html>
`;
}

/**
 * Writes report.html (and nothing else) into `dir`; returns its path.
 *
 * @example
 * ```ts
 * const file = await writeReport('out', results);   // out/report.html
 * ```
 */
export async function writeReport(dir: string, r: PipelineResults, title?: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'report.html');
  await writeTextAtomic(file, [renderReport(r, title)]);
  return file;
}

/**
 * A CRF's Viterbi k-best list and its MBR tree: from one pass (`mbrTree: true`) against the
 * two parses it replaces (the list, then the MBR 1-best), as `parse --nbest` with an MBR model,
 * the rescoring and the reranking pipeline's lists need them; with the model's PCFG mixed into
 * its MBR decoding, the MBR tree is the mix's. Same model, sentences, threads and k; the
 * outputs are checked equal. Prints CPU seconds of each and the ratio.
 * `npx tsx bench/parser-nbest-mbr.ts` (env: MODEL=a CRF model file, else a default CRF is
 * trained on the treebank's training trees <= 40 words; DS=a treebank of ../shared/data,
 * default ptb-sample; K=100, the pipeline's pool; ROUNDS=3).
 */
import { join } from 'node:path';
import { sharedData as shared } from '../test-support/shared-data.js';
import { readTreesSync } from '../lib/io/treebank.js';
import { ChartParserModel } from '../lib/parser/chart-parser.js';
import { treeWords } from '../lib/parser/input.js';
import { formatTree } from '../lib/trees/tree.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const treebank = process.env.DS ?? 'ptb-sample';
const dir = join(shared, treebank);
const k = Number(process.env.K ?? 100);
const rounds = Number(process.env.ROUNDS ?? 3);
const threads = 1;

const words = (file: string, maxLength: number): string[][] =>
  readTreesSync(join(dir, file))
    .map((t) => treeWords(t))
    .filter((w) => w.length > 0 && w.length <= maxLength);

const model = process.env.MODEL
  ? await ChartParserModel.load(process.env.MODEL)
  : await ChartParserModel.train(
      readTreesSync(join(dir, 'train.mrg')).filter((t) => treeWords(t).length <= 40),
      { crf: true, threads: 2 },
    );
const sentences = words('test.mrg', 40);

const cpuSeconds = async (run: () => Promise<unknown>): Promise<number> => {
  const start = process.cpuUsage();
  await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// The outputs first: the one-chart lists and MBR trees equal the two parses'.
const lists = await model.parseNbest(sentences, k, { threads });
// The model's MBR tree, not its rescoring of it (`headModel: false`).
const mbrOnly = { threads, decode: 'mbr', headModel: false } as const;
const mbr = await model.parseNbest(sentences, 1, mbrOnly);
const both = await model.parseNbest(sentences, k, { threads, mbrTree: true });
both.forEach((s, i) => {
  const same =
    s.candidates.length === lists[i].candidates.length &&
    s.candidates.every((c, r) => formatTree(c.tree) === formatTree(lists[i].candidates[r].tree)) &&
    formatTree(s.mbrTree!.tree) === formatTree(mbr[i].candidates[0].tree);
  if (!same) throw new Error(`sentence ${i + 1}: the one-chart parse differs from the two parses`);
});

const two: number[] = [];
const one: number[] = [];
for (let r = 0; r < rounds; r++) {
  two.push(
    await cpuSeconds(async () => {
      await model.parseNbest(sentences, k, { threads });
      await model.parseNbest(sentences, 1, mbrOnly);
    }),
  );
  one.push(await cpuSeconds(() => model.parseNbest(sentences, k, { threads, mbrTree: true })));
}
const f = (x: number): string => x.toFixed(2);
const pcfg = model.info().pcfgWeight;
console.log(
  `${treebank} test, ${sentences.length} sentences <= 40 words, ${k}-best + MBR tree${pcfg > 0 ? ` (PCFG mixed in at ${pcfg})` : ''}, ${threads} thread`,
);
console.log(`| parses | CPU s (median of ${rounds}) |`);
console.log('|---|---|');
console.log(`| the list, then the MBR 1-best (two parses) | ${f(median(two))} |`);
console.log(`| both from one pass | ${f(median(one))} |`);
console.log(`ratio (two / one): ${(median(two) / median(one)).toFixed(2)}x; outputs equal on every sentence`);

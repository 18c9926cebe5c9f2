/**
 * structrank's side of a peer run, in its own process so that its max RSS is its own:
 *   node bench/peers/structrank-run.mjs learn ALGO ITERS THREADS C2 OBJECTIVE MODEL
 * reads conll2000/train.txt as `train-tagger` does (natively, readTrainingColumns; the JS
 * rows of readConllSync with STRUCTRANK_READ=rows), trains with the chunk template and prints one JSON
 * line: CPU seconds of the whole Tagger.train call and of one iteration (epoch) measured as
 * (CPU at the end of the last - CPU at the end of the first) / (iterations - 1), the same
 * way bench/peers/crfsuite-harness.c measures CRFsuite.
 * Plain Node on the built dist/ (npm run build:ts), as a user runs the package: under the
 * tsx loader the same process needs about 50 MB more.
 */
import { readConllSync } from '../../dist/io/conll.js';
import { Tagger } from '../../dist/tagger/tagger.js';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const cpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1e6;
};

const [mode, algo, iters, threads, c2, objective, model] = process.argv.slice(2);
if (mode !== 'learn' || !model)
  throw new Error('usage: structrank-run.mjs learn ALGO ITERS THREADS C2 OBJECTIVE MODEL');
const data = process.env.STRUCTRANK_SHARED_DATA ?? resolve('..', 'shared', 'data');
const t0 = cpu();
const trainFile = resolve(data, 'conll2000', 'train.txt');
const columns = ['word', 'pos', 'chunk'];
// A baseline build (bench/peers/baseline.ts) may predate the native reader: rows then.
const columnsReader = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist/tagger/training-columns.js');
const train =
  process.env.STRUCTRANK_READ === 'rows' || !existsSync(columnsReader)
    ? readConllSync(trainFile).map((s) => s.rows)
    : await (
        await import('../../dist/tagger/training-columns.js')
      ).readTrainingColumns(trainFile, { columns, label: 'chunk' });
const t1 = cpu();
let first = 0;
let last = 0;
let steps = 0;
const tagger = await Tagger.train(train, {
  algo,
  columns,
  label: 'chunk',
  templates: 'chunk',
  epochs: Number(iters),
  c2: Number(c2),
  threads: Number(threads),
  ...(objective === 'crfsuite' ? { startWeights: false } : {}),
  onProgress: () => {
    last = cpu();
    if (++steps === 1) first = last;
  },
});
const t2 = cpu();
tagger.save(model);
const info = tagger.info();
console.log(
  JSON.stringify({
    read: t1 - t0,
    train: t2 - t1,
    iterations: steps,
    perIteration: steps > 1 ? (last - first) / (steps - 1) : 0,
    attributes: info.attributes,
    features: info.features,
  }),
);

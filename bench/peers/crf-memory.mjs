/**
 * Where CRF training's memory goes, phase by phase, in one process (1 thread, the chunk
 * template, c2 = 1, conll2000 train.txt):
 *   node bench/peers/crf-memory.mjs [ITERATIONS] [TRAIN]   (TRAIN: ../shared/data/conll2000/train.txt)
 * prints RSS and the JS heap at the start, after reading the CoNLL rows into JS arrays, after
 * each L-BFGS iteration (the native corpus, features and optimizer state exist by then) and
 * the max RSS. Uses the built dist/ (npm run build:ts).
 */
import { readConllSync } from '../../dist/io/conll.js';
import { Tagger } from '../../dist/tagger/tagger.js';
import { resolve } from 'node:path';

const mb = (x) => (x / 1048576).toFixed(0);
const now = () =>
  `RSS ${mb(process.memoryUsage().rss)} MB, JS heap ${mb(process.memoryUsage().heapUsed)} MB, max RSS ${mb(process.resourceUsage().maxRSS * 1024)} MB`;
console.log(`start: ${now()}`);
const train = readConllSync(
  process.argv[3] ?? resolve(process.env.STRUCTRANK_SHARED_DATA ?? '../shared/data', 'conll2000', 'train.txt'),
).map((s) => s.rows);
console.log(`rows read: ${now()}`);
let step = 0;
await Tagger.train(train, {
  algo: 'crf',
  columns: ['word', 'pos', 'chunk'],
  label: 'chunk',
  templates: 'chunk',
  epochs: Number(process.argv[2] ?? 8),
  c2: 1,
  threads: 1,
  onProgress: () => console.log(`iteration ${++step}: ${now()}`),
});
console.log(`trained: ${now()}`);

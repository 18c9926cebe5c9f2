/**
 * Averaged perceptron training, structrank against CRFsuite 0.12 with the reading of the input
 * excluded on both sides: `npm run bench -- perceptron-crfsuite [--reps N]`.
 *
 * Data and work held equal: CoNLL-2000 chunking train.txt (8,936 sentences), the CRF++
 * chunk template expanded by bench/peers/features.ts into the same attribute strings for
 * CRFsuite (its attribute file), 10 epochs, one thread, first-order label transitions.
 *
 * How reading is excluded (each tool's own CPU clock, getrusage / process.cpuUsage):
 *   CRFsuite   bench/peers/crfsuite-harness.c reads the attribute file into CRFsuite's data
 *              structures (attribute and label dictionaries: the strings are interned while
 *              reading), then times `trainer->train` alone: feature generation, 10 epochs,
 *              and writing the model, which CRFsuite does inside that call.
 *   structrank this file, run as a child (`--child`), reads the CoNLL columns (not timed),
 *              then times `Tagger.train` alone: template expansion and interning of the
 *              attribute strings (CRFsuite did that while reading), 10 epochs; and times
 *              `save` separately, so the table shows train and train + save.
 * A third view, as in the peers bench: one epoch, (CPU at the end of the last epoch - at the
 * end of the first) / (epochs - 1) on both sides, which leaves out all set-up.
 * structrank's timed part thus does more work than CRFsuite's (it builds its attributes from
 * the columns), which counts against it. Runs alternate (CRFsuite, structrank, structrank,
 * CRFsuite, ...); medians of the repetitions are compared, ranges shown.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { readConllSync } from '../lib/io/conll.js';
import { Tagger } from '../lib/tagger/tagger.js';
import { DEFAULT_TEMPLATES } from '../lib/tagger/templates.js';
import { dataFile } from '../test-support/shared-data.js';
import { writeAttributeFiles } from './peers/features.js';
import { ensurePeers, PEERS_DIR } from './peers/install.js';
import { processorLine } from './processor.js';

const EPOCHS = 10;
const columns = ['word', 'pos', 'chunk'];
const cpu = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1e6;
};

if (process.argv[2] === '--child') {
  // structrank's side, in its own process: read (not timed), train (timed), save (timed).
  const model = process.argv[3];
  const train = readConllSync(dataFile('conll2000', 'train.txt')).map((s) => s.rows);
  let first = 0;
  let last = 0;
  let epochs = 0;
  const t0 = cpu();
  const tagger = await Tagger.train(train, {
    algo: 'perceptron',
    columns,
    label: 'chunk',
    templates: 'chunk',
    epochs: EPOCHS,
    threads: 1,
    onProgress: () => {
      last = cpu();
      if (++epochs === 1) first = last;
    },
  });
  const t1 = cpu();
  tagger.save(model);
  const t2 = cpu();
  const perIteration = epochs > 1 ? (last - first) / (epochs - 1) : NaN;
  console.log(JSON.stringify({ train: t1 - t0, save: t2 - t1, perIteration, attributes: tagger.info().attributes }));
} else {
  const args = process.argv.slice(2);
  const at = args.indexOf('--reps');
  const reps = at >= 0 ? Number(args[at + 1]) : 5;
  const peers = ensurePeers();
  if (!peers.crfsuite) throw new Error('CRFsuite could not be built (bench/peers/install.ts)');
  const dir = join(PEERS_DIR, 'data');
  mkdirSync(dir, { recursive: true });
  const trainFile = join(dir, 'train.crfsuite');
  const sentences = readConllSync(dataFile('conll2000', 'train.txt')).map((s) => s.rows);
  const { attributes } = writeAttributeFiles(sentences, DEFAULT_TEMPLATES.chunk, columns, 2, trainFile);

  const json = (cmd: string, argv: string[]): Record<string, number> => {
    const r = spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed: ${r.stderr.slice(-2000)}`);
    return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Record<string, number>;
  };
  const theirs: Record<string, number>[] = [];
  const ours: Record<string, number>[] = [];
  const runTheirs = (): void =>
    void theirs.push(
      json(peers.crfsuite!, [
        'learn',
        'averaged-perceptron',
        join(PEERS_DIR, 'model.ap.crfsuite'),
        trainFile,
        `max_iterations=${EPOCHS}`,
        'epsilon=0',
      ]),
    );
  const runOurs = (): void =>
    void ours.push(
      json(process.execPath, [
        '--import',
        'tsx',
        resolve('bench/perceptron-crfsuite.ts'),
        '--child',
        join(PEERS_DIR, 'model.ap.structrank'),
      ]),
    );
  const loadStart = loadavg();
  for (let r = 0; r < reps; r++) {
    if (r % 2 === 0) {
      runTheirs();
      runOurs();
    } else {
      runOurs();
      runTheirs();
    }
  }
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const show = (xs: number[]): string =>
    `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)})`;
  const theirTrain = theirs.map((m) => m.train);
  const theirRead = theirs.map((m) => m.read);
  const ourTrain = ours.map((m) => m.train);
  const ourTrainSave = ours.map((m) => m.train + m.save);
  console.log(
    `# averaged perceptron, CoNLL-2000 chunking train, ${EPOCHS} epochs, 1 thread, input reading excluded on both sides (${new Date().toISOString()})`,
  );
  console.log(processorLine());
  console.log(
    `Held equal: the CRF++ chunk template; ${attributes} attribute strings in CRFsuite's file, ${ours[0].attributes} attributes in structrank's model; ${EPOCHS} epochs; one thread.`,
  );
  console.log(
    `${reps} alternating repetitions per tool; CPU seconds, median (range); load average ${loadStart.map((x) => x.toFixed(2)).join(' ')} at start, ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} at end.\n`,
  );
  const ratio = (xs: number[]): string => `${(median(theirTrain) / median(xs)).toFixed(2)}x`;
  console.log('| tool: timed part | CPU s, median (range) | ratio (CRFsuite / this) |');
  console.log('|---|---|---|');
  console.log(`| CRFsuite 0.12: reading the attribute file (not compared) | ${show(theirRead)} | - |`);
  console.log(
    `| CRFsuite 0.12: trainer->train (feature generation, ${EPOCHS} epochs, writing the model) | ${show(theirTrain)} | 1.00x |`,
  );
  console.log(
    `| structrank: Tagger.train (attributes from the columns, ${EPOCHS} epochs) | ${show(ourTrain)} | **${ratio(ourTrain)}** |`,
  );
  console.log(
    `| structrank: Tagger.train + save (the model written, as in CRFsuite's call) | ${show(ourTrainSave)} | ${ratio(ourTrainSave)} |`,
  );
  const theirEpoch = theirs.map((m) => m.perIteration);
  const ourEpoch = ours.map((m) => m.perIteration);
  const show3 = (xs: number[]): string =>
    `${median(xs).toFixed(3)} (${Math.min(...xs).toFixed(3)}-${Math.max(...xs).toFixed(3)})`;
  console.log(
    `| CRFsuite 0.12: one epoch (CPU at the end of the last - of the first, / ${EPOCHS - 1}) | ${show3(theirEpoch)} | 1.00x |`,
  );
  console.log(
    `| structrank: one epoch (the same way) | ${show3(ourEpoch)} | ${(median(theirEpoch) / median(ourEpoch)).toFixed(2)}x |`,
  );
}

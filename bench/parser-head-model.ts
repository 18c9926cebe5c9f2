/**
 * A CRF parser's rescored 1-best (head model, tree model, expected loss) against its MBR tree,
 * interleaved in one run:
 *   MODEL=ptb.crf DS=ptb-sample npx tsx bench/parser-head-model.ts
 * MODEL is a CRF trained with head-model rescoring (`train-parser --crf` with --dev, the
 * default). Each repetition runs `structrank parse --threads 1` on the whole test set (SET=dev
 * for the dev set) once as the model parses and once with `--no-head-model`, start-up and model
 * loading included, and, where the model mixes a PCFG into its MBR decoding, once as the CRF
 * alone (`--pcfg-weight 0 --no-head-model`). Prints CPU seconds, sentences per CPU s, max RSS
 * and EVALB F1 (<= 40 / all) of each, and the rescoring's cost as a multiple of the MBR tree's
 * in the same repetition.
 * Env: REPS (3). Needs `npm run build:ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedData as shared } from '../test-support/shared-data.js';
import { readTreesSync } from '../lib/io/treebank.js';
import { ChartParserModel } from '../lib/parser/chart-parser.js';
import { parseRun, parseRunLine, type ParseRun } from './parse-run.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const env = process.env;
const ds = env.DS ?? 'ptb-sample';
const set = env.SET ?? 'test';
const reps = Number(env.REPS ?? 3);
const model = env.MODEL;
if (model === undefined) throw new Error('MODEL=crf.model is required (a CRF trained with head-model rescoring)');
const info = (await ChartParserModel.load(model)).info();
const weight = info.headWeight;
if (!(weight > 0))
  throw new Error(`${model} does not rescore with a head model (trained with --no-head-model or without --dev?)`);
const gold = join(shared, ds, `${set}.mrg`);
const golds = readTreesSync(gold);
const sentences = golds.length;
const work = mkdtempSync(join(tmpdir(), 'structrank-head-model-'));

const parse = (extra: string[]): ParseRun => parseRun(model, extra, gold, golds, work);
const line = (name: string, r: ParseRun): string => parseRunLine(name, r, sentences);

console.log(
  `${ds} ${set}: ${sentences} sentences; ${model}, weights: PCFG ${info.pcfgWeight}, head model ${weight}, tree model ${info.treeModelWeight}, expected loss ${info.lossWeight}; ${reps} repetitions`,
);
const ratios: number[] = [];
try {
  for (let rep = 1; rep <= reps; rep++) {
    const mbr = parse(['--no-head-model']);
    const rescored = parse([]);
    ratios.push(rescored.cpu / mbr.cpu);
    if (info.pcfgWeight > 0)
      console.log(`rep ${rep}  ${line('CRF alone', parse(['--pcfg-weight', '0', '--no-head-model']))}`);
    console.log(`rep ${rep}  ${line('MBR tree', mbr)}`);
    console.log(
      `rep ${rep}  ${line('rescored', rescored)}  (${(rescored.cpu / mbr.cpu).toFixed(2)}x the MBR tree's CPU)`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`rescored CPU / MBR CPU: ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`);

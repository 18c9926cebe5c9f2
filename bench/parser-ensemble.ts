/**
 * Parse speed of a CRF parser ensemble against its first model alone, interleaved in one run:
 *   MODELS=ptb.crf,ptb-h1.crf,ptb-v2.crf DS=ptb-sample npx tsx bench/parser-ensemble.ts
 * Each repetition runs `structrank parse --threads 1` on the whole test set (SET=dev for the
 * dev set) once with the first model and once with `--ensemble` of the others, as a user runs
 * it (start-up and model loading included), under /usr/bin/time. Prints CPU seconds,
 * sentences per CPU s, max RSS and EVALB F1 (<= 40 / all) of each, and the ensemble's cost as
 * a multiple of the single model's in the same repetition: on a shared machine the absolute
 * figures move between runs, the ratio much less. Env: REPS (3). Needs `npm run build:ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedData as shared } from '../test-support/shared-data.js';
import { readTreesSync } from '../lib/io/treebank.js';
import { parseRun, parseRunLine, type ParseRun } from './parse-run.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const env = process.env;
const ds = env.DS ?? 'ptb-sample';
const set = env.SET ?? 'test';
const reps = Number(env.REPS ?? 3);
const models = (env.MODELS ?? '').split(',').filter((m) => m !== '');
if (models.length < 2) throw new Error('MODELS=first.crf,other.crf[,...] is required (at least two CRF models)');
const gold = join(shared, ds, `${set}.mrg`);
const golds = readTreesSync(gold);
const sentences = golds.length;
const work = mkdtempSync(join(tmpdir(), 'structrank-ensemble-'));

const parse = (extra: string[]): ParseRun => parseRun(models[0], extra, gold, golds, work);
const line = (name: string, r: ParseRun): string => parseRunLine(name, r, sentences);

console.log(
  `${ds} ${set}: ${sentences} sentences; single ${models[0]}, ensemble + ${models.slice(1).join(', ')}; ${reps} repetitions`,
);
const ratios: number[] = [];
try {
  for (let rep = 1; rep <= reps; rep++) {
    const single = parse([]);
    const ensemble = parse(['--ensemble', models.slice(1).join(',')]);
    ratios.push(ensemble.cpu / single.cpu);
    console.log(`rep ${rep}  ${line('single', single)}`);
    console.log(
      `rep ${rep}  ${line('ensemble', ensemble)}  (${(ensemble.cpu / single.cpu).toFixed(2)}x the single model's CPU)`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`ensemble CPU / single CPU: ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}`);

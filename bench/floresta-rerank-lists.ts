/**
 * One pipeline reranker on given n-best list files, as a pipeline step runs it (the real
 * components, hyper-parameters chosen on dev), without the base-model steps: for a first look
 * at reranking held-out lists before a whole pipeline run has produced its dev and test lists.
 * Prints base, oracle and reranked F1 of the test lists and the relative error reduction.
 * RERANKER is one pipeline reranker entry or a list of them; the entries share one feature
 * extraction per list file (the pipeline's caches).
 *
 *   RERANKER='{"type":"boost","rounds":2000,"eps":[0.001]}' \
 *     npx tsx bench/floresta-rerank-lists.ts train.jsonl[,more.jsonl] dev.jsonl test.jsonl
 */
import { readNbestSync } from '../lib/io/nbest.js';
import { realComponents } from '../lib/pipeline/adapters/index.js';
import { validatePipelineConfig } from '../lib/pipeline/config.js';
import {
  baseChoice,
  corpusF1,
  oracleChoice,
  relativeErrorReduction,
  rescoreSet,
  scoreSet,
} from '../lib/pipeline/evaluate.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const [trainFiles, devFile, testFile] = process.argv.slice(2);
if (testFile === undefined) {
  console.error(
    'usage: RERANKER=<json> npx tsx bench/floresta-rerank-lists.ts train.jsonl[,more] dev.jsonl test.jsonl',
  );
  process.exit(2);
}
const entries: unknown = JSON.parse(process.env.RERANKER ?? '{"type":"boost"}');
const config = validatePipelineConfig(
  {
    task: 'parse',
    data: { train: trainFiles, dev: devFile, test: testFile },
    threads: 1,
    rerankers: Array.isArray(entries) ? entries : [entries],
  },
  'RERANKER',
);
const scored = {
  train: scoreSet(trainFiles.split(',').flatMap((f) => readNbestSync(f))),
  dev: scoreSet(readNbestSync(devFile)),
  test: scoreSet(readNbestSync(testFile)),
};
for (const rc of config.rerankers as Array<(typeof config.rerankers)[number] & { name: string }>) {
  const kind = rc.score ?? 'errors';
  const [train, dev, test] = [scored.train, scored.dev, scored.test].map((set) => rescoreSet(set, kind));
  const cpu0 = process.cpuUsage();
  const reranker = realComponents.reranker(rc, config);
  const model = await reranker.train(train, dev, { threads: 1, seed: config.seed, log: (l) => console.error(l) });
  const chosenDev = await model.choose(dev, { threads: 1, seed: config.seed });
  const chosenTest = await model.choose(test, { threads: 1, seed: config.seed });
  const cpu = process.cpuUsage(cpu0);
  const base = corpusF1(test, baseChoice(test));
  const f1 = corpusF1(test, chosenTest);
  console.log(
    `${rc.name}${rc.score ? ` (score ${rc.score})` : ''}: ${train.sentences.length} training lists, ${dev.sentences.length} dev, ${test.sentences.length} test`,
  );
  console.log(
    `  dev F1: base ${corpusF1(dev, baseChoice(dev)).toFixed(2)}, oracle ${corpusF1(dev, oracleChoice(dev)).toFixed(2)}, reranked ${corpusF1(dev, chosenDev).toFixed(2)}`,
  );
  console.log(
    `  test F1: base ${base.toFixed(2)}, oracle ${corpusF1(test, oracleChoice(test)).toFixed(2)}, reranked ${f1.toFixed(2)}: ${relativeErrorReduction(f1, base).toFixed(2)}% relative error reduction`,
  );
  console.log(
    `  chosen on dev: ${JSON.stringify(model.selected)}; ${((cpu.user + cpu.system) / 1e6).toFixed(1)} CPU s (features included when first extracted)`,
  );
}

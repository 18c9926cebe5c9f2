/**
 * The reranking features of n-best lists (candidate-feature-ids.ts: extraction and interning,
 * as the pipeline's reranker steps run it) at 1 thread and at more, each in a fresh process
 * (the name table is per process) running the built package (dist/: the worker threads run
 * compiled code). Prints sentences per second and the ratio against 1 thread of the same run.
 *
 *   npm run build:ts && npm run bench -- rerank-features lists.jsonl[,more.jsonl] [threads...]
 *
 * The pipeline keeps its training lists in <output>/cache/train-fold*of*-<key>/nbest.jsonl.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Nbest from '../lib/io/nbest.js';
import type * as FeatureIds from '../lib/rerank/candidate-feature-ids.js';
import type * as TreeSettings from '../lib/rerank/tree-settings.js';
import { processorLine } from './processor.js';

const root = join(import.meta.dirname, '..');

interface Measure {
  sentences: number;
  candidates: number;
  ids: number;
  seconds: number;
  cpuSeconds: number;
}

/** One measurement, in this process: read the lists, then time the features of all of them. */
async function measure(files: string[], threads: number): Promise<Measure> {
  const dist = (rel: string): string => pathToFileURL(join(root, 'dist', rel)).href;
  const { readNbestSync } = (await import(dist('io/nbest.js'))) as typeof Nbest;
  const { candidateFeatureIds, featureIdCount } = (await import(
    dist('rerank/candidate-feature-ids.js')
  )) as typeof FeatureIds;
  const { learnListSettings } = (await import(dist('rerank/tree-settings.js'))) as typeof TreeSettings;
  const lists = files.flatMap((f) => readNbestSync(f));
  const settings = learnListSettings(lists)?.settings;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const got = await candidateFeatureIds(lists, settings, { file: files.join(','), threads });
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return {
    sentences: lists.length,
    candidates: got.logprob.length,
    ids: featureIdCount(),
    seconds,
    // The main thread's and the workers' CPU: workers run in this process.
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

const [fileArg, ...threadArgs] = process.argv.slice(2);
if (process.env.RERANK_FEATURES_CHILD) {
  const m = await measure(fileArg.split(','), Number(threadArgs[0]));
  console.log(JSON.stringify(m));
} else {
  if (fileArg === undefined) {
    console.error('usage: npm run bench -- rerank-features lists.jsonl[,more.jsonl] [threads...]');
    process.exit(2);
  }
  console.log(processorLine());
  const counts = threadArgs.length > 0 ? threadArgs.map(Number) : [1, availableParallelism()];
  if (!counts.includes(1)) counts.unshift(1);
  let base: Measure | undefined;
  for (const threads of [...new Set(counts)]) {
    const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1], fileArg, String(threads)], {
      env: { ...process.env, RERANK_FEATURES_CHILD: '1' },
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    if (r.status !== 0) {
      console.error(r.stderr);
      process.exit(1);
    }
    const m = JSON.parse(r.stdout.trim().split('\n').pop() as string) as Measure;
    base ??= m;
    console.log(
      `threads ${threads}: ${m.sentences} sentences, ${m.candidates} candidates, ${m.ids} feature names; ` +
        `${m.seconds.toFixed(1)} s, ${(m.sentences / m.seconds).toFixed(1)} sentences/s, ` +
        `${m.cpuSeconds.toFixed(1)} CPU s; x${(base.seconds / m.seconds).toFixed(2)} against 1 thread`,
    );
  }
}

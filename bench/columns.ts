/**
 * Corpus I/O and chunk-evaluation throughput: `npx tsx bench/columns.ts`.
 * Baselines measured in the same run: n-best reading where every candidate goes through
 * parseTree (the plain way) against readNbest's allocation-free tree check. There are no
 * peer figures for these in PEERS.md. Shared 2-core machine: expect noise.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedData as data } from '../test-support/shared-data.js';
import { readNbest, writeNbest, type NbestSentence } from '../lib/io/nbest.js';
import { readTreebankSync } from '../lib/io/treebank.js';
import { formatTree, words } from '../lib/trees/tree.js';
import { parseTree } from '../lib/trees/bracket-parser.js';
import { removeEmptyElements } from '../lib/trees/transforms.js';
import { readConllu } from '../lib/io/conllu.js';
import { evalChunkFiles } from '../lib/eval/chunk-files.js';
import { parseScore } from '../lib/eval/evalb.js';
import { syntheticNbest } from './nbest-synthetic.js';
import { measure } from './peers/process-time.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const dir = mkdtempSync(join(tmpdir(), 'structrank-bench-'));

async function time<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const r = await f();
  return [r, (performance.now() - t0) / 1000];
}

try {
  // n-best: 2,000 ptb-sample sentences x 50 candidates (built in a function so they can be collected)
  const nbest = join(dir, 'bench.jsonl');
  await (async () => {
    // Without the -NONE- elements, which are not tokens (readNbest checks the words).
    const trees = readTreebankSync(join(data, 'ptb-sample', 'train.mrg'))
      .slice(0, 2000)
      .map((p) => removeEmptyElements(p.tree))
      .filter((t) => t !== undefined);
    const sentences: NbestSentence[] = trees.map((t, i) => ({
      id: `s${i}`,
      tokens: words(t),
      gold: formatTree(t),
      line: 0,
      candidates: Array.from({ length: 50 }, (_, k) => ({ tree: formatTree(t), logprob: -k })),
    }));
    await writeNbest(nbest, sentences);
  })();
  // Each measured twice, the second run reported (the first warms the JIT and the page cache).
  const baseline = () =>
    time(async () => {
      let n = 0;
      for (const line of readFileSync(nbest, 'utf8').split('\n')) {
        if (line === '') continue;
        const o = JSON.parse(line) as { candidates: { tree: string }[] };
        for (const c of o.candidates) n += parseTree(c.tree).children.length;
      }
      return n;
    });
  const reader = () =>
    time(async () => {
      let n = 0;
      for await (const s of readNbest(nbest)) n += s.candidates.length;
      return n;
    });
  await baseline();
  await reader();
  const [, base] = await baseline();
  const [count, fast] = await reader();
  console.log(
    `n-best read: ${count} tree candidates in ${fast.toFixed(2)} s (${Math.round(count / fast)}/s); JSON.parse + parseTree baseline ${base.toFixed(2)} s; ratio ${(base / fast).toFixed(1)}x`,
  );

  const [words_, conllu] = await time(async () => {
    let n = 0;
    for await (const s of readConllu(join(data, 'ud-ewt', 'en_ewt-ud-train.conllu'))) n += s.tokens.length;
    return n;
  });
  console.log(`CoNLL-U read: ${words_} words in ${conllu.toFixed(2)} s (${Math.round(words_ / conllu)}/s)`);

  const test = join(data, 'conll2000', 'test.txt');
  const [report, chunks] = await time(() => evalChunkFiles({ gold: test, test }));
  console.log(
    `eval chunks: ${report.overall.tokens} tokens in ${chunks.toFixed(2)} s (${Math.round(report.overall.tokens / chunks)}/s)`,
  );

  // eval parse, whole process: every ptb-sample training tree against a perturbed copy
  // (the first candidate of a synthetic list), and parseScore per dev sentence.
  const lists = syntheticNbest(
    readTreebankSync(join(data, 'ptb-sample', 'train.mrg')).map((p) => p.tree),
    { candidates: 1, goldRate: 0 },
  );
  const goldFile = join(dir, 'gold.mrg');
  const testFile = join(dir, 'test.mrg');
  writeFileSync(goldFile, lists.map((l) => `${String(l.gold)}\n`).join(''));
  writeFileSync(testFile, lists.map((l) => `${String(l.candidates[0].tree)}\n`).join(''));
  const evalRuns = Array.from({ length: 3 }, () =>
    measure('node', ['dist/cli.js', 'eval', 'parse', '--gold', goldFile, '--test', testFile], {
      timeFile: join(dir, 'time.txt'),
    }),
  );
  const evalCpu = evalRuns.map((r) => r.cpu).sort((a, b) => a - b);
  console.log(
    `eval parse, ${lists.length} perturbed sentences, whole process: ${evalCpu[1].toFixed(2)} CPU s (${evalCpu[0].toFixed(2)}-${evalCpu[2].toFixed(2)}), ${Math.round(evalRuns[0].rssMb)} MB`,
  );
  const dev = syntheticNbest(
    readTreebankSync(join(data, 'ptb-sample', 'dev.mrg')).map((p) => p.tree),
    { candidates: 1, goldRate: 0 },
  ).map((l) => ({ gold: parseTree(String(l.gold)), test: parseTree(String(l.candidates[0].tree)) }));
  let sink = 0;
  for (const d of dev) sink += parseScore(d.gold, d.test); // warm-up
  const reps = 20;
  const t0 = process.cpuUsage();
  for (let r = 0; r < reps; r++) for (const d of dev) sink += parseScore(d.gold, d.test);
  const used = process.cpuUsage(t0);
  const perSentence = (used.user + used.system) / (reps * dev.length);
  console.log(
    `parseScore: ${perSentence.toFixed(1)} CPU us per ptb-sample dev sentence (${dev.length} sentences; checksum ${sink.toFixed(0)})`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

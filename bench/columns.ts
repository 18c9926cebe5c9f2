/**
 * Corpus I/O and chunk-evaluation throughput: `npx tsx bench/columns.ts`.
 * Baselines measured in the same run: n-best reading where every candidate goes through
 * parseTree (the plain way) against readNbest's allocation-free tree check. There are no
 * peer figures for these in PEERS.md. Shared 2-core machine: expect noise.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedData as data } from '../test-support/shared-data.js';
import { readNbest, writeNbest, type NbestSentence } from '../lib/io/nbest.js';
import { readTreebankSync } from '../lib/io/treebank.js';
import { formatTree, words } from '../lib/trees/tree.js';
import { parseTree } from '../lib/trees/bracket-parser.js';
import { readConllu } from '../lib/io/conllu.js';
import { evalChunkFiles } from '../lib/eval/chunk-files.js';
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
    const trees = readTreebankSync(join(data, 'ptb-sample', 'train.mrg'))
      .slice(0, 2000)
      .map((p) => p.tree);
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
} finally {
  rmSync(dir, { recursive: true, force: true });
}

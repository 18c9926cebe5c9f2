/**
 * What the Score change does to n-best lists before any reranker sees them: for each list
 * file, the sentences without gold brackets/entities, the share of candidates with another
 * number of brackets/entities than the gold (where `errors` and `f1` are not a per-sentence
 * constant apart), the share of sentences whose best candidate (the oracle a perceptron
 * trains towards) differs between the two Scores, and the oracle F1 under each.
 *
 *   npx tsx bench/score-kinds.ts <list.jsonl> ...
 */
import { readNbestSync } from '../lib/io/nbest.js';
import { baseChoice, corpusF1, oracleChoice, rescoreSet, scoreSet } from '../lib/pipeline/evaluate.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: npx tsx bench/score-kinds.ts <list.jsonl> ...');
  process.exit(2);
}
console.log(
  '| list | sentences | without gold brackets/entities | candidates with another count than the gold | oracle differs | base F1 | oracle F1 (errors / f1) |',
);
console.log('|---|---|---|---|---|---|---|');
for (const file of files) {
  const errors = scoreSet(readNbestSync(file));
  const f1 = rescoreSet(errors, 'f1');
  const empty = errors.counts.filter((row) => row.length > 0 && row[0].gold === 0).length;
  let candidates = 0;
  let otherCount = 0;
  for (const row of errors.counts) {
    for (const c of row) {
      candidates++;
      if (c.test !== c.gold) otherCount++;
    }
  }
  const a = oracleChoice(errors);
  const b = oracleChoice(f1);
  const differ = a.filter((x, i) => x !== b[i]).length;
  const n = errors.sentences.length;
  const pct = (x: number, of: number): string => `${((100 * x) / of).toFixed(1)}%`;
  console.log(
    `| ${file.split('/').slice(-2).join('/')} | ${n} | ${empty} (${pct(empty, n)}) | ${pct(otherCount, candidates)} | ${differ} (${pct(differ, n)}) | ` +
      `${corpusF1(errors, baseChoice(errors)).toFixed(2)} | ${corpusF1(errors, a).toFixed(2)} / ${corpusF1(errors, b).toFixed(2)} |`,
  );
}

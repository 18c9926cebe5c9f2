/**
 * k-best modes compared on the same parser pool: for each list file `<stem>.<mode>.jsonl` that
 * a pipeline candidate step wrote (parser base with `pool` > `nbest`, lib/trees/kbest-modes.ts),
 * the base F1 (first candidate), the oracle F1 (best candidate by Score), the mean list length
 * and the share of candidates that repeat an earlier candidate's bracketing with other tags.
 *
 *   npx tsx bench/floresta-rerank-kbest.ts <step-folder>/nbest [<step-folder>/dev ...]
 */
import { existsSync } from 'node:fs';
import { readNbestSync } from '../lib/io/nbest.js';
import { baseChoice, corpusF1, oracleChoice, scoreSet } from '../lib/pipeline/evaluate.js';
import { KBEST_TAG_MODES } from '../lib/trees/kbest-modes.js';
import { tagOnlyVariantShare } from '../lib/trees/kbest-modes.js';
import { parseTree } from '../lib/trees/bracket-parser.js';
import { processorLine } from './processor.js';

console.log(processorLine());

const stems = process.argv.slice(2);
if (stems.length === 0) {
  console.error('usage: npx tsx bench/floresta-rerank-kbest.ts <stem> ...  (reads <stem>.<mode>.jsonl)');
  process.exit(2);
}
console.log('| list | mode | sentences | candidates per sentence | tag-only variants | base F1 | oracle F1 |');
console.log('|---|---|---|---|---|---|---|');
for (const stem of stems) {
  for (const mode of KBEST_TAG_MODES) {
    const file = `${stem}.${mode}.jsonl`;
    if (!existsSync(file)) continue;
    const sentences = readNbestSync(file);
    const set = scoreSet(sentences);
    let variants = 0;
    let candidates = 0;
    for (const s of sentences) {
      const share = tagOnlyVariantShare(
        s.candidates.map((c) => ({ tree: parseTree(c.tree as string), logprob: c.logprob })),
      );
      variants += share.variants;
      candidates += share.candidates;
    }
    const row = [
      stem.split('/').slice(-2).join('/'),
      mode,
      sentences.length,
      (candidates / sentences.length).toFixed(2),
      `${((100 * variants) / candidates).toFixed(1)}%`,
      corpusF1(set, baseChoice(set)).toFixed(2),
      corpusF1(set, oracleChoice(set)).toFixed(2),
    ];
    console.log(`| ${row.join(' | ')} |`);
  }
}

import { z } from 'zod';
import { defineCommand } from './command.js';
import { option } from '../options/field.js';
import { json, optionalFile, requiredFile } from '../options/common.js';
import { COLLINS_PARAMS, DEFAULT_CUTOFF } from '../eval/evalb.js';
import { readEvalbParams } from '../eval/evalb-params.js';
import { scoreTreebankFiles } from '../eval/parse-files.js';
import { EVALB_HEADER, formatEvalbReport, formatSentenceLine } from '../eval/evalb-format.js';

const command = defineCommand({
  description: `Scores the parses in T against the gold trees in G as EVALB does with COLLINS.prm (labeled
brackets; TOP, -NONE- and the punctuation tags , : \`\` '' . deleted; labels cut at '-'/'=';
ADVP = PRT), for all sentences and for sentences of length <= cutoff, plus a per-label table.
Sentences with a length or word mismatch, or an empty test line, are reported on stderr and
skipped, however many there are. A malformed tree, or files with different numbers of
trees, is refused with an error naming the file and line.`,
  options: {
    gold: requiredFile('gold treebank (bracketed; one tree per line or spread over lines)', 'G'),
    test: requiredFile(
      'parser output, aligned with G; a blank line or () / (()) is a failed parse (skipped, as EVALB does)',
      'T',
    ),
    cutoff: option(
      z.number().int().min(0).optional(),
      `length cutoff of the second summary (default ${DEFAULT_CUTOFF}, or the --params file's)`,
      { value: 'N' },
    ),
    json: option(json, 'print {"all": S, "cutoff": S, "byLabel": {...}}'),
    verbose: option(z.boolean().default(false), "print EVALB's per-sentence lines before the summary"),
    params: optionalFile('an EVALB parameter file instead of COLLINS.prm', 'P'),
    ignoreBlankLines: option(
      z.boolean().default(false),
      'blank lines in T separate trees rather than mark failed parses',
    ),
    stripRoot: option(
      z.boolean().default(false),
      'remove the root wrapper (unlabeled, ROOT or TOP, one child) from both trees, so it is not counted',
    ),
  },
  examples: [
    'structrank eval parse --gold test.mrg --test test.parsed',
    'structrank eval parse --gold test.mrg --test test.parsed --params COLLINS.prm --verbose',
    'structrank eval parse --gold test.mrg --test test.parsed --strip-root',
  ],
  async run(values) {
    const { gold, test } = values;
    const prm = values.params !== undefined ? readEvalbParams(values.params) : undefined;
    const cutoff = values.cutoff ?? prm?.cutoff ?? DEFAULT_CUTOFF;
    const verbose = values.verbose === true && values.json !== true;
    if (verbose) console.log(EVALB_HEADER);
    const acc = await scoreTreebankFiles(gold, test, {
      cutoff,
      params: prm?.params ?? COLLINS_PARAMS,
      ignoreBlankLines: values.ignoreBlankLines,
      stripRoot: values.stripRoot,
      onSentence(s, index, goldLine, testLine) {
        if (verbose) console.log(formatSentenceLine(index, s));
        if (s.status !== 'ok') {
          const kind = s.status === 'skipped-empty' ? 'skipped' : 'error';
          console.error(
            `structrank: eval parse: sentence ${index} (${gold}:${goldLine}, ${test}:${testLine}): ${kind}: ${s.message}`,
          );
        }
      },
    });
    if (values.json) console.log(JSON.stringify(acc.report()));
    else console.log(formatEvalbReport(acc));
  },
});
export default command;

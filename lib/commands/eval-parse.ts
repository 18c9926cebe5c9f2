import type { Command } from '../cli/command.js';
import { intOption, parseCommandArgs, requireOption } from '../cli/args.js';
import { COLLINS_PARAMS, DEFAULT_CUTOFF } from '../eval/evalb.js';
import { readEvalbParams } from '../eval/evalb-params.js';
import { scoreTreebankFiles } from '../eval/parse-files.js';
import { EVALB_HEADER, formatEvalbReport, formatSentenceLine } from '../eval/evalb-format.js';

const usage = `structrank eval parse --gold G --test T [--cutoff 40] [--json] [--verbose] [--params P.prm] [--ignore-blank-lines]

Scores the parses in T against the gold trees in G as EVALB does with COLLINS.prm (labeled
brackets; TOP, -NONE- and the punctuation tags , : \`\` '' . deleted; labels cut at '-'/'=';
ADVP = PRT), for all sentences and for sentences of length <= cutoff, plus a per-label table.
Sentences with a length or word mismatch, or an empty test line, are reported on stderr and
skipped, however many there are. A malformed tree, or files with different numbers of
trees, is refused with an error naming the file and line.

  --gold G              gold treebank (bracketed; one tree per line or spread over lines)
  --test T              parser output, aligned with G; in a one-tree-per-line file a blank
                        line or () / (()) is a failed parse (skipped, as EVALB does)
  --cutoff N            length cutoff of the second summary (default 40)
  --json                print {"all": S, "cutoff": S, "byLabel": {...}} (see the README)
  --verbose             print EVALB's per-sentence lines before the summary
  --params P            an EVALB parameter file instead of COLLINS.prm
  --ignore-blank-lines  blank lines in T separate trees rather than mark failed parses`;

const command: Command = {
  name: 'eval parse',
  summary: 'EVALB (COLLINS.prm): labeled bracket recall/precision/F1, crossing, tagging',
  usage,
  async run(args) {
    const { values } = parseCommandArgs(
      'eval parse',
      args,
      {
        gold: { type: 'string' },
        test: { type: 'string' },
        cutoff: { type: 'string' },
        json: { type: 'boolean' },
        verbose: { type: 'boolean' },
        params: { type: 'string' },
        'ignore-blank-lines': { type: 'boolean' },
      },
      false,
    );
    const gold = requireOption('eval parse', values.gold, 'gold');
    const test = requireOption('eval parse', values.test, 'test');
    const prm = values.params !== undefined ? readEvalbParams(values.params) : undefined;
    const cutoff = intOption('eval parse', values.cutoff, 'cutoff', prm?.cutoff ?? DEFAULT_CUTOFF, 0);
    const verbose = values.verbose === true && values.json !== true;
    if (verbose) console.log(EVALB_HEADER);
    const acc = await scoreTreebankFiles(gold, test, {
      cutoff,
      params: prm?.params ?? COLLINS_PARAMS,
      ignoreBlankLines: values['ignore-blank-lines'] === true,
      onSentence(s, index, goldLine, testLine) {
        if (verbose) console.log(formatSentenceLine(index, s));
        if (s.status !== 'ok') {
          const kind = s.status === 'skipped-empty' ? 'skipped' : 'error';
          console.error(`structrank: eval parse: sentence ${index} (${gold}:${goldLine}, ${test}:${testLine}): ${kind}: ${s.message}`);
        }
      },
    });
    if (values.json) console.log(JSON.stringify(acc.report()));
    else console.log(formatEvalbReport(acc));
  },
};
export default command;

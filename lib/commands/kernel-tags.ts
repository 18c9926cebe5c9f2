import type { Command } from '../cli/command.js';
import { intOption, parseCommandArgs } from '../cli/args.js';
import { InputError, UsageError } from '../errors.js';
import { readConllSync } from '../io/conll.js';
import { SequenceBank, builtinWordFeatures, type BuiltinWordFeature } from '../kernels/sequence-bank.js';
import { gramAsync } from '../kernels/kernel.js';
import { lambdaOption, printMatrix, rethrowNative } from './kernel-output.js';
import { resolveThreads } from '../native.js';

const usage = `structrank kernel tags --lambda L [--sim2 F] A.conll [B.conll] [--columns word,pos,tag] [--threads N] [--json]

Prints the tagging-kernel Gram matrix of the sentences of A against those of B (or of A
against itself): Delta = (1 + Sim1) (1 + lambda Delta(next)) at equal tags, where Sim1 is
1 for equal words; with --sim2 F, Delta = (1 + Sim1/2 + Sim2/2) (1 + lambda Delta(next)),
Sim2 = 1 when both words have the same class under the word feature F.

  --lambda L       decay, 0 < L <= 1 (required)
  --sim2 F         word feature: ${builtinWordFeatures.join(', ')}
  --columns LIST   names of the CoNLL columns in order (default word,pos,tag); the
                   columns named word and tag are used
  --normalize      K(a,b) / sqrt(K(a,a) K(b,b))
  --plain          use the plain reference algorithm (full table)
  --threads N      threads (default: all cores)
  --json           print {"rows": [[...], ...]} (default: one row per line, space-separated)`;

const command: Command = {
  name: 'kernel tags',
  summary: 'Gram matrix of the tagging kernel between CoNLL files',
  usage,
  async run(args) {
    const { values, positionals } = parseCommandArgs('kernel tags', args, {
      lambda: { type: 'string' },
      sim2: { type: 'string' },
      columns: { type: 'string' },
      normalize: { type: 'boolean' },
      plain: { type: 'boolean' },
      threads: { type: 'string' },
      json: { type: 'boolean' },
    });
    const lambda = lambdaOption('kernel tags', values.lambda);
    const threads = resolveThreads(intOption('kernel tags', values.threads, 'threads', 0));
    const columns = (values.columns ?? 'word,pos,tag').split(',').map((c) => c.trim());
    if (!columns.includes('word') || !columns.includes('tag')) {
      throw new UsageError(`kernel tags: --columns must name a 'word' and a 'tag' column, got '${values.columns}'`);
    }
    const sim2 = values.sim2;
    if (sim2 !== undefined && !builtinWordFeatures.includes(sim2 as BuiltinWordFeature)) {
      throw new UsageError(`kernel tags: invalid value for --sim2: '${sim2}' (${builtinWordFeatures.join(', ')})`);
    }
    if (positionals.length < 1 || positionals.length > 2) throw new UsageError('kernel tags: expected one or two CoNLL files');
    const banks = positionals.map((file) => {
      const sentences = readConllSync(file, { columns: columns.length });
      // As kernel trees: a file of blank lines has nothing to compare (it printed an empty matrix).
      if (sentences.length === 0) throw new InputError(file, undefined, 'no sentences in file');
      return SequenceBank.fromConll(sentences, columns, {
        source: file,
        wordFeature: sim2 as BuiltinWordFeature | undefined,
      });
    });
    const a = banks[0];
    const b = banks[1];
    const matrix = await rethrowNative(() =>
      gramAsync(a, b ?? null, { lambda, sim2: sim2 !== undefined, normalize: !!values.normalize, plain: !!values.plain, threads }),
    );
    await printMatrix(matrix, (b ?? a).size, !!values.json);
  },
};
export default command;

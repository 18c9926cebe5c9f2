import { z } from 'zod';
import { defineCommand } from '../cli/command.js';
import { option } from '../options/field.js';
import { InputError, UsageError } from '../errors.js';
import { readConllSync } from '../io/conll.js';
import { SequenceBank, builtinWordFeatures, type BuiltinWordFeature } from '../kernels/sequence-bank.js';
import { gramAsync } from '../kernels/kernel.js';
import { kernelFields, printMatrix, rethrowNative } from './kernel-output.js';
import { resolveThreads } from '../native.js';
import { kernelShardFields } from '../options/distributed.js';
import { cliSignal } from '../cli/signal.js';

const command = defineCommand({
  description: `Prints the tagging-kernel Gram matrix of the sentences of A against those of B (or of A
against itself): Delta = (1 + Sim1) (1 + lambda Delta(next)) at equal tags, where Sim1 is
1 for equal words; with --sim2 F, Delta = (1 + Sim1/2 + Sim2/2) (1 + lambda Delta(next)),
Sim2 = 1 when both words have the same class under the word feature F.`,
  options: {
    lambda: kernelFields.lambda,
    sim2: option(z.enum(builtinWordFeatures as readonly [BuiltinWordFeature, ...BuiltinWordFeature[]]).optional(), 'word feature of the Sim2 term', { value: 'F' }),
    columns: option(z.string().default('word,pos,tag'), 'names of the CoNLL columns in order; the columns named word and tag are used', { value: 'LIST' }),
    normalize: kernelFields.normalize,
    plain: kernelFields.plain,
    threads: kernelFields.threads,
    json: kernelFields.json,
    ...kernelShardFields,
  },
  arguments: '[A.conll] [B.conll]',
  examples: ['structrank kernel tags --lambda 0.5 a.conll', 'structrank kernel tags --lambda 0.5 --sim2 caps --columns word,pos,tag a.conll b.conll --json'],
  async run(values, { positionals, given }) {
    const { lambda, sim2 } = values;
    const threads = resolveThreads(values.threads);
    const columns = values.columns.split(',').map((c) => c.trim());
    if (!columns.includes('word') || !columns.includes('tag')) {
      throw new UsageError(`kernel tags: --columns must name a 'word' and a 'tag' column, got '${values.columns}'`);
    }
    if (positionals.length < 1 || positionals.length > 2) throw new UsageError('kernel tags: expected one or two CoNLL files');
    // --redis/--store: row blocks as jobs on a queue (lib/distributed/kernel-shards.ts, docs/scaling.md).
    if (values.redis !== undefined || values.store !== undefined) return (await import('../distributed/kernel-shards.js')).runKernelSharded('tags', positionals, values, cliSignal());
    if (given.has('--shard-size')) throw new UsageError('kernel tags: --shard-size needs --redis and --store');
    const banks = positionals.map((file) => {
      const sentences = readConllSync(file, { columns: columns.length });
      // As kernel trees: a file of blank lines has nothing to compare (it printed an empty matrix).
      if (sentences.length === 0) throw new InputError(file, undefined, 'no sentences in file');
      return SequenceBank.fromConll(sentences, columns, {
        source: file,
        wordFeature: sim2,
      });
    });
    const a = banks[0];
    const b = banks[1];
    const matrix = await rethrowNative(() =>
      gramAsync(a, b ?? null, { lambda, sim2: sim2 !== undefined, normalize: !!values.normalize, plain: !!values.plain, threads }),
    );
    await printMatrix(matrix, (b ?? a).size, !!values.json);
  },
});
export default command;

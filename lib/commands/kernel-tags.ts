import { z } from 'zod';
import { defineCommand } from './command.js';
import { option } from '../options/field.js';
import { UsageError } from '../errors.js';
import { columnFormatOf, conlluTagField, CONLLU_TAG_FIELD_NAMES, type ColumnFormat } from '../io/conllu.js';
import { readSequenceFile, type SequenceFileOptions } from '../kernels/sequence-files.js';
import { columnFormat } from '../options/common.js';
import { builtinWordFeatures, type BuiltinWordFeature } from '../kernels/sequence-bank.js';
import { gramAsync } from '../kernels/kernel.js';
import { kernelFields, rethrowNative } from './kernel-output.js';
import { printMatrix } from '../kernels/print-matrix.js';
import { resolveThreads } from '../native.js';
import { kernelShardFields } from '../options/distributed.js';
import { cliSignal } from './signal.js';

/** The input options of `kernel tags`, checked: CoNLL columns naming word and tag, or a CoNLL-U tag field. */
export function sequenceFileOptions(
  values: { columns: string; format?: ColumnFormat; tag?: string },
  given: ReadonlySet<string>,
  firstFile: string,
): SequenceFileOptions {
  const format = columnFormatOf(firstFile, values.format);
  const columns = values.columns.split(',').map((c) => c.trim());
  if (format === 'conllu') {
    if (given.has('--columns'))
      throw new UsageError(
        "kernel tags: --columns names CoNLL columns; with CoNLL-U files, --tag names the tags' field",
      );
    const tagField = conlluTagField(values.tag);
    if (tagField === undefined)
      throw new UsageError(
        `kernel tags: --tag names a CoNLL-U field among ${CONLLU_TAG_FIELD_NAMES}; got '${values.tag}'`,
      );
    return { format, columns, tagField };
  }
  if (values.tag !== undefined)
    throw new UsageError('kernel tags: --tag names a CoNLL-U field; CoNLL files name their tag column in --columns');
  if (!columns.includes('word') || !columns.includes('tag')) {
    throw new UsageError(`kernel tags: --columns must name a 'word' and a 'tag' column, got '${values.columns}'`);
  }
  return { format, columns, tagField: 'upos' };
}

const command = defineCommand({
  description: `Prints the tagging-kernel Gram matrix of the sentences of A against those of B (or of A
against itself): Delta = (1 + Sim1) (1 + lambda Delta(next)) at equal tags, where Sim1 is
1 for equal words; with --sim2 F, Delta = (1 + Sim1/2 + Sim2/2) (1 + lambda Delta(next)),
Sim2 = 1 when both words have the same class under the word feature F.`,
  options: {
    lambda: kernelFields.lambda,
    sim2: option(
      z.enum(builtinWordFeatures as readonly [BuiltinWordFeature, ...BuiltinWordFeature[]]).optional(),
      'word feature of the Sim2 term',
      { value: 'F' },
    ),
    columns: option(
      z.string().default('word,pos,tag'),
      'names of the CoNLL columns in order; the columns named word and tag are used',
      { value: 'LIST' },
    ),
    format: columnFormat,
    tag: option(z.string().optional(), 'CoNLL-U: the field holding the tags (default upos); the FORMs are the words', {
      value: 'FIELD',
    }),
    normalize: kernelFields.normalize,
    plain: kernelFields.plain,
    threads: kernelFields.threads,
    json: kernelFields.json,
    ...kernelShardFields,
  },
  arguments: '[A.conll] [B.conll]',
  examples: [
    'structrank kernel tags --lambda 0.5 a.conll',
    'structrank kernel tags --lambda 0.5 --sim2 caps --columns word,pos,tag a.conll b.conll --json',
    'structrank kernel tags --lambda 0.5 --tag upos a.conllu b.conllu',
  ],
  async run(values, { positionals, given }) {
    const { lambda, sim2 } = values;
    const threads = resolveThreads(values.threads);
    if (positionals.length < 1 || positionals.length > 2)
      throw new UsageError('kernel tags: expected one or two CoNLL or CoNLL-U files');
    const files = { ...sequenceFileOptions(values, given, positionals[0]), wordFeature: sim2 };
    // --redis/--store: row blocks as jobs on a queue (lib/distributed/kernel-shards.ts, docs/scaling.md).
    if (values.redis !== undefined || values.store !== undefined)
      return (await import('../distributed/kernel-shards.js')).runKernelSharded(
        'tags',
        positionals,
        { ...values, files },
        cliSignal(),
      );
    if (given.has('--shard-size')) throw new UsageError('kernel tags: --shard-size needs --redis and --store');
    const banks = positionals.map((file) => {
      const read = readSequenceFile(file, file, files);
      return read.bank(0, read.size);
    });
    const a = banks[0];
    const b = banks[1];
    const matrix = await rethrowNative(() =>
      gramAsync(a, b ?? null, {
        lambda,
        sim2: sim2 !== undefined,
        normalize: !!values.normalize,
        plain: !!values.plain,
        threads,
      }),
    );
    await printMatrix(matrix, (b ?? a).size, !!values.json);
  },
});
export default command;

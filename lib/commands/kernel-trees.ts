import { z } from 'zod';
import { defineCommand } from './command.js';
import { option } from '../options/field.js';
import { UsageError } from '../errors.js';
import { kernelTreesMatrix } from './kernel-trees-run.js';
import { kernelFields, rethrowNative } from './kernel-output.js';
import { printMatrix } from '../kernels/print-matrix.js';
import { resolveThreads } from '../native.js';
import { kernelShardFields } from '../options/distributed.js';
import { cliSignal } from './signal.js';

const command = defineCommand({
  description: `Prints the subset-tree kernel Gram matrix of the trees of A against those of B (or of A
against itself): K = sum over node pairs of Delta, Delta = lambda at equal preterminal
productions, lambda * prod(1 + Delta(children)) at equal inner productions.

Trees are used as given (function tags, indices, -NONE- kept unless --strip), except that
an unlabeled outer wrapper "( (S ...))" is removed.`,
  options: {
    lambda: kernelFields.lambda,
    depth: option(z.number().int().min(1).optional(), 'only fragments of depth <= D (one production = depth 1)', {
      value: 'D',
    }),
    normalize: kernelFields.normalize,
    strip: option(z.boolean().default(false), 'strip function tags and indices, remove -NONE- elements first'),
    plain: kernelFields.plain,
    threads: kernelFields.threads,
    json: kernelFields.json,
    ...kernelShardFields,
  },
  arguments: '[A.mrg] [B.mrg]',
  examples: [
    'structrank kernel trees --lambda 0.4 --normalize a.mrg',
    'structrank kernel trees --lambda 0.4 --depth 3 a.mrg b.mrg --json',
  ],
  async run(values, { positionals, given }) {
    if (positionals.length < 1 || positionals.length > 2)
      throw new UsageError('kernel trees: expected one or two treebank files');
    // --redis/--store: row blocks as jobs on a queue (lib/distributed/kernel-shards.ts, docs/scaling.md).
    if (values.redis !== undefined || values.store !== undefined)
      return (await import('../distributed/kernel-shards.js')).runKernelSharded(
        'trees',
        positionals,
        values,
        cliSignal(),
      );
    if (given.has('--shard-size')) throw new UsageError('kernel trees: --shard-size needs --redis and --store');
    const settings = {
      lambda: values.lambda,
      depth: values.depth,
      normalize: !!values.normalize,
      strip: !!values.strip,
      plain: !!values.plain,
      threads: resolveThreads(values.threads),
    };
    const { matrix, cols } = await rethrowNative(() => kernelTreesMatrix(positionals, settings));
    await printMatrix(matrix, cols, !!values.json);
  },
});
export default command;

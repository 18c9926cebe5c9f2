import type { Command } from '../cli/command.js';
import { intOption, parseCommandArgs } from '../cli/args.js';
import { UsageError } from '../errors.js';
import { readTreebankSync } from '../io/treebank.js';
import { TreeBank } from '../kernels/tree-bank.js';
import { gramAsync } from '../kernels/kernel.js';
import { printMatrix, lambdaOption, rethrowNative } from './kernel-output.js';
import { resolveThreads } from '../native.js';

const usage = `structrank kernel trees --lambda L [--depth D] [--normalize] A.mrg [B.mrg] [--strip] [--threads N] [--json]

Prints the subset-tree kernel Gram matrix of the trees of A against those of B (or of A
against itself): K = sum over node pairs of Delta, Delta = lambda at equal preterminal
productions, lambda * prod(1 + Delta(children)) at equal inner productions.

  --lambda L     decay, 0 < L <= 1 (required)
  --depth D      only fragments of depth <= D (one production = depth 1)
  --normalize    K(a,b) / sqrt(K(a,a) K(b,b))
  --strip        strip function tags and indices, remove -NONE- elements first
  --plain        use the plain all-pairs reference algorithm
  --threads N    threads (default: all cores)
  --json         print {"rows": [[...], ...]} (default: one row per line, space-separated)

Trees are used as given (function tags, indices, -NONE- kept unless --strip), except that
an unlabeled outer wrapper "( (S ...))" is removed.`;

const command: Command = {
  name: 'kernel trees',
  summary: 'Gram matrix of the subset-tree kernel between treebank files',
  usage,
  async run(args) {
    const { values, positionals } = parseCommandArgs('kernel trees', args, {
      lambda: { type: 'string' },
      depth: { type: 'string' },
      normalize: { type: 'boolean' },
      plain: { type: 'boolean' },
      strip: { type: 'boolean' },
      threads: { type: 'string' },
      json: { type: 'boolean' },
    });
    const lambda = lambdaOption('kernel trees', values.lambda);
    const depth = values.depth === undefined ? undefined : intOption('kernel trees', values.depth, 'depth', 0, 1);
    const threads = resolveThreads(intOption('kernel trees', values.threads, 'threads', 0));
    if (positionals.length < 1 || positionals.length > 2) throw new UsageError('kernel trees: expected one or two treebank files');
    const banks = positionals.map((file) => {
      const parsed = readTreebankSync(file);
      return TreeBank.fromTrees(
        parsed.map((p) => p.tree),
        { source: file, lines: parsed.map((p) => p.line), strip: !!values.strip },
      );
    });
    const a = banks[0];
    const b = banks[1];
    const matrix = await rethrowNative(() =>
      gramAsync(a, b ?? null, { lambda, depth, normalize: !!values.normalize, plain: !!values.plain, threads }),
    );
    await printMatrix(matrix, (b ?? a).size, !!values.json);
  },
};
export default command;

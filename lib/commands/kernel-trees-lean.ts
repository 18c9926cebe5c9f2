/**
 * `structrank kernel trees` without loading the option machinery (commander and zod take
 * about 70 ms of CPU to load, more than reading and comparing 500 trees). It takes only plain
 * spellings: `--lambda X` (0 < X <= 1), `--depth N` (N >= 1), `--threads N`, the flags
 * `--normalize --strip --plain --json`, each at most once, and one or two files not starting
 * with '-'. For anything else (help, other spellings, out-of-range values) and for any error
 * before printing, it declines: the full CLI then runs the command from the start and reports
 * as usual, so usage and error messages have one source (lib/commands/kernel-trees.ts).
 */
import { resolveThreads } from '../native.js';
import { printMatrix } from '../kernels/print-matrix.js';
import { kernelTreesMatrix, type KernelTreesSettings } from './kernel-trees-run.js';

const PLAIN_NUMBER = /^(\d+(\.\d*)?|\.\d+)$/;
const FLAGS = new Set(['--normalize', '--strip', '--plain', '--json']);
const VALUES: Record<string, (x: number) => boolean> = {
  '--lambda': (x) => x > 0 && x <= 1,
  '--depth': (x) => Number.isInteger(x) && x >= 1,
  '--threads': (x) => Number.isInteger(x) && x >= 0,
};

/** The settings and files of `args` (after 'kernel trees'), or undefined when the full CLI must handle them. */
export function leanKernelTreesArgs(
  args: readonly string[],
): { files: string[]; settings: KernelTreesSettings; json: boolean } | undefined {
  const seen = new Map<string, number | true>();
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (seen.has(arg)) return undefined;
    if (FLAGS.has(arg)) seen.set(arg, true);
    else if (arg in VALUES) {
      const text = args[++i];
      if (text === undefined || !PLAIN_NUMBER.test(text) || !VALUES[arg](Number(text))) return undefined;
      seen.set(arg, Number(text));
    } else if (arg.startsWith('-') || arg === '') return undefined;
    else files.push(arg);
  }
  const lambda = seen.get('--lambda');
  if (typeof lambda !== 'number' || files.length < 1 || files.length > 2) return undefined;
  const depth = seen.get('--depth');
  return {
    files,
    json: seen.has('--json'),
    settings: {
      lambda,
      depth: typeof depth === 'number' ? depth : undefined,
      normalize: seen.has('--normalize'),
      strip: seen.has('--strip'),
      plain: seen.has('--plain'),
      threads: resolveThreads(seen.get('--threads') as number | undefined),
    },
  };
}

/** Runs `kernel trees` on `args` if the lean path takes them; false: the full CLI must run it. */
export async function runLeanKernelTrees(args: readonly string[]): Promise<boolean> {
  const parsed = leanKernelTreesArgs(args);
  if (parsed === undefined) return false;
  let result: Awaited<ReturnType<typeof kernelTreesMatrix>>;
  try {
    result = await kernelTreesMatrix(parsed.files, parsed.settings);
  } catch {
    return false;
  }
  await printMatrix(result.matrix, result.cols, parsed.json);
  return true;
}

/**
 * `structrank tag --model M --input F [--out O] [--separator S] [--threads N]` straight from
 * the command line, without loading the command tree and its option schemas (commander and
 * zod cost a tagging process about as much CPU as tagging the CoNLL-2000 test set). It only
 * recognizes that plain form; anything else (other options, `--flag=value`, --help, a value
 * the schema rejects) returns undefined and the full command line handles it, with the same
 * options, checks and messages. A `--threads` value is checked by its option schema
 * (lib/options/common.ts), loaded only when the flag is given.
 */
import { reportRunError } from './report.js';
import { columnFormatOf } from '../io/conllu.js';

const FLAGS = new Set(['--model', '--input', '--out', '--separator', '--threads']);

/** The plain `tag` options, or undefined when the full command line must handle `argv`. */
export function plainTagOptions(argv: readonly string[]): Map<string, string> | undefined {
  if (argv[0] !== 'tag' || argv.length % 2 === 0) return undefined;
  const values = new Map<string, string>();
  for (let i = 1; i < argv.length; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (!FLAGS.has(flag) || values.has(flag)) return undefined;
    if (value === '' || (value.startsWith('-') && value !== '-')) return undefined;
    values.set(flag, value);
  }
  if (!values.has('--model') || !values.has('--input')) return undefined;
  if (columnFormatOf(values.get('--input') as string) === 'conllu') return undefined;
  const separator = values.get('--separator');
  if (separator !== undefined && separator !== 'whitespace' && separator !== 'tab') return undefined;
  return values;
}

/** Runs a plain `tag` command line; undefined when it is not one (see plainTagOptions). */
export async function fastTag(argv: readonly string[]): Promise<number | undefined> {
  const values = plainTagOptions(argv);
  if (values === undefined) return undefined;
  const threadsText = values.get('--threads');
  let threads: number | undefined;
  if (threadsText !== undefined) {
    const parsed = (await import('../options/common.js')).threads.safeParse(
      threadsText.trim() === '' ? Number.NaN : Number(threadsText),
    );
    if (!parsed.success) return undefined;
    threads = parsed.data;
  }
  let releaseLocks: (() => void) | undefined;
  try {
    const [
      { Tagger },
      { tagStream },
      { resolveThreads },
      { cliSignal },
      { claimOutputs },
      { releaseAllLocks },
      { fileProgress },
    ] = await Promise.all([
      import('../tagger/tagger.js'),
      import('../tagger/tag-stream.js'),
      import('../native.js'),
      import('../commands/signal.js'),
      import('../commands/claim.js'),
      import('../io/folder-lock.js'),
      import('../progress.js'),
    ]);
    releaseLocks = releaseAllLocks;
    claimOutputs(
      'tag',
      { '--model': values.get('--model'), '--input': values.get('--input') },
      { '--out': values.get('--out') },
    );
    const tagger = Tagger.loadSync(values.get('--model') as string);
    const progress = fileProgress('tag', values.get('--input') as string);
    await tagStream(tagger, {
      onBlock: progress.onBytes,
      input: values.get('--input') as string,
      out: values.get('--out'),
      separator: (values.get('--separator') ?? 'whitespace') as 'whitespace' | 'tab',
      threads: resolveThreads(threads),
      signal: cliSignal(),
    });
    progress.finish();
    return 0;
  } catch (err) {
    return reportRunError(err, (s) => process.stderr.write(s));
  } finally {
    releaseLocks?.();
  }
}

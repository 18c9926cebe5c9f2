/**
 * One `structrank parse --threads 1` of a treebank as a user runs it (start-up and model
 * loading included) under /usr/bin/time: its CPU seconds, max RSS and EVALB F1. The parser
 * benches compare two such runs in the same repetition.
 */
import { join } from 'node:path';
import { repoRoot as root } from '../test-support/shared-data.js';
import { readTreesSync } from '../lib/io/treebank.js';
import { evalbCorpus } from '../lib/eval/evalb.js';
import type { Tree } from '../lib/trees/tree.js';
import { measure } from './peers/process-time.js';

export interface ParseRun {
  cpu: number;
  rssMb: number;
  f1: { cutoff: number; all: number };
}

/** Parses `gold`'s words with `model` and `extra` options in `work`, scoring against `golds` (its trees). */
export function parseRun(model: string, extra: string[], gold: string, golds: readonly Tree[], work: string): ParseRun {
  const out = join(work, 'out.mrg');
  const { cpu, rssMb } = measure(
    process.execPath,
    [
      join(root, 'dist', 'cli.js'),
      'parse',
      '--model',
      model,
      ...extra,
      '--input',
      gold,
      '--out',
      out,
      '--threads',
      '1',
    ],
    { timeFile: join(work, 'time.txt') },
  );
  const parsed = readTreesSync(out);
  const report = evalbCorpus(golds.map((g, i) => [g, parsed[i]] as const));
  return { cpu, rssMb, f1: { cutoff: report.cutoff.f1, all: report.all.f1 } };
}

/** `name: CPU s, sentences per CPU s, MB, F1 <= 40 / all`. */
export function parseRunLine(name: string, r: ParseRun, sentences: number): string {
  return `${name}: ${r.cpu.toFixed(2)} CPU s, ${(sentences / r.cpu).toFixed(1)} sentences per CPU s, ${r.rssMb.toFixed(0)} MB, F1 ${r.f1.cutoff.toFixed(2)} / ${r.f1.all.toFixed(2)}`;
}

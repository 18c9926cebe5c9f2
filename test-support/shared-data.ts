/**
 * Where the shared data sets are (../shared/data beside the repository, or
 * $STRUCTRANK_SHARED_DATA), for the tests (test/helpers.ts re-exports these) and the
 * benchmarks. Imports neither lib/ nor vitest.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** ../shared/data next to the repository (CI places it there), or $STRUCTRANK_SHARED_DATA. */
export const sharedData = process.env.STRUCTRANK_SHARED_DATA ?? resolve(repoRoot, '..', 'shared', 'data');

export function dataFile(...parts: string[]): string {
  return join(sharedData, ...parts);
}

/** The data sets tests read from the shared folder; only gum-open ships in the package (data/). */
export type SharedDataSet = 'ptb-sample' | 'conll2000' | 'conll2002-esp' | 'ud-ewt' | 'floresta-pt';

/** Start of the title of the one test standing in for tests skipped for missing data (scripts/run-tests.mjs counts them). */
export const NEEDS_DATA = 'needs shared data:';

export function hasData(set: SharedDataSet): boolean {
  return existsSync(join(sharedData, set));
}

/** The one line saying what is missing and how to get it; undefined when everything is there. */
export function missingDataLine(sets: readonly SharedDataSet[]): string | undefined {
  const missing = sets.filter((set) => !hasData(set));
  if (missing.length === 0) return undefined;
  const where = missing.map((set) => join(sharedData, set)).join(', ');
  return `${NEEDS_DATA} ${where} missing (put the data sets in ../shared/data or set STRUCTRANK_SHARED_DATA); see README "Tests and data"`;
}

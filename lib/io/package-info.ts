/**
 * Where the package is installed, and its own version, read from its package.json: the one
 * place a release changes it. `structrank --version` prints the version, and the pipeline's
 * step keys hash it, so that a new version does not reuse the lists and models an older one
 * cached.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: this file sits in lib/io/ (or dist/io/), two folders below it. */
export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let version: string | undefined;

/** The version in the package root's package.json. */
export function packageVersion(): string {
  version ??= (
    JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  return version;
}

/**
 * The package's own version, read from its package.json: the one place a release changes it.
 * `structrank --version` prints it, and the pipeline's step keys hash it, so that a new version
 * does not reuse the lists and models an older one cached.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let version: string | undefined;

/** The version in the package.json two folders above this file (lib/io/ or dist/io/). */
export function packageVersion(): string {
  version ??= (
    JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  return version;
}

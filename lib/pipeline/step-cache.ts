/**
 * Content-addressed step outputs for long pipelines. A step's key hashes its name, its
 * options, the content of its input files and the package version (a new version may make
 * other lists from the same options); its output folder is `<root>/<name>-<hash>`.
 * A step writes into a temporary folder that is renamed into place only when it finishes,
 * so a killed run leaves no folder that looks finished, and a rerun skips finished steps.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packageVersion } from '../io/package-info.js';

export interface StepResult {
  /** Folder holding the step's outputs. */
  dir: string;
  /** True when the outputs came from an earlier run. */
  cached: boolean;
}

/** SHA-256 of a file's bytes, streamed. */
export async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Stable JSON: object keys sorted, so equal options hash equally. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
}

export async function stepKey(name: string, options: unknown, inputFiles: string[]): Promise<string> {
  const hash = createHash('sha256');
  hash.update(packageVersion()).update('\0').update(name).update('\0').update(stableStringify(options)).update('\0');
  for (const file of inputFiles) hash.update(await hashFile(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

export class StepCache {
  constructor(readonly root: string) {
    mkdirSync(root, { recursive: true });
  }

  /**
   * Runs `work(tempDir)` unless a finished output for the same key exists.
   * `work` writes its outputs into the folder it is given.
   */
  async run(
    name: string,
    options: unknown,
    inputFiles: string[],
    work: (dir: string) => Promise<void>,
  ): Promise<StepResult> {
    const key = await stepKey(name, options, inputFiles);
    const dir = join(this.root, `${name}-${key}`);
    if (existsSync(dir) && statSync(dir).isDirectory()) return { dir, cached: true };
    const temp = `${dir}.partial`;
    rmSync(temp, { recursive: true, force: true });
    mkdirSync(temp, { recursive: true });
    await work(temp);
    renameSync(temp, dir);
    return { dir, cached: false };
  }
}

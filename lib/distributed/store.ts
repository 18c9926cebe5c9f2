/// <reference types="node" preserve="true" />
/**
 * The artifact store: a directory every host sees (a local folder, an NFS mount). Blobs are
 * content-addressed (`blobs/<2 hex>/<sha256>`), written to a temporary file and renamed into
 * place, so a reader never sees half a file, and checked against their hash when read, so a
 * truncated or altered blob is an error, not a wrong result. Step manifests
 * (`steps/<step>.json`) name the blobs a finished job produced; a manifest is written last, so
 * its presence means the step is done. Nothing here reads or writes outside the store's root.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InputError } from '../errors.js';

/** A SHA-256 in lower-case hex: the only way a payload names an artifact. */
export const HASH_PATTERN = /^[0-9a-f]{64}$/;
/** A step id (`train-fold1of5-<key>`): letters, digits, dots, dashes and underscores, no `..`. */
export const STEP_ID_PATTERN = /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** What a finished step left in the store: its output files by name, and its run time. */
export interface StepManifest {
  step: string;
  files: Record<string, string>;
  seconds: number;
  /** Training shard jobs: bytes of weights the job read (0 when its worker had them already). */
  weightsRead?: number;
}

/** A path outside the store, or a name that is not a hash or step id. */
export class StoreRefusal extends InputError {
  constructor(store: string, what: string) {
    super(store, undefined, `refused: ${what} is not inside the artifact store`);
    this.name = 'StoreRefusal';
  }
}

/** Writes pieces one after another into a new file. */
function writePieces(file: string, pieces: readonly Buffer[]): void {
  const fd = openSync(file, 'w');
  try {
    for (const piece of pieces) {
      for (let at = 0; at < piece.length;) at += writeSync(fd, piece, at, piece.length - at);
    }
  } finally {
    closeSync(fd);
  }
}

export class ArtifactStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
    try {
      for (const d of ['blobs', 'steps', 'tmp']) mkdirSync(join(this.root, d), { recursive: true });
    } catch (err) {
      throw new InputError(this.root, undefined, `cannot use as the artifact store: ${(err as Error).message}`);
    }
  }

  /** Resolves a path relative to the root, refusing anything that leaves it. */
  inside(relative: string): string {
    const full = resolve(this.root, relative);
    if (full !== this.root && !full.startsWith(this.root + sep)) throw new StoreRefusal(this.root, `'${relative}'`);
    return full;
  }

  blobPath(hash: string): string {
    if (!HASH_PATTERN.test(hash)) throw new StoreRefusal(this.root, `'${hash}' (not a SHA-256)`);
    return this.inside(join('blobs', hash.slice(0, 2), hash));
  }

  private stepPath(step: string): string {
    if (!STEP_ID_PATTERN.test(step)) throw new StoreRefusal(this.root, `step '${step}'`);
    return this.inside(join('steps', `${step}.json`));
  }

  /** Writes bytes (or pieces, in order) under a unique temporary name in the store, then renames it into place. */
  private writeAtomic(target: string, bytes: Buffer | string | readonly Buffer[]): void {
    const temp = this.inside(join('tmp', `${randomBytes(8).toString('hex')}.part`));
    if (Array.isArray(bytes)) writePieces(temp, bytes as readonly Buffer[]);
    else writeFileSync(temp, bytes as Buffer | string);
    try {
      mkdirSync(join(target, '..'), { recursive: true });
      renameSync(temp, target);
    } catch (err) {
      rmSync(temp, { force: true });
      throw err;
    }
  }

  /**
   * Stores bytes, or the bytes of pieces one after another; returns their SHA-256 (the same
   * bytes stored twice are one blob).
   */
  put(bytes: Buffer | string | readonly Buffer[]): string {
    const pieces =
      typeof bytes === 'string'
        ? [Buffer.from(bytes, 'utf8')]
        : Array.isArray(bytes)
          ? (bytes as readonly Buffer[])
          : [bytes as Buffer];
    const sha = createHash('sha256');
    for (const piece of pieces) sha.update(piece);
    const hash = sha.digest('hex');
    const target = this.blobPath(hash);
    if (!existsSync(target)) this.writeAtomic(target, pieces);
    return hash;
  }

  /** Stores a file from anywhere (the coordinator's inputs), streamed; returns its SHA-256. */
  async putFile(file: string): Promise<string> {
    const temp = this.inside(join('tmp', `${randomBytes(8).toString('hex')}.part`));
    const hash = createHash('sha256');
    try {
      await pipeline(
        createReadStream(file),
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            hash.update(chunk);
            done(null, chunk);
          },
        }),
        createWriteStream(temp),
      );
    } catch (err) {
      rmSync(temp, { force: true });
      throw new InputError(file, undefined, `cannot store: ${(err as Error).message}`);
    }
    const digest = hash.digest('hex');
    const target = this.blobPath(digest);
    if (existsSync(target)) rmSync(temp, { force: true });
    else {
      mkdirSync(join(target, '..'), { recursive: true });
      renameSync(temp, target);
    }
    return digest;
  }

  has(hash: string): boolean {
    return existsSync(this.blobPath(hash));
  }

  /** Reads a blob and checks its hash. */
  get(hash: string): Buffer {
    const file = this.blobPath(hash);
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      throw new InputError(file, undefined, 'artifact is missing from the store');
    }
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== hash) throw new InputError(file, undefined, `artifact is corrupt (its SHA-256 is ${actual})`);
    return bytes;
  }

  /**
   * The path of a verified blob, for readers that take a file name (the treebank and CoNLL
   * readers). The hash is checked first; the store never rewrites a blob in place.
   */
  verifiedPath(hash: string): string {
    this.get(hash);
    return this.blobPath(hash);
  }

  readManifest(step: string): StepManifest | undefined {
    const file = this.stepPath(step);
    if (!existsSync(file)) return undefined;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as StepManifest;
    for (const hash of Object.values(manifest.files)) if (!this.has(hash)) return undefined;
    return manifest;
  }

  /**
   * Removes a step's manifest and the blobs it names: for the per-iteration artifacts of
   * distributed training (weights, gradients), which nothing reads once they are summed.
   */
  discardStep(step: string): void {
    const manifest = this.readManifest(step);
    rmSync(this.stepPath(step), { force: true });
    for (const hash of Object.values(manifest?.files ?? {})) this.discard(hash);
  }

  /** Removes one blob (a no-op when it is not there). */
  discard(hash: string): void {
    rmSync(this.blobPath(hash), { force: true });
  }

  /** Marks a step done: written after every blob it names is in place. */
  writeManifest(manifest: StepManifest): void {
    for (const hash of Object.values(manifest.files)) this.blobPath(hash);
    this.writeAtomic(this.stepPath(manifest.step), JSON.stringify(manifest));
  }
}

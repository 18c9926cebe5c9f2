/// <reference types="node" preserve="true" />
/**
 * The model file container shared by every trainer. Layout (little-endian):
 *   magic "SRNKMDL\0" | u32 container version | u32 kind length | kind (UTF-8)
 *   | u32 kind version | u32 meta length | meta (JSON, UTF-8) | u64 payload length | payload
 *   | 32-byte SHA-256 of everything before it.
 * Native models provide the payload bytes; TypeScript-side state goes in `meta`.
 * Files are written to a temporary name in the same folder and renamed into place, so a
 * crash never leaves a half-written model under the real name.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { IoError, ModelFileError, ModelKindError } from '../errors.js';
import { readWholeFile, readWholeFileAsync } from './lines.js';
import { isDeviceOrPipe } from './atomic-writer.js';

const MAGIC = Buffer.from('SRNKMDL\0', 'latin1');
const CONTAINER_VERSION = 1;
const DIGEST_BYTES = 32;

export interface ModelFile<Meta = unknown> {
  /** What kind of model this is, e.g. 'crf-tagger'. */
  kind: string;
  /** Version of the kind's own payload format. */
  kindVersion: number;
  meta: Meta;
  payload: Uint8Array;
}

/** How a model file is written. */
export interface EncodeOptions {
  /**
   * Start the payload at a multiple of 8 bytes from the start of the file (the metadata
   * JSON is padded with spaces), so a reader can use 8-byte arrays in it where they lie.
   */
  alignPayload?: boolean;
}

/**
 * The file's bytes as consecutive parts, the digest last: the payload is not copied, so
 * writing a model needs no second buffer of its size.
 */
function modelFileParts(model: ModelFile, options: EncodeOptions): Uint8Array[] {
  const kind = Buffer.from(model.kind, 'utf8');
  let metaText = JSON.stringify(model.meta ?? null);
  if (options.alignPayload) {
    // Payload offset: magic, version, kind length, kind, kind version, meta length, meta, payload length.
    const before = MAGIC.length + 4 + 4 + kind.length + 4 + 4 + Buffer.byteLength(metaText, 'utf8') + 8;
    metaText += ' '.repeat((8 - (before % 8)) % 8);
  }
  const meta = Buffer.from(metaText, 'utf8');
  const head = Buffer.alloc(MAGIC.length + 4 + 4);
  MAGIC.copy(head, 0);
  head.writeUInt32LE(CONTAINER_VERSION, MAGIC.length);
  head.writeUInt32LE(kind.length, MAGIC.length + 4);
  const mid = Buffer.alloc(8);
  mid.writeUInt32LE(model.kindVersion, 0);
  mid.writeUInt32LE(meta.length, 4);
  const payloadLength = Buffer.alloc(8);
  payloadLength.writeBigUInt64LE(BigInt(model.payload.length));
  const parts: Uint8Array[] = [head, kind, mid, meta, payloadLength, model.payload];
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  parts.push(hash.digest());
  return parts;
}

export function encodeModel(model: ModelFile, options: EncodeOptions = {}): Buffer {
  return Buffer.concat(modelFileParts(model, options));
}

export function decodeModel<Meta = unknown>(bytes: Buffer, file = '<buffer>', expectKind?: string): ModelFile<Meta> {
  const bad = (problem: string): never => {
    throw new ModelFileError(file, problem);
  };
  if (bytes.length < MAGIC.length || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) {
    bad('not a structrank model file (bad magic number)');
  }
  if (bytes.length < MAGIC.length + 8 + DIGEST_BYTES) bad('model file is truncated');
  const version = bytes.readUInt32LE(MAGIC.length);
  if (version > CONTAINER_VERSION)
    bad(`model file version ${version} is newer than this structrank supports (${CONTAINER_VERSION})`);
  const body = bytes.subarray(0, bytes.length - DIGEST_BYTES);
  const digest = bytes.subarray(bytes.length - DIGEST_BYTES);
  let pos = MAGIC.length + 4;
  const need = (n: number): void => {
    if (pos + n > body.length) bad('model file is truncated');
  };
  need(4);
  const kindLength = body.readUInt32LE(pos);
  pos += 4;
  need(kindLength);
  const kind = body.subarray(pos, pos + kindLength).toString('utf8');
  pos += kindLength;
  need(8);
  const kindVersion = body.readUInt32LE(pos);
  const metaLength = body.readUInt32LE(pos + 4);
  pos += 8;
  need(metaLength);
  const metaText = body.subarray(pos, pos + metaLength).toString('utf8');
  pos += metaLength;
  need(8);
  const payloadLength = Number(body.readBigUInt64LE(pos));
  pos += 8;
  if (pos + payloadLength !== body.length) bad('model file is truncated or has trailing bytes');
  if (!createHash('sha256').update(body).digest().equals(digest)) bad('model file is corrupted (checksum mismatch)');
  if (expectKind !== undefined && kind !== expectKind) throw new ModelKindError(file, expectKind, kind);
  let meta: Meta;
  try {
    meta = JSON.parse(metaText) as Meta;
  } catch {
    return bad('model metadata is not valid JSON');
  }
  return { kind, kindVersion, meta, payload: new Uint8Array(body.buffer, body.byteOffset + pos, payloadLength) };
}

/** Writes bytes (or consecutive parts of them) atomically: temp file in the same folder, fsync, rename. */
export function writeFileAtomic(file: string, bytes: Uint8Array | readonly Uint8Array[]): void {
  const parts = bytes instanceof Uint8Array ? [bytes] : bytes;
  if (isDeviceOrPipe(file)) {
    // /dev/null, a pipe: written in place (a rename would replace the device with a file).
    try {
      writeFileSync(file, Buffer.concat(parts));
    } catch (err) {
      throw new IoError(file, `cannot write model: ${(err as Error).message}`, { cause: err });
    }
    return;
  }
  const temp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'w');
    for (const part of parts) {
      let offset = 0;
      while (offset < part.length) offset += writeSync(fd, part, offset);
    }
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, file);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(temp);
    } catch {
      /* the temp file may not exist */
    }
    throw new IoError(file, `cannot write model: ${(err as Error).message}`, { cause: err });
  }
}

export function saveModel(file: string, model: ModelFile, options: EncodeOptions = {}): void {
  writeFileAtomic(file, modelFileParts(model, options));
}

/** Reads a model file; a file of another kind than `expectKind` is a ModelKindError. */
export function loadModel<Meta = unknown>(file: string, expectKind?: string): ModelFile<Meta> {
  return decodeModel<Meta>(readWholeFile(file), file, expectKind);
}

/** loadModel without blocking the event loop while the file is read. */
export async function loadModelAsync<Meta = unknown>(file: string, expectKind?: string): Promise<ModelFile<Meta>> {
  return decodeModel<Meta>(await readWholeFileAsync(file), file, expectKind);
}

/** The kind and kind version a model file declares, e.g. `{ kind: 'tagger', kindVersion: 1 }` (the whole file is checked). */
export function modelKind(file: string): { kind: string; kindVersion: number } {
  const { kind, kindVersion } = loadModel(file);
  return { kind, kindVersion };
}

/// <reference types="node" preserve="true" />
/**
 * A weight vector sent to the shards, or a shard's result (a gradient, a perceptron epoch's
 * weights), as a store blob: dense (8 bytes per value) or sparse (4-byte index + 8-byte value
 * per nonzero), whichever is smaller. A shard's gradient is zero on every feature its
 * sentences never fire, and the weights stay zero on features no sentence fires, so for
 * hashed feature spaces (the CRF parser's 2^22 surface weights) most of both are zeros.
 *
 * Lossless: the sparse form leaves out only +0 entries (Object.is), and a missing entry is
 * read back as +0, so the decoded vector equals the encoded one bit for bit (-0 included)
 * and the coordinator's sums, and hence the trained model, are unchanged.
 *
 * Layout, little-endian: u32 magic, u32 length n, u32 stored count m, u32 owner; then dense:
 * the n values; sparse: the m indices, padding to 8 bytes, the m values.
 *
 * The owner tag (a run's nonce for weights, a hash of the step id for a result) makes equal
 * vectors of different runs or steps different blobs: the store is content-addressed and a
 * run discards its blobs once summed, which must never remove a blob another step still
 * names (a shard with no perceptron updates returns the very weights it was sent).
 */
import { InputError } from '../errors.js';

const DENSE = 0x31445653; // "SVD1"
const SPARSE = 0x31535653; // "SVS1"
const HEADER = 16;

const isPositiveZero = (v: number): boolean => Object.is(v, 0);

/**
 * The blob of the vector made of `values` one after another (a result is [loss, gradient...]),
 * as pieces to write one after another: dense values are not copied (a copy of 3.4 MB, most
 * of it page faults on fresh memory, cost about 2 ms per evaluation).
 */
export function encodeVectorParts(values: Float64Array | readonly Float64Array[], owner = 0): Buffer[] {
  const pieces = values instanceof Float64Array ? [values] : values;
  let n = 0;
  let m = 0;
  for (const piece of pieces) {
    n += piece.length;
    for (let k = 0; k < piece.length; k++) if (!isPositiveZero(piece[k])) m++;
  }
  const indexBytes = (m * 4 + 7) & ~7;
  const sparse = indexBytes + m * 8 < n * 8;
  const header = Buffer.alloc(HEADER);
  header.writeUInt32LE(sparse ? SPARSE : DENSE, 0);
  header.writeUInt32LE(n, 4);
  header.writeUInt32LE(sparse ? m : n, 8);
  header.writeUInt32LE(owner >>> 0, 12);
  if (!sparse) return [header, ...pieces.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength))];
  const body = Buffer.alloc(indexBytes + m * 8);
  const index = new Uint32Array(m);
  const stored = new Float64Array(m);
  let j = 0;
  let at = 0;
  for (const piece of pieces) {
    for (let k = 0; k < piece.length; k++) {
      if (isPositiveZero(piece[k])) continue;
      index[j] = at + k;
      stored[j++] = piece[k];
    }
    at += piece.length;
  }
  Buffer.from(index.buffer).copy(body, 0);
  Buffer.from(stored.buffer).copy(body, indexBytes);
  return [header, body];
}

/** The blob in one buffer. */
export function encodeVector(values: Float64Array | readonly Float64Array[], owner = 0): Buffer {
  return Buffer.concat(encodeVectorParts(values, owner));
}

export function decodeVector(bytes: Buffer): Float64Array {
  const fail = (why: string): never => {
    throw new InputError('', undefined, `a weight or result blob ${why}`);
  };
  if (bytes.length < HEADER) fail('shorter than its header');
  const magic = bytes.readUInt32LE(0);
  const n = bytes.readUInt32LE(4);
  const m = bytes.readUInt32LE(8);
  if (magic === DENSE) {
    if (m !== n || bytes.length !== HEADER + n * 8) fail('of the wrong size');
    // A file read whole starts its own buffer, so its values are 8-byte aligned and are used
    // where they lie; a pooled Buffer's offset need not be, and is copied.
    const at = bytes.byteOffset + HEADER;
    if (at % 8 === 0) return new Float64Array(bytes.buffer, at, n);
    const out = new Float64Array(n);
    new Uint8Array(out.buffer).set(bytes.subarray(HEADER));
    return out;
  }
  const out = new Float64Array(n);
  if (magic !== SPARSE) fail('of an unknown kind');
  const indexBytes = (m * 4 + 7) & ~7;
  if (m > n || bytes.length !== HEADER + indexBytes + m * 8) fail('of the wrong size');
  // Copies: a Buffer's offset in its pool need not be aligned for typed views.
  const index = new Uint32Array(m);
  new Uint8Array(index.buffer).set(bytes.subarray(HEADER, HEADER + m * 4));
  const stored = new Float64Array(m);
  new Uint8Array(stored.buffer).set(bytes.subarray(HEADER + indexBytes));
  for (let j = 0; j < m; j++) {
    if (index[j] >= n || (j > 0 && index[j] <= index[j - 1])) fail('with indices out of order');
    out[index[j]] = stored[j];
  }
  return out;
}

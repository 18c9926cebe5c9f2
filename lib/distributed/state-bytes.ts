/**
 * A coordinator's optimizer state as bytes, for the `external` section of a training
 * checkpoint: a JSON header of scalars and the Float64 vectors after it, bit for bit.
 * Layout: u32 header length (LE), the header (UTF-8), zero padding to 8 bytes, the vectors
 * one after another (their lengths are in the header).
 */
import { ModelFileError } from '../errors.js';

export interface StateParts {
  header: Record<string, unknown>;
  vectors: Float64Array[];
}

export function encodeState(kind: string, parts: StateParts): Uint8Array {
  const header = Buffer.from(
    JSON.stringify({ kind, ...parts.header, lengths: parts.vectors.map((v) => v.length) }),
    'utf8',
  );
  const start = Math.ceil((4 + header.length) / 8) * 8;
  const total = start + parts.vectors.reduce((n, v) => n + v.byteLength, 0);
  const out = Buffer.alloc(total);
  out.writeUInt32LE(header.length, 0);
  header.copy(out, 4);
  let at = start;
  for (const v of parts.vectors) {
    out.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), at);
    at += v.byteLength;
  }
  return out;
}

/** The parts of a state `encodeState(kind, ...)` wrote; a ModelFileError naming no file (the caller's checkpoint) for anything else. */
export function decodeState(kind: string, bytes: Uint8Array): StateParts {
  const fail = (why: string): never => {
    throw new ModelFileError('', `checkpoint: the distributed trainer's state ${why}`);
  };
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 4) fail('is truncated');
  const n = b.readUInt32LE(0);
  if (4 + n > b.length) fail('is truncated');
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(b.subarray(4, 4 + n).toString('utf8')) as Record<string, unknown>;
  } catch {
    return fail('has a bad header');
  }
  if (header.kind !== kind) fail(`is of another trainer (${String(header.kind)}, not ${kind})`);
  const lengths = header.lengths;
  if (!Array.isArray(lengths) || !lengths.every((x) => Number.isInteger(x) && x >= 0)) return fail('has a bad header');
  let at = Math.ceil((4 + n) / 8) * 8;
  const vectors: Float64Array[] = [];
  for (const len of lengths as number[]) {
    if (at + 8 * len > b.length) fail('is truncated');
    const v = new Float64Array(len);
    new Uint8Array(v.buffer).set(b.subarray(at, at + 8 * len));
    vectors.push(v);
    at += 8 * len;
  }
  if (at !== b.length) fail('has trailing bytes');
  return { header, vectors };
}

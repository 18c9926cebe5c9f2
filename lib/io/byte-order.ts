/// <reference types="node" preserve="true" />
/**
 * Typed arrays to and from the little-endian bytes model payloads store. Every platform we
 * ship is little-endian, where these are plain copies; a big-endian host swaps each element,
 * so a model file is the same bytes everywhere (see docs/formats.md).
 */
import { endianness } from 'node:os';

const HOST_IS_LITTLE_ENDIAN = endianness() === 'LE';

type FixedWidthArray = Int32Array | Uint32Array | Float32Array | Float64Array | BigInt64Array | BigUint64Array;
type FixedWidthArrayClass<A extends FixedWidthArray> = { new (length: number): A; readonly BYTES_PER_ELEMENT: number };

function swapEach(bytes: Buffer, width: number): void {
  if (width === 4) bytes.swap32();
  else if (width === 8) bytes.swap64();
  else if (width === 2) bytes.swap16();
}

/** The array's elements as little-endian bytes (a view of `a` on little-endian hosts). */
export function littleEndianBytes(a: FixedWidthArray): Buffer {
  const view = Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  if (HOST_IS_LITTLE_ENDIAN) return view;
  const copy = Buffer.from(view);
  swapEach(copy, a.BYTES_PER_ELEMENT);
  return copy;
}

/** A new array of `bytes.length / BYTES_PER_ELEMENT` elements read from little-endian bytes. */
export function fromLittleEndianBytes<A extends FixedWidthArray>(Type: FixedWidthArrayClass<A>, bytes: Uint8Array): A {
  const out = new Type(bytes.length / Type.BYTES_PER_ELEMENT);
  const target = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  target.set(bytes);
  if (!HOST_IS_LITTLE_ENDIAN) swapEach(target, Type.BYTES_PER_ELEMENT);
  return out;
}

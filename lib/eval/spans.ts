/**
 * Chunk / entity spans of a tag sequence, for the four tag schemes (defined once; used by
 * conlleval-style evaluation, the rerankers' Score, the pipeline and the report):
 *
 * - `iob1`, `iob2`: conlleval.pl's startOfChunk / endOfChunk rules, which read IOB1 and
 *   IOB2 alike: a B- always opens a chunk, an I- after O or after another type opens one,
 *   a change of type closes one. They also carry conlleval.pl's handling of other
 *   prefixes: E- is IOE's end tag (E-X E-X is two chunks, E-X I-X too), `[` and `]` are
 *   one-token chunks, and any other prefix (S-, L-, U-, ...) only opens or closes a chunk
 *   by a change of type, so conlleval.pl run on raw IOBES data merges `B-X E-X S-X` into
 *   one chunk. That is what the reference does, and what these two schemes reproduce.
 * - `iobes` (B, I, E, S) and `bilou` (B, I, L, U; the same scheme with L = E and U = S):
 *   B-/S- open a chunk, E-/S- close it, and an I-/E- that does not continue a chunk of its
 *   type opens one (so an ill-formed sequence still yields spans, as conlleval's rules do
 *   for an I- after O). On well-formed data the spans equal conlleval's spans of the same
 *   sequence converted to IOB2.
 */
import { UsageError } from '../errors.js';

/** How chunk or entity labels mark their spans: IOB1, IOB2, IOBES or BILOU (the rules above). */
export type TagScheme = 'iob1' | 'iob2' | 'iobes' | 'bilou';

export const TAG_SCHEMES: readonly TagScheme[] = ['iob1', 'iob2', 'iobes', 'bilou'];

/** One chunk: its type and token range. */
export interface ChunkSpan {
  type: string;
  /** First token of the chunk. */
  start: number;
  /** One past the chunk's last token. */
  end: number;
}

/** Splits a tag at its first '-' into prefix and type, as conlleval does. */
export function splitTag(tag: string): { prefix: string; type: string } {
  const dash = tag.indexOf('-');
  if (dash < 0) return { prefix: tag, type: '' };
  const type = tag.slice(dash + 1);
  // conlleval writes `$type ? $type : ""`: a Perl-false type ("0") becomes "".
  return { prefix: tag.slice(0, dash), type: type === '0' ? '' : type };
}

/** A boundary rule: does a chunk start (or end) between the previous token and this one? */
export type ChunkRule = (prevPrefix: string, prefix: string, prevType: string, type: string) => boolean;

/** conlleval's endOfChunk. */
function conllEnd(prevTag: string, tag: string, prevType: string, type: string): boolean {
  if (prevTag === 'B' && (tag === 'B' || tag === 'O')) return true;
  if (prevTag === 'I' && (tag === 'B' || tag === 'O')) return true;
  if (prevTag === 'E' && (tag === 'E' || tag === 'I' || tag === 'O')) return true;
  if (prevTag !== 'O' && prevTag !== '.' && prevType !== type) return true;
  // conlleval: chunks tagged [ or ] have length 1.
  return prevTag === ']' || prevTag === '[';
}

/** conlleval's startOfChunk. */
function conllStart(prevTag: string, tag: string, prevType: string, type: string): boolean {
  if (tag === 'B' && (prevTag === 'B' || prevTag === 'I' || prevTag === 'O')) return true;
  if (prevTag === 'O' && (tag === 'I' || tag === 'E')) return true;
  if (prevTag === 'E' && (tag === 'E' || tag === 'I')) return true;
  if (tag !== 'O' && tag !== '.' && prevType !== type) return true;
  return tag === '[' || tag === ']';
}

/** BILOU's L and U are IOBES's E and S. */
const bilouToIobes = (p: string): string => (p === 'L' ? 'E' : p === 'U' ? 'S' : p);
const inside = (p: string) => p === 'B' || p === 'I';
const continues = (p: string) => p === 'I' || p === 'E';

function iobesEnd(prevTag: string, tag: string, prevType: string, type: string): boolean {
  if (prevTag === 'E' || prevTag === 'S') return true;
  if (inside(prevTag)) return !continues(tag) || prevType !== type;
  return false;
}

function iobesStart(prevTag: string, tag: string, prevType: string, type: string): boolean {
  if (tag === 'B' || tag === 'S') return true;
  if (continues(tag)) return !inside(prevTag) || prevType !== type;
  return false;
}

const bilouEnd: ChunkRule = (p, t, pt, ty) => iobesEnd(bilouToIobes(p), bilouToIobes(t), pt, ty);
const bilouStart: ChunkRule = (p, t, pt, ty) => iobesStart(bilouToIobes(p), bilouToIobes(t), pt, ty);

/** The start and end rules of a scheme. */
export function chunkRules(scheme: TagScheme): { start: ChunkRule; end: ChunkRule } {
  switch (scheme) {
    case 'iob1':
    case 'iob2':
      return { start: conllStart, end: conllEnd };
    case 'iobes':
      return { start: iobesStart, end: iobesEnd };
    case 'bilou':
      return { start: bilouStart, end: bilouEnd };
    default:
      throw new UsageError(`unknown tag scheme '${String(scheme)}' (${TAG_SCHEMES.join(', ')})`);
  }
}

/**
 * The chunks of one tag sequence (a sentence).
 *
 * @example
 * ```ts
 * chunkSpans(['B-PER', 'I-PER', 'O', 'S-LOC'], 'iobes');
 * // [{ type: 'PER', start: 0, end: 2 }, { type: 'LOC', start: 3, end: 4 }]
 * ```
 */
export function chunkSpans(tags: readonly string[], scheme: TagScheme = 'iob2'): ChunkSpan[] {
  const { start, end } = chunkRules(scheme);
  const spans: ChunkSpan[] = [];
  let open: { type: string; start: number } | undefined;
  let prevTag = 'O';
  let prevType = '';
  for (let i = 0; i < tags.length; i++) {
    const { prefix, type } = splitTag(tags[i]);
    if (open && end(prevTag, prefix, prevType, type)) {
      spans.push({ type: open.type, start: open.start, end: i });
      open = undefined;
    }
    if (start(prevTag, prefix, prevType, type)) {
      if (open) spans.push({ type: open.type, start: open.start, end: i });
      open = { type, start: i };
    }
    prevTag = prefix;
    prevType = type;
  }
  if (open) spans.push({ type: open.type, start: open.start, end: tags.length });
  return spans;
}

const CHUNK_TAG = /^[BIESLU]-./;

/** True for `O` and for tags with a chunk prefix (B-, I-, E-, S-, L-, U-) and a type. */
export function isChunkTag(tag: string): boolean {
  return tag === 'O' || CHUNK_TAG.test(tag);
}

/**
 * The scheme of gold tag sequences: `bilou` when an L- or U- occurs, `iobes` when an E- or
 * S- occurs, else `iob2` (conlleval's rules, which read IOB1 alike; also when every tag is
 * `O`); undefined when some tag is not a chunk tag (plain tagging, e.g. parts of speech).
 */
export function detectTagScheme(golds: Iterable<readonly string[]>): TagScheme | undefined {
  let iobes = false;
  let bilou = false;
  for (const g of golds) {
    for (const t of g) {
      if (t === 'O') continue;
      if (!CHUNK_TAG.test(t)) return undefined;
      const p = t[0];
      if (p === 'E' || p === 'S') iobes = true;
      else if (p === 'L' || p === 'U') bilou = true;
    }
  }
  return bilou ? 'bilou' : iobes ? 'iobes' : 'iob2';
}

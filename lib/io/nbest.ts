/**
 * The n-best file format: JSON Lines, one sentence per line.
 *
 *   {"id": "s1", "tokens": ["He", "ran"],
 *    "candidates": [{"tree": "(S (NP (PRP He)) (VP (VBD ran)))", "logprob": -12.5, "features": {"rule=S": 1}}],
 *    "gold": "(S (NP (PRP He)) (VP (VBD ran)))"}
 *
 * Required: `id` (string), `tokens` (array of strings), `candidates` (non-empty array;
 * each with `tree` (a bracketed tree string) or `tags` (array of strings, one per token)
 * and a finite number `logprob`). Optional: `gold` (a bracketed tree string, or an array
 * of tags) and per-candidate `features` (object from feature name to finite number).
 * Extra fields are ignored. All candidates of a file are of one kind (trees or tags).
 * The words of every candidate and gold tree must be the tokens, in order, apart from empty
 * elements (preterminals tagged -NONE-, as everywhere else); tag lists have one tag per token.
 * Blank lines are skipped.
 */
import { InputError, optionError } from '../errors.js';
import { MAX_TREE_DEPTH, parseTree } from '../trees/bracket-parser.js';
import type { KbestTagMode } from '../trees/kbest-modes.js';
import { readLines, readLinesSync, type Line } from './lines.js';
import { writeTextAtomic } from './atomic-writer.js';

export interface NbestCandidate {
  /** A bracketed parse tree (parse n-best lists). */
  tree?: string;
  /** One tag per token (tagging n-best lists). */
  tags?: string[];
  /** Log-probability under the base model. */
  logprob: number;
  /** Optional precomputed features: name -> value. */
  features?: Record<string, number>;
}

export interface NbestSentence {
  id: string;
  tokens: string[];
  candidates: NbestCandidate[];
  /** Gold tree (bracketed string) or gold tags. */
  gold?: string | string[];
  /** Line number in the file the sentence was read from (0 for sentences built in memory). */
  line: number;
}

/**
 * Most candidates a k-best list may ask for (tag --nbest, parse --nbest, the API's k). The
 * k-best algorithms keep up to k partial derivations per chart cell or lattice state, so
 * memory grows with k: --nbest 1000000 took gigabytes within seconds. Rerankers use 10-100.
 */
export const MAX_NBEST = 1000;

/** Trees parsed per candidate kept when a k-best mode other than 'all' picks from a pool. */
export const KBEST_POOL_FACTOR = 5;

/**
 * Trees parsed per sentence for k candidates by `mode` (trees/kbest-modes.ts): `pool` if given
 * (at least k), else k for 'all' and KBEST_POOL_FACTOR x k (at most MAX_NBEST) for the modes
 * that skip trees.
 */
export function kbestPoolSize(k: number, mode: KbestTagMode = 'all', pool?: number): number {
  return Math.max(k, pool ?? (mode === 'all' ? k : Math.min(MAX_NBEST, KBEST_POOL_FACTOR * k)));
}

/** Refuses a k outside 1..MAX_NBEST, naming it as `name` (e.g. '--nbest'). */
export function checkNbestK(k: number, name = 'k'): void {
  if (!Number.isInteger(k) || k < 1) throw optionError(`${name} must be a positive integer`);
  if (k > MAX_NBEST)
    throw optionError(`${name} is at most ${MAX_NBEST} (k-best lists take memory in proportion to k), not ${k}`);
}

/** What the candidates of a file are. */
export type NbestKind = 'trees' | 'tags';

/** The kind of a sentence's candidates. */
export function nbestKind(s: NbestSentence): NbestKind {
  return s.candidates[0]?.tags !== undefined ? 'tags' : 'trees';
}

/** 'trees' or 'tag sequences', for messages. */
export function nbestKindName(kind: NbestKind): string {
  return kind === 'trees' ? 'trees' : 'tag sequences';
}

/** The kind of a list's candidates; undefined for an empty or absent list. */
export function listKind(list: readonly NbestSentence[] | undefined): NbestKind | undefined {
  return list && list.length > 0 ? nbestKind(list[0]) : undefined;
}

/**
 * Refuses `file` when its candidates are of another kind than those of `referenceFile`
 * (a dev file of tag sequences for a reranker trained on trees); unknown kinds pass.
 */
export function requireSameKind(
  file: string,
  kind: NbestKind | undefined,
  referenceFile: string,
  referenceKind: NbestKind | undefined,
): void {
  if (kind && referenceKind && kind !== referenceKind) {
    throw new InputError(
      file,
      undefined,
      `holds ${nbestKindName(kind)} but ${referenceFile} holds ${nbestKindName(referenceKind)}`,
    );
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

const OPEN = 40; // (
const CLOSE = 41; // )

/** White space as the bracket parser's `\s` sees it. */
function isSpace(c: number, text: string, at: number): boolean {
  if (c === 32 || (c >= 9 && c <= 13)) return true;
  return c > 127 && /\s/.test(text[at]);
}

/**
 * Allocation-free check that `text` holds exactly one tree that parseTree accepts: balanced
 * brackets nested at most MAX_TREE_DEPTH deep, every node either a labeled preterminal
 * with one word or a node with subtrees,
 * no words beside subtrees, nothing outside the brackets. Node states: 0 = nothing yet,
 * 1 = label only, 2 = label and word, 3 = has subtrees.
 */
export function isOneWellFormedTree(text: string): boolean {
  const states: number[] = [];
  let trees = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text.charCodeAt(i);
    if (ch === OPEN) {
      if (states.length > 0 && states[states.length - 1] === 2) return false;
      if (states.length >= MAX_TREE_DEPTH) return false;
      states.push(0);
      i++;
    } else if (ch === CLOSE) {
      const state = states.pop();
      if (state === undefined || state < 2) return false;
      if (states.length > 0) states[states.length - 1] = 3;
      else trees++;
      i++;
    } else if (isSpace(ch, text, i)) {
      i++;
    } else {
      const j = tokenEnd(text, i); // a word token: up to the next bracket or white space
      if (states.length === 0) return false;
      const top = states.length - 1;
      if (states[top] === 0) states[top] = 1;
      else if (states[top] === 1) states[top] = 2;
      else return false;
      i = j;
    }
  }
  return states.length === 0 && trees === 1;
}

/** The end of the word token starting at `i`: the next bracket or white space. */
function tokenEnd(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === OPEN || c === CLOSE || isSpace(c, text, j)) break;
    j++;
  }
  return j;
}

const EMPTY_ELEMENT = '-NONE-';

/**
 * Compares the overt words of a well-formed tree string (see isOneWellFormedTree) with
 * `tokens`, without building the tree: preterminals tagged -NONE- (empty elements, the rule
 * of isEmptyElement in trees/transforms.ts) are not words. Returns the problem, or undefined
 * when they are equal.
 */
export function treeWordsProblem(text: string, tokens: readonly string[]): string | undefined {
  // 0 = nothing yet, 1 = label seen (its position in labelStart/labelEnd), 2 = word seen.
  const states: number[] = [];
  let labelStart = 0;
  let labelEnd = 0;
  let words = 0;
  let firstDifference: string | undefined;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const ch = text.charCodeAt(i);
    if (ch === OPEN) {
      states.push(0);
      i++;
    } else if (ch === CLOSE) {
      states.pop();
      if (states.length > 0) states[states.length - 1] = 3;
      i++;
    } else if (isSpace(ch, text, i)) {
      i++;
    } else {
      const j = tokenEnd(text, i);
      const top = states.length - 1;
      if (states[top] === 0) {
        states[top] = 1;
        labelStart = i;
        labelEnd = j;
      } else {
        states[top] = 2;
        const empty = labelEnd - labelStart === EMPTY_ELEMENT.length && text.startsWith(EMPTY_ELEMENT, labelStart);
        if (!empty) {
          const token = tokens[words];
          if (
            firstDifference === undefined &&
            (token === undefined || token.length !== j - i || !text.startsWith(token, i))
          ) {
            firstDifference =
              token === undefined
                ? ''
                : `word ${words + 1} is '${text.slice(i, j)}' but token ${words + 1} is '${token}'`;
          }
          words++;
        }
      }
      i = j;
    }
  }
  if (words !== tokens.length)
    return `has ${words} words (not counting ${EMPTY_ELEMENT} elements) for ${tokens.length} tokens`;
  return firstDifference || undefined;
}

/** Validates lines one by one; shared by the sync and async readers. */
export class NbestParser {
  private kind: NbestKind | undefined;
  private kindLine = 0;
  sentences = 0;

  constructor(private readonly file: string) {}

  /** Returns the sentence on a line, or undefined for a blank line. */
  push(line: Line): NbestSentence | undefined {
    const text = line.text;
    if (text.trim() === '') return undefined;
    const fail = (problem: string): never => {
      throw new InputError(this.file, line.number, problem);
    };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return fail(`invalid JSON: ${(err as Error).message}`);
    }
    if (!isObject(value)) return fail('expected a JSON object with id, tokens and candidates');

    const id = value.id;
    if (id === undefined) fail('missing field id');
    if (typeof id !== 'string') fail('id must be a string');

    const tokens = value.tokens;
    if (tokens === undefined) fail('missing field tokens');
    if (!Array.isArray(tokens)) fail('tokens must be an array of strings');
    const tokenList = tokens as unknown[];
    tokenList.forEach((t, i) => {
      if (typeof t !== 'string') fail(`tokens[${i}] must be a string`);
    });
    const n = tokenList.length;

    const checkTags = (v: unknown, field: string): string[] => {
      if (!Array.isArray(v)) return fail(`${field} must be an array of strings`);
      v.forEach((t, i) => {
        if (typeof t !== 'string') fail(`${field}[${i}] must be a string`);
      });
      if (v.length !== n) fail(`${field} has ${v.length} tags for ${n} tokens`);
      return v as string[];
    };
    const checkTree = (v: unknown, field: string): string => {
      if (typeof v !== 'string') return fail(`${field} must be a bracketed tree string`);
      if (!isOneWellFormedTree(v)) {
        // Slow path for the exact message.
        try {
          parseTree(v, this.file, line.number);
        } catch (err) {
          if (err instanceof InputError) fail(`${field}: ${err.problem}`);
          throw err;
        }
      }
      const problem = treeWordsProblem(v, tokenList as string[]);
      if (problem !== undefined) fail(`${field}: the tree's words differ from tokens: ${problem}`);
      return v;
    };

    const rawCandidates = value.candidates;
    if (rawCandidates === undefined) fail('missing field candidates');
    if (!Array.isArray(rawCandidates) || rawCandidates.length === 0) fail('candidates must be a non-empty array');
    const candidates: NbestCandidate[] = [];
    (rawCandidates as unknown[]).forEach((c, i) => {
      const at = `candidates[${i}]`;
      if (!isObject(c)) return fail(`${at} must be an object`);
      const hasTree = c.tree !== undefined;
      const hasTags = c.tags !== undefined;
      if (hasTree && hasTags) fail(`${at} has both tree and tags; give one`);
      if (!hasTree && !hasTags) fail(`${at} needs a tree (bracketed string) or tags (array of strings)`);
      const kind: NbestKind = hasTree ? 'trees' : 'tags';
      if (this.kind === undefined) {
        this.kind = kind;
        this.kindLine = line.number;
      } else if (kind !== this.kind) {
        fail(
          `${at} holds ${kind} but the file's candidates are ${this.kind} (line ${this.kindLine}); one kind per file`,
        );
      }
      if (c.logprob === undefined) fail(`missing field ${at}.logprob`);
      if (!isNumber(c.logprob)) fail(`${at}.logprob must be a number`);
      const out: NbestCandidate = hasTree
        ? { tree: checkTree(c.tree, `${at}.tree`), logprob: c.logprob as number }
        : { tags: checkTags(c.tags, `${at}.tags`), logprob: c.logprob as number };
      if (c.features !== undefined) {
        if (!isObject(c.features)) fail(`${at}.features must be an object from feature name to number`);
        const features = c.features as Record<string, unknown>;
        for (const [name, v] of Object.entries(features)) {
          if (!isNumber(v)) fail(`${at}.features[${JSON.stringify(name)}] must be a number`);
        }
        out.features = features as Record<string, number>;
      }
      candidates.push(out);
    });

    const sentence: NbestSentence = { id: id as string, tokens: tokenList as string[], candidates, line: line.number };
    if (value.gold !== undefined && value.gold !== null) {
      sentence.gold = this.kind === 'tags' ? checkTags(value.gold, 'gold') : checkTree(value.gold, 'gold');
    }
    this.sentences++;
    return sentence;
  }

  /** Call at end of input: an empty file (no sentences) is an error. */
  finish(lines: number): void {
    if (this.sentences === 0)
      throw new InputError(this.file, undefined, lines === 0 ? 'empty file' : 'no sentences in file');
  }
}

/**
 * Streams the sentences of an n-best file, validating each line.
 *
 * @example
 * ```ts
 * for await (const s of readNbest('dev.nbest.jsonl')) console.log(s.id, s.candidates.length);
 * ```
 */
export async function* readNbest(file: string): AsyncGenerator<NbestSentence> {
  const parser = new NbestParser(file);
  let lines = 0;
  for await (const line of readLines(file)) {
    lines = line.number;
    const s = parser.push(line);
    if (s) yield s;
  }
  parser.finish(lines);
}

/**
 * Reads a whole n-best file synchronously.
 *
 * @example
 * ```ts
 * const lists = readNbestSync('train.nbest.jsonl');   // input for the rerankers
 * ```
 */
export function readNbestSync(file: string): NbestSentence[] {
  const parser = new NbestParser(file);
  const out: NbestSentence[] = [];
  let lines = 0;
  for (const line of readLinesSync(file)) {
    lines = line.number;
    const s = parser.push(line);
    if (s) out.push(s);
  }
  parser.finish(lines);
  return out;
}

/** One sentence as a JSON line (without the newline); `line` is not written. */
export function formatNbestLine(s: NbestSentence): string {
  const candidates = s.candidates.map((c, i) => {
    if (!Number.isFinite(c.logprob))
      throw new RangeError(`sentence ${s.id}: candidates[${i}].logprob is not a finite number`);
    const out: Record<string, unknown> = c.tags !== undefined ? { tags: c.tags } : { tree: c.tree };
    out.logprob = c.logprob;
    if (c.features !== undefined) out.features = c.features;
    return out;
  });
  const obj: Record<string, unknown> = { id: s.id, tokens: s.tokens, candidates };
  if (s.gold !== undefined) obj.gold = s.gold;
  return JSON.stringify(obj);
}

/**
 * Writes sentences one per line, atomically: into a temp file in the same folder, renamed
 * over `file` once everything is flushed (a failed write leaves `file` untouched).
 *
 * @example
 * ```ts
 * await writeNbest('dev.nbest.jsonl', lists);   // atomic: a temp file renamed into place
 * ```
 */
export async function writeNbest(
  file: string,
  sentences: Iterable<NbestSentence> | AsyncIterable<NbestSentence>,
): Promise<void> {
  async function* lines(): AsyncGenerator<string> {
    for await (const s of sentences) yield formatNbestLine(s) + '\n';
  }
  await writeTextAtomic(file, lines());
}

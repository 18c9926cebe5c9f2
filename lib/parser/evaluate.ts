/**
 * Labeled-bracket scoring of parser output with EVALB's COLLINS.prm semantics (interim,
 * until lib/eval/evalb.ts is merged): -NONE- and emptied constituents removed, function
 * tags stripped, punctuation (, : `` '' .) deleted before spans are computed, TOP/ROOT and
 * the unlabeled wrapper not counted, ADVP = PRT, preterminals not counted; brackets are
 * matched as a multiset. Sentence length counts every word except -NONE-.
 */
import type { Tree } from '../trees/tree.js';
import type { ChartParserModel } from './chart-parser.js';
import { treeWords } from './input.js';
import { stripFunctionTags, removeEmptyElements } from './standard-transforms.js';

const PUNCT = new Set([',', ':', '``', "''", '.']);
const SKIP = new Set(['', 'TOP', 'ROOT', '-NONE-']);

export interface BracketCounts {
  match: number;
  gold: number;
  test: number;
}

function brackets(t: Tree): string[] {
  const cleaned = removeEmptyElements(stripFunctionTags(t));
  const out: string[] = [];
  if (!cleaned) return out;
  let pos = 0;
  const walk = (n: Tree): void => {
    if (n.word !== undefined) {
      if (!PUNCT.has(n.label)) pos++;
      return;
    }
    const start = pos;
    for (const c of n.children) walk(c);
    if (!SKIP.has(n.label)) {
      const label = n.label === 'PRT' ? 'ADVP' : n.label;
      out.push(`${label} ${start} ${pos}`);
    }
  };
  walk(cleaned);
  return out;
}

export function scoreBrackets(gold: Tree, test: Tree): BracketCounts {
  const g = brackets(gold);
  const t = brackets(test);
  const pool = new Map<string, number>();
  for (const b of g) pool.set(b, (pool.get(b) ?? 0) + 1);
  let match = 0;
  for (const b of t) {
    const c = pool.get(b) ?? 0;
    if (c > 0) {
      match++;
      pool.set(b, c - 1);
    }
  }
  return { match, gold: g.length, test: t.length };
}

export function f1Of(c: BracketCounts): { precision: number; recall: number; f1: number } {
  const precision = c.test ? (100 * c.match) / c.test : 0;
  const recall = c.gold ? (100 * c.match) / c.gold : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

export interface ParserEvaluation {
  precision: number;
  recall: number;
  f1: number;
  sentences: number;
  fallbacks: number;
}

/** Parses the gold trees' words and scores the output against them. */
export async function evaluateParser(
  model: ChartParserModel,
  gold: Tree[],
  options: { threads?: number; maxLength?: number; pcfg?: boolean } = {},
): Promise<ParserEvaluation> {
  const chosen = gold.filter((t) => {
    const n = treeWords(t).length;
    return n > 0 && (options.maxLength === undefined || n <= options.maxLength);
  });
  const parses = await model.parse(chosen.map((t) => treeWords(t)), { threads: options.threads, pcfg: options.pcfg });
  const total: BracketCounts = { match: 0, gold: 0, test: 0 };
  let fallbacks = 0;
  parses.forEach((p, i) => {
    const c = scoreBrackets(chosen[i], p.tree);
    total.match += c.match;
    total.gold += c.gold;
    total.test += c.test;
    if (p.fallback) fallbacks++;
  });
  return { ...f1Of(total), sentences: chosen.length, fallbacks };
}

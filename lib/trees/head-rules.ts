/**
 * Head-rule tables as data (JSON; format in docs/trees-and-evalb.md):
 *
 *   {
 *     "format": "structrank-head-rules 1",
 *     "name": "collins-ptb",
 *     "rules": { "PP": [["right", "IN", "TO"]], "NP": [["rightdis", "NN", "NNS"], ["left", "NP"]] },
 *     "coordination": { "conjunctions": ["CC"], "skip": [",", ":"] },
 *     "otherwise": "left"
 *   }
 *
 * A rule is [direction, label...] with direction left | right | leftdis | rightdis (see
 * heads.ts for what each does); `coordination` (optional) moves a head that follows a
 * conjunction to the conjunct before it; `otherwise` (left | right) picks the first or the
 * last child for labels that have no rules. `learned` lists the labels whose rules came from
 * a treebank (learnHeadRules) rather than from the table. Labels are matched after function
 * tags are stripped (`NP-SBJ` uses the `NP` rules).
 *
 * The Collins PTB table ships as the preset `collins` (data/head-rules/collins-ptb.json,
 * read at run time); any other table is a user file with the same format. Rules for labels
 * a table lacks are learned from a treebank in learn-heads.ts.
 */
import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';
import type { Tree } from './tree.js';
import { basicCategory, ROOT_LABELS } from './transforms.js';

export type HeadDirection = 'left' | 'right' | 'leftdis' | 'rightdis';

export interface HeadRule {
  direction: HeadDirection;
  labels: readonly string[];
}

export interface HeadTable {
  name: string;
  /** Parent label -> rules tried in order. */
  rules: Readonly<Record<string, readonly HeadRule[]>>;
  /** Coordination: a head right after one of `conjunctions` moves to the conjunct before it, skipping `skip` tags. */
  coordination?: { conjunctions: readonly string[]; skip: readonly string[] };
  /** The child taken for labels without rules: the first (left) or the last (right). */
  otherwise: 'left' | 'right';
  /** Labels whose rules were learned from a treebank (not given by the table). */
  learned?: readonly string[];
}

/** The JSON form: rules as [direction, ...labels] arrays. */
export interface HeadTableJson {
  format?: string;
  name?: string;
  description?: string;
  rules: Record<string, Array<[HeadDirection, ...string[]]>>;
  coordination?: { conjunctions: string[]; skip?: string[] };
  otherwise?: 'left' | 'right';
  learned?: string[];
}

export const HEAD_RULES_FORMAT = 'structrank-head-rules 1';
const DIRECTIONS: readonly string[] = ['left', 'right', 'leftdis', 'rightdis'];

/** Shipped presets: name -> file under data/head-rules. */
export const HEAD_RULE_PRESETS: Readonly<Record<string, string>> = { collins: 'collins-ptb.json' };

const isStringList = (x: unknown): x is string[] => Array.isArray(x) && x.every((s) => typeof s === 'string');

/** Validates a parsed JSON head table; errors name `file`. */
export function headTableFromJson(json: unknown, file = '<head rules>'): HeadTable {
  const bad = (why: string): never => {
    throw new InputError(file, undefined, `head rules: ${why}`);
  };
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return bad('expected a JSON object with "rules"');
  const j = json as Record<string, unknown>;
  const known = new Set(['format', 'name', 'description', 'rules', 'coordination', 'otherwise', 'learned']);
  for (const key of Object.keys(j))
    if (!known.has(key)) bad(`unknown key '${key}' (expected ${[...known].join(', ')})`);
  if (j.format !== undefined && j.format !== HEAD_RULES_FORMAT)
    bad(`format '${String(j.format)}' is not '${HEAD_RULES_FORMAT}'`);
  if (typeof j.rules !== 'object' || j.rules === null || Array.isArray(j.rules))
    return bad('"rules" must be an object: label -> list of [direction, label...]');
  const rules: Record<string, HeadRule[]> = {};
  for (const [label, list] of Object.entries(j.rules as Record<string, unknown>)) {
    if (!Array.isArray(list)) return bad(`rules of '${label}' must be a list of [direction, label...]`);
    rules[label] = list.map((rule: unknown) => {
      if (!isStringList(rule) || rule.length === 0 || !DIRECTIONS.includes(rule[0])) {
        return bad(
          `rule ${JSON.stringify(rule)} of '${label}' must be [direction, label...] with direction ${DIRECTIONS.join(' | ')}`,
        );
      }
      return { direction: rule[0] as HeadDirection, labels: rule.slice(1) };
    });
  }
  let coordination: HeadTable['coordination'];
  if (j.coordination !== undefined) {
    const c = j.coordination as Record<string, unknown>;
    if (
      typeof c !== 'object' ||
      c === null ||
      !isStringList(c.conjunctions) ||
      (c.skip !== undefined && !isStringList(c.skip))
    ) {
      bad('"coordination" must be {"conjunctions": [tags], "skip": [tags]}');
    }
    coordination = { conjunctions: c.conjunctions as string[], skip: (c.skip as string[] | undefined) ?? [] };
  }
  if (j.otherwise !== undefined && j.otherwise !== 'left' && j.otherwise !== 'right')
    bad('"otherwise" must be "left" or "right"');
  if (j.learned !== undefined && !isStringList(j.learned)) bad('"learned" must be a list of labels');
  if (j.name !== undefined && typeof j.name !== 'string') bad('"name" must be a string');
  return {
    name: (j.name as string | undefined) ?? file,
    rules,
    coordination,
    otherwise: (j.otherwise as 'left' | 'right' | undefined) ?? 'left',
    learned: j.learned as string[] | undefined,
  };
}

/** The JSON form of a table (what `head-rules --out` writes and headTableFromJson reads). */
export function headTableToJson(t: HeadTable): HeadTableJson {
  const rules: HeadTableJson['rules'] = {};
  for (const [label, list] of Object.entries(t.rules)) rules[label] = list.map((r) => [r.direction, ...r.labels]);
  return {
    format: HEAD_RULES_FORMAT,
    name: t.name,
    rules,
    ...(t.coordination
      ? { coordination: { conjunctions: [...t.coordination.conjunctions], skip: [...t.coordination.skip] } }
      : {}),
    otherwise: t.otherwise,
    ...(t.learned ? { learned: [...t.learned] } : {}),
  };
}

const presetCache = new Map<string, HeadTable>();

/** A shipped preset by name (`collins`). */
export function headRulePreset(name: string): HeadTable {
  const file = HEAD_RULE_PRESETS[name];
  if (file === undefined)
    throw new InputError(
      '<head rules>',
      undefined,
      `unknown head-rule preset '${name}' (presets: ${Object.keys(HEAD_RULE_PRESETS).join(', ')})`,
    );
  let table = presetCache.get(name);
  if (!table) {
    // data/ sits two levels above both lib/trees and dist/trees.
    const url = new URL(`../../data/head-rules/${file}`, import.meta.url);
    table = headTableFromJson(JSON.parse(readFileSync(url, 'utf8')) as unknown, `data/head-rules/${file}`);
    presetCache.set(name, table);
  }
  return table;
}

/** Phrase nodes (two or more children) whose label the table has rules for, of all phrase nodes. */
export interface HeadCoverage {
  covered: number;
  nodes: number;
  /** covered / nodes in percent (100 when there are no phrase nodes). */
  percent: number;
  /** Uncovered labels with their node counts, most frequent first. */
  missing: Array<[string, number]>;
}

/** Calls visit on every phrase node (two or more children, not a root label). */
export function forPhrases(trees: Iterable<Tree>, visit: (n: Tree) => void): void {
  const walk = (n: Tree): void => {
    if (n.word !== undefined) return;
    if (n.children.length >= 2 && !ROOT_LABELS.has(n.label)) visit(n);
    for (const c of n.children) walk(c);
  };
  for (const t of trees) walk(t);
}

/** How much of a treebank a table covers (rules given by the table; `learned` labels do not count). */
export function headCoverage(trees: Iterable<Tree>, table: HeadTable): HeadCoverage {
  const learned = new Set(table.learned ?? []);
  const missing = new Map<string, number>();
  let covered = 0;
  let nodes = 0;
  forPhrases(trees, (n) => {
    nodes++;
    const label = basicCategory(n.label);
    if (table.rules[label] !== undefined && !learned.has(label)) covered++;
    else missing.set(label, (missing.get(label) ?? 0) + 1);
  });
  return {
    covered,
    nodes,
    percent: nodes === 0 ? 100 : (100 * covered) / nodes,
    missing: [...missing].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
  };
}

/** Below this coverage (percent of phrase nodes) users are warned. */
export const HEAD_COVERAGE_WARNING = 90;

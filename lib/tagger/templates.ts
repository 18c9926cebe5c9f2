/**
 * Feature templates for the taggers, declared as JSON. A template is a list of atoms whose
 * values are conjoined into one attribute; an atom is `column[offset]` or
 * `fn(column)[offset]` (offset defaults to 0), or `bias`:
 *   column       the token's text in that input column (e.g. `word`, `pos`)
 *   lower        lowercased text
 *   prefixN / suffixN (N = 1..4)  first / last N characters (absent when shorter)
 *   shape / shortshape            Xx/d shape of the text, with runs collapsed for shortshape
 *   initcap, allcap, hasdigit, hyphen, alldigit   flags (present only when true)
 *   cluster, clusterN             the word's cluster (from a `word<TAB>cluster` file), or its
 *                                 first N characters (Brown-cluster prefixes)
 *   tags, tagsN  ambiguity class: the labels seen with the lowercased text in the training
 *                data, joined (e.g. `ADP|SCONJ`), for texts seen at least N times (default 1);
 *                rarer and unseen texts all get one `<rare>` value, so rare training words
 *                look like unknown test words. The dictionary is stored in the model.
 *   prevtag      makes the template an *edge* template: its attribute is weighted per
 *                (previous tag, tag) pair instead of per tag, e.g. `["lower(word)", "prevtag"]`
 *                is previous tag x tag x word (CRF++'s B templates with observations)
 * Positions outside the sentence give a boundary value (flags and clusters give nothing).
 * Plain label transitions (previous one or two tags) need no template: they come from `order`.
 *
 * Config file: `{"templates": [["word[0]"], ["word[-1]", "word[0]"], ...], "clusters": "brown.txt"}`
 * or `{"base": "ner", "add": [...]}` to extend a default set.
 */
import { dirname, resolve } from 'node:path';
import { InputError } from '../errors.js';
import { readTextFile } from '../io/lines.js';
import { looksLikeChunkTags } from './dev-score.js';

export type TemplateSet = string[][];

export interface TemplateConfig {
  /** A default set to start from ('pos', 'chunk', 'ner'). */
  base?: DefaultTemplateName;
  templates?: TemplateSet;
  /** Templates appended to `base`. */
  add?: TemplateSet;
  /** Path of a `word<TAB>cluster` file (relative paths are relative to the config file). */
  clusters?: string;
}

export type DefaultTemplateName = 'pos' | 'chunk' | 'ner';

/** Atom kinds: must match native/tagger/features.h AtomKind. */
const KIND = {
  bias: 0,
  field: 1,
  lower: 2,
  prefix: 3,
  suffix: 4,
  shape: 5,
  shortshape: 6,
  initcap: 7,
  allcap: 8,
  hasdigit: 9,
  hyphen: 10,
  alldigit: 11,
  cluster: 12,
  prevtag: 13,
  tags: 14,
} as const;

const window = (atom: string, from = -2, to = 2): TemplateSet => {
  const out: TemplateSet = [];
  for (let k = from; k <= to; k++) out.push([`${atom}[${k}]`]);
  return out;
};

/** The classic CRF++/CRFsuite chunking template (words and POS in a +-2 window, bigrams). */
const CHUNK: TemplateSet = [
  ...window('word'),
  ['word[-1]', 'word[0]'],
  ['word[0]', 'word[1]'],
  ...window('pos'),
  ['pos[-2]', 'pos[-1]'],
  ['pos[-1]', 'pos[0]'],
  ['pos[0]', 'pos[1]'],
  ['pos[1]', 'pos[2]'],
  ['pos[-2]', 'pos[-1]', 'pos[0]'],
  ['pos[-1]', 'pos[0]', 'pos[1]'],
  ['pos[0]', 'pos[1]', 'pos[2]'],
];

const AFFIXES: TemplateSet = [1, 2, 3, 4].flatMap((n) => [[`prefix${n}(word)`], [`suffix${n}(word)`]]);
const FLAGS: TemplateSet = [
  ['initcap(word)'],
  ['allcap(word)'],
  ['hasdigit(word)'],
  ['hyphen(word)'],
  ['alldigit(word)'],
];

/**
 * Rich POS tagging features, with previous tag x word / suffix / next word edge features and
 * the ambiguity classes of the word and its neighbours (jackknifed on training: +0.3 points
 * on UD EWT dev with the perceptron).
 */
const POS: TemplateSet = [
  ['bias'],
  ...window('lower(word)'),
  ['word[0]'],
  ['lower(word)[-1]', 'lower(word)[0]'],
  ['lower(word)[0]', 'lower(word)[1]'],
  ['lower(word)[-1]', 'lower(word)[1]'],
  ...AFFIXES,
  ['suffix3(word)[-1]'],
  ['suffix3(word)[1]'],
  ['shape(word)'],
  ['shortshape(word)'],
  ['shortshape(word)[-1]'],
  ['shortshape(word)[1]'],
  ...FLAGS,
  ['cluster(word)'],
  ['cluster4(word)'],
  ['cluster6(word)'],
  ['cluster10(word)'],
  ['lower(word)[0]', 'prevtag'],
  ['suffix3(word)[0]', 'prevtag'],
  ['lower(word)[1]', 'prevtag'],
  ['tags(word)'],
  ['tags(word)[-1]'],
  ['tags(word)[1]'],
];

/**
 * Named-entity features: words, shapes, affixes (also of the neighbours), POS when present,
 * clusters when given, and the ambiguity class of the word and its neighbours (the labels a
 * word had in training: a gazetteer learned from the training data, jackknifed).
 */
const NER: TemplateSet = [
  ['bias'],
  ...window('word'),
  ...window('lower(word)'),
  ['lower(word)[-1]', 'lower(word)[0]'],
  ['lower(word)[0]', 'lower(word)[1]'],
  ...AFFIXES,
  ...window('shortshape(word)', -1, 1),
  ['shortshape(word)[-1]', 'shortshape(word)[0]'],
  ['shortshape(word)[0]', 'shortshape(word)[1]'],
  ['shape(word)'],
  ...FLAGS,
  ['initcap(word)[-1]'],
  ['initcap(word)[1]'],
  ...window('pos', -1, 1),
  ['pos[-1]', 'pos[0]'],
  ['pos[0]', 'pos[1]'],
  ...window('cluster(word)', -1, 1),
  ['cluster4(word)'],
  ['cluster6(word)'],
  ['cluster10(word)'],
  ['tags(word)'],
  ['tags(word)[-1]'],
  ['tags(word)[1]'],
  ['suffix3(word)[-1]'],
  ['suffix3(word)[1]'],
  ['prefix3(word)[-1]'],
  ['prefix3(word)[1]'],
];

export const DEFAULT_TEMPLATES: Record<DefaultTemplateName, TemplateSet> = { pos: POS, chunk: CHUNK, ner: NER };

/**
 * A default set with the input columns it never names added, so that no column the user
 * gives is ignored (a lemma, a second tag set such as UPOS beside XPOS, CoNLL-2003's chunk
 * column beside its POS): each in a window of -1..1 and its two bigrams.
 */
export function withOtherColumns(set: TemplateSet, inputColumns: readonly string[]): TemplateSet {
  const named = new Set(set.flatMap((t) => t.map((atom) => parseAtom(atom, '<templates>').column)));
  const others = inputColumns.filter((c) => !named.has(c));
  return [...set, ...others.flatMap((c) => [...window(c, -1, 1), [`${c}[-1]`, `${c}[0]`], [`${c}[0]`, `${c}[1]`]])];
}

/**
 * Above this many labels the default sets leave out their edge templates (`prevtag`): an
 * edge attribute scores every (previous label, label) pair at every token, L^2 work per
 * token against L for the rest (CRF on UD EWT with UPOS+FEATS as labels, 321 of them: 24.5 s
 * per L-BFGS iteration with them, 2.1 s without; tagging.md, *Default templates*).
 */
export const EDGE_TEMPLATE_MAX_LABELS = 64;

/** A default set for `labelCount` labels and the given input columns (withOtherColumns; no edge templates above EDGE_TEMPLATE_MAX_LABELS). */
export function defaultTemplateSet(set: TemplateSet, inputColumns: readonly string[], labelCount: number): TemplateSet {
  const kept = labelCount > EDGE_TEMPLATE_MAX_LABELS ? set.filter((t) => !t.includes('prevtag')) : set;
  return withOtherColumns(kept, inputColumns);
}

/**
 * Entity label sets up to this size get label order 2 by default. A second-order chain has
 * (L + 1) L states and L^3 transitions per token: 729 for CoNLL's 9 BIO labels, 4,913 for 17
 * (4 types in BIOES: 3 times order 1's CRF time, measured), 50,653 for OntoNotes' 37.
 */
export const ORDER2_MAX_LABELS = 20;

export interface TemplateChoice {
  name: DefaultTemplateName;
  /** The label order that goes with it: 2 for entities (label trigrams: +0.6 F1 on esp.testa), else 1. */
  order: 1 | 2;
  /** Why, for the user: e.g. `entity-like labels: 88% of tokens are O`. */
  reason: string;
}

/** How many tokens have each label (column `labelIndex` of each row): what chooseDefaultTemplate reads. */
export function labelCounts(
  sentences: Iterable<readonly (readonly string[])[]>,
  labelIndex: number,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of sentences) for (const row of s) counts.set(row[labelIndex], (counts.get(row[labelIndex]) ?? 0) + 1);
  return counts;
}

/**
 * The default template set for a label column, from the training labels: labels that are
 * not chunk tags (O, B-X, I-X, ...) are parts of speech or other per-token classes (`pos`);
 * chunk tags where most tokens (>= 50%) are outside any chunk are entities (`ner`: names
 * are rare and recognised by their form); other chunk tags are phrase chunks (`chunk`, which
 * needs a `pos` input column; without one, `ner`'s word-form features serve better).
 * Entities also get label trigrams (order 2): an entity's labels depend on more than the
 * previous one (CRF on esp.testa: 76.47 with order 1, 77.07 with order 2). `labels` is
 * every training token's label, or each label with its token count.
 */
export function chooseDefaultTemplate(
  labels: Iterable<string> | ReadonlyMap<string, number>,
  inputColumns: readonly string[],
): TemplateChoice {
  let tokens = 0;
  let outside = 0;
  const distinct = new Set<string>();
  const counted = labels instanceof Map ? (labels as ReadonlyMap<string, number>) : undefined;
  for (const [l, n] of counted ??
    (function* () {
      for (const l of labels as Iterable<string>) yield [l, 1] as const;
    })()) {
    tokens += n;
    if (l === 'O') outside += n;
    distinct.add(l);
  }
  if (!looksLikeChunkTags(distinct)) {
    const edges =
      distinct.size > EDGE_TEMPLATE_MAX_LABELS
        ? `; no previous-label edge templates above ${EDGE_TEMPLATE_MAX_LABELS} labels`
        : '';
    return { name: 'pos', order: 1, reason: `per-token labels (${distinct.size} labels, not chunk tags${edges})` };
  }
  const share = tokens === 0 ? 0 : (100 * outside) / tokens;
  if (share >= 50) {
    if (distinct.size > ORDER2_MAX_LABELS) {
      return {
        name: 'ner',
        order: 1,
        reason: `entity-like chunk tags: ${share.toFixed(0)}% of tokens are O; label order 1, as order 2 costs L^3 per token above ${ORDER2_MAX_LABELS} labels (${distinct.size} here)`,
      };
    }
    return {
      name: 'ner',
      order: 2,
      reason: `entity-like chunk tags: ${share.toFixed(0)}% of tokens are O; label order 2`,
    };
  }
  if (!inputColumns.includes('pos'))
    return { name: 'ner', order: 1, reason: `phrase-like chunk tags (${share.toFixed(0)}% O) but no 'pos' column` };
  return { name: 'chunk', order: 1, reason: `phrase-like chunk tags: ${share.toFixed(0)}% of tokens are O` };
}

export interface CompiledTemplates {
  /** Flat encoding for the native side: [count, (atoms, (kind, column, offset, param)*)*]. */
  ints: Int32Array;
  /** The templates that were kept (defaults drop those naming absent columns). */
  templates: TemplateSet;
}

const ATOM = /^(?:([a-z]+?)(\d*)\(([^()[\]]+)\)|([^()[\]]+))(?:\[([+-]?\d+)\])?$/;

interface Atom {
  kind: number;
  column: string;
  offset: number;
  param: number;
}

function parseAtom(text: string, where: string): Atom {
  if (text === 'bias') return { kind: KIND.bias, column: '', offset: 0, param: 0 };
  if (text === 'prevtag') return { kind: KIND.prevtag, column: '', offset: -1, param: 0 };
  const m = ATOM.exec(text.trim());
  if (!m) throw new InputError(where, undefined, `bad template atom '${text}'`);
  const offset = m[5] === undefined ? 0 : Number(m[5]);
  if (offset < -8 || offset > 8) throw new InputError(where, undefined, `offset out of range [-8, 8] in '${text}'`);
  if (m[4] !== undefined) return { kind: KIND.field, column: m[4], offset, param: 0 };
  const fn = m[1];
  const n = m[2] === '' ? 0 : Number(m[2]);
  const column = m[3];
  switch (fn) {
    case 'prefix':
    case 'suffix':
      if (n < 1 || n > 8)
        throw new InputError(where, undefined, `${fn} needs a length 1..8 in '${text}' (e.g. ${fn}3(word))`);
      return { kind: KIND[fn], column, offset, param: n };
    case 'cluster':
      return { kind: KIND.cluster, column, offset, param: n };
    case 'tags':
      return { kind: KIND.tags, column, offset, param: n === 0 ? 1 : n };
    case 'lower':
    case 'shape':
    case 'shortshape':
    case 'initcap':
    case 'allcap':
    case 'hasdigit':
    case 'hyphen':
    case 'alldigit':
      if (m[2] !== '') throw new InputError(where, undefined, `${fn} takes no length in '${text}'`);
      return { kind: KIND[fn], column, offset, param: 0 };
    default:
      throw new InputError(where, undefined, `unknown template function '${fn}' in '${text}'`);
  }
}

/**
 * Compiles templates against the input column names. With `dropMissing` (default sets),
 * templates naming an absent column, or clusters when there is no cluster file, are left
 * out; otherwise they are errors.
 */
export function compileTemplates(
  templates: TemplateSet,
  inputColumns: string[],
  options: { dropMissing?: boolean; haveClusters?: boolean; where?: string } = {},
): CompiledTemplates {
  const where = options.where ?? '<templates>';
  if (!Array.isArray(templates) || templates.length === 0) throw new InputError(where, undefined, 'no templates');
  const ints: number[] = [0];
  const kept: TemplateSet = [];
  for (const tmpl of templates) {
    if (!Array.isArray(tmpl) || tmpl.length === 0 || tmpl.length > 16 || !tmpl.every((a) => typeof a === 'string')) {
      throw new InputError(
        where,
        undefined,
        `a template must be a list of 1..16 atom strings, got ${JSON.stringify(tmpl)}`,
      );
    }
    const atoms = tmpl.map((a) => parseAtom(a, where));
    const missing = atoms.find(
      (a) => a.kind !== KIND.bias && a.kind !== KIND.prevtag && !inputColumns.includes(a.column),
    );
    if (atoms.filter((a) => a.kind === KIND.prevtag).length > 1)
      throw new InputError(where, undefined, `template ${JSON.stringify(tmpl)} has prevtag twice`);
    const needsClusters = atoms.some((a) => a.kind === KIND.cluster);
    if (missing || (needsClusters && !options.haveClusters)) {
      if (options.dropMissing) continue;
      if (missing)
        throw new InputError(
          where,
          undefined,
          `template ${JSON.stringify(tmpl)} names column '${missing.column}', not among the input columns [${inputColumns.join(', ')}]`,
        );
      throw new InputError(
        where,
        undefined,
        `template ${JSON.stringify(tmpl)} uses clusters but no cluster file was given`,
      );
    }
    ints.push(atoms.length);
    for (const a of atoms)
      ints.push(
        a.kind,
        a.kind === KIND.bias || a.kind === KIND.prevtag ? 0 : inputColumns.indexOf(a.column),
        a.offset,
        a.param,
      );
    kept.push(tmpl);
  }
  if (kept.length === 0) throw new InputError(where, undefined, 'no template applies to the input columns');
  ints[0] = kept.length;
  return { ints: Int32Array.from(ints), templates: kept };
}

/** Reads and validates a template config file; returns its templates and cluster path. */
export function readTemplateConfig(file: string): { templates: TemplateSet; clusters?: string; isDefault: boolean } {
  const text = readTextFile(file);
  let config: TemplateConfig;
  try {
    config = JSON.parse(text) as TemplateConfig;
  } catch (err) {
    throw new InputError(file, undefined, `not valid JSON: ${(err as Error).message}`);
  }
  return resolveTemplateConfig(config, file);
}

export function resolveTemplateConfig(
  config: TemplateConfig,
  file = '<template>',
): { templates: TemplateSet; clusters?: string; isDefault: boolean } {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new InputError(file, undefined, 'a template config must be a JSON object with "templates" or "base"');
  }
  const known = new Set(['base', 'templates', 'add', 'clusters']);
  for (const key of Object.keys(config)) {
    if (!known.has(key))
      throw new InputError(file, undefined, `unknown key '${key}' (expected base, templates, add, clusters)`);
  }
  if (config.base !== undefined && !(config.base in DEFAULT_TEMPLATES)) {
    throw new InputError(file, undefined, `unknown base '${String(config.base)}' (expected pos, chunk or ner)`);
  }
  if (config.base === undefined && config.templates === undefined) {
    throw new InputError(file, undefined, 'a template config needs "templates" or "base"');
  }
  for (const key of ['templates', 'add'] as const) {
    if (config[key] !== undefined && !Array.isArray(config[key]))
      throw new InputError(file, undefined, `"${key}" must be a list of templates`);
  }
  const templates = [
    ...(config.templates ?? DEFAULT_TEMPLATES[config.base as DefaultTemplateName]),
    ...(config.add ?? []),
  ];
  for (const tmpl of templates) {
    if (!Array.isArray(tmpl) || tmpl.length === 0 || tmpl.length > 16 || !tmpl.every((a) => typeof a === 'string')) {
      throw new InputError(
        file,
        undefined,
        `a template must be a list of 1..16 atom strings, got ${JSON.stringify(tmpl)}`,
      );
    }
    for (const atom of tmpl) parseAtom(atom, file);
  }
  if (config.clusters !== undefined && typeof config.clusters !== 'string')
    throw new InputError(file, undefined, '"clusters" must be a file path');
  const clusters = config.clusters === undefined ? undefined : resolve(dirname(file), config.clusters);
  return { templates, clusters, isDefault: config.templates === undefined };
}

/** Reads a `word<TAB>cluster` file (extra tab-separated fields, such as counts, are ignored). */
export function readClusters(file: string): string {
  const text = readTextFile(file);
  const out: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '');
    if (line === '') continue;
    const fields = line.split('\t');
    if (fields.length < 2 || fields[0] === '' || fields[1] === '') {
      throw new InputError(file, i + 1, 'expected word<TAB>cluster');
    }
    out.push(`${fields[0]}\t${fields[1]}`);
  }
  if (out.length === 0) throw new InputError(file, undefined, 'empty cluster file');
  return out.join('\n');
}

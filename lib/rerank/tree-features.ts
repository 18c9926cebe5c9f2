/**
 * Reranking features of parse trees, computed on a head-annotated tree (the shape of
 * lib/trees/heads.ts `annotateHeads`). Every template yields readable names, e.g.
 * `Rule:VP>PP VBD* NP` (`*` marks the head child). A feature seen c times in a tree becomes
 * the threshold features `name`, `name|>=2`, ..., `name|>=c`.
 *
 * Local templates (Collins & Koo 2005): rules, bigrams, grandparent rules and bigrams,
 * trigrams, lexical bigrams, head-modifier pairs, distances, adposition attachments, and a
 * second pass with closed-class words lexicalized. Templates that look further than one
 * rule (Charniak & Johnson 2005), so that they add to what a PCFG or span-feature base
 * parser scores:
 * - `HeadHead`, `HeadHeadW`, `HeadHeadH`: head-to-head dependencies (modifier and governor
 *   head tags, with one of the two head words), with direction;
 * - `GrandHead`: a modifier's head tag with its governor's and the governor's governor's;
 * - `CoPar`, `CoPar2`, `CoHead`, `CoLen`: coordination parallelism: whether the conjuncts
 *   around a conjunction have the same label, the same rule, the same head tag, and their
 *   length difference (bucketed) and whether the coordination ends the phrase;
 * - `Frame`, `FrameW`: the labels of the dependents of a verb-like head (its frame);
 * - `Heavy`: a phrase's label, length (bucketed), whether it ends the sentence and whether
 *   punctuation follows it.
 * The word and tag classes these use (closed-class tags, conjunctions, punctuation,
 * verb-like tags, adposition-like labels) come from `classes`, learned from the training
 * treebank (lib/trees/tree-classes.ts); without them, the PTB classes of legacy models.
 */
import type { TreeClasses } from '../trees/tree-classes.js';
import { basicCategory, ROOT_LABELS } from '../trees/transforms.js';

/** A node with its head child index (-1 for a preterminal), head word, head tag and head word position. */
export interface HeadNode {
  label: string;
  children: HeadNode[];
  word?: string;
  head: number;
  headWord: string;
  headTag: string;
  headIndex: number;
}

export interface TreeFeatureOptions {
  /** Learned word and tag classes (default: the PTB classes of CLOSED_CLASS_TAGS and friends). */
  classes?: TreeClasses;
  /** POS tags whose words are closed-class (the lexicalization pass annotates with them); overrides `classes`. */
  closedClassTags?: ReadonlySet<string>;
  /** Emit the longer-range templates (HeadHead .. Heavy; default true). */
  longRange?: boolean;
  /** Emit the word-context templates (RightBranch .. NGramTree; default false: models before them). */
  context?: boolean;
  /** Emit the second, closed-class-lexicalized pass (default true). */
  lexicalizedPass?: boolean;
  /** Emit threshold features for counts > 1 (default true). */
  thresholds?: boolean;
}

/** The PTB closed-class tags of models trained before classes were learned. */
export const CLOSED_CLASS_TAGS: ReadonlySet<string> = new Set([
  'CC',
  'DT',
  'EX',
  'IN',
  'MD',
  'PDT',
  'POS',
  'PRP',
  'PRP$',
  'RP',
  'TO',
  'WDT',
  'WP',
  'WP$',
  'WRB',
]);
/** The PTB word classes of models trained before classes were learned. */
export const LEGACY_TREE_CLASSES: Readonly<TreeClasses> = {
  punctuationTags: [',', ':', '.', '``', "''", '-LRB-', '-RRB-', '#', '$'],
  closedClassTags: [...CLOSED_CLASS_TAGS],
  conjunctionTags: ['CC', 'CONJP'],
  verbTags: ['MD', 'VB', 'VBD', 'VBG', 'VBN', 'VBP', 'VBZ'],
  adpositionLabels: ['PP'],
};

const STOP = 'STOP';
const TOP = 'TOP';

/** The templates: name prefixes, in the order they are emitted. */
export const TEMPLATES = [
  'Rule',
  'Bigram',
  'GRule',
  'GBigram',
  'TwoRule',
  'TwoBigram',
  'Trigram',
  'LexBigram',
  'HeadMod',
  'PP',
  'Dist',
  'HeadHead',
  'HeadHeadW',
  'HeadHeadH',
  'GrandHead',
  'CoPar',
  'CoPar2',
  'CoHead',
  'CoLen',
  'Frame',
  'FrameW',
  'Heavy',
  'RightBranch',
  'Neighbours',
  'Edges',
  'EdgeWords',
  'Word',
  'WordProj',
  'NGramTree',
] as const;

/** Length buckets: 0, 1, 2, 3-4, 5-8, 9+. */
function bucket(k: number): string {
  return k <= 2 ? String(k) : k <= 4 ? '3-4' : k <= 8 ? '5-8' : '9+';
}

/** Feature names with their counts in one tree (before thresholds). */
export function treeFeatureCounts(root: HeadNode, options: TreeFeatureOptions = {}): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (name: string): void => {
    counts.set(name, (counts.get(name) ?? 0) + 1);
  };
  const classes = options.classes ?? LEGACY_TREE_CLASSES;
  const closed = options.closedClassTags ?? new Set(classes.closedClassTags);
  const punctuation = new Set(classes.punctuationTags);
  const conjunctions = new Set(classes.conjunctionTags);
  const verbs = new Set(classes.verbTags);
  const adpositions = new Set(classes.adpositionLabels);
  // Skip trivial roots: the wrapper `( (S ...))`, ROOT and TOP nodes with one child.
  let top = root;
  while (ROOT_LABELS.has(top.label) && top.children.length === 1 && top.word === undefined) top = top.children[0];

  const plain = (n: HeadNode): string => n.label;
  const lexical = (n: HeadNode): string =>
    closed.has(n.headTag) ? `${n.label}(${n.headWord.toLowerCase()})` : n.label;

  /** The non-lexical templates under a labelling; the closed-class pass prefixes its names with `CC`. */
  const structural = (
    n: HeadNode,
    parent: HeadNode | undefined,
    grand: HeadNode | undefined,
    lab: (n: HeadNode) => string,
    pass: string,
  ): void => {
    const P = lab(n);
    const kids = n.children.map(lab);
    const h = n.head;
    const rule = `${P}>${kids.map((k, i) => (i === h ? `${k}*` : k)).join(' ')}`;
    const G = parent ? lab(parent) : TOP;
    let upper = TOP;
    if (parent) {
      const at = parent.children.indexOf(n);
      upper = `${lab(parent)}>${parent.children.map((c, i) => `${lab(c)}${i === parent.head ? '*' : ''}${i === at ? '@' : ''}`).join(' ')}`;
    }
    void grand;
    add(`${pass}Rule:${rule}`);
    add(`${pass}GRule:${G}^${rule}`);
    add(`${pass}TwoRule:${upper}^${rule}`);
    // Bigrams: outward from the head on each side, closed by STOP.
    for (const [dir, seq] of sides(n, kids)) {
      for (let i = 0; i + 1 < seq.length; i++) {
        const pair = `${seq[i]} ${seq[i + 1]}`;
        add(`${pass}Bigram:${dir} ${P}>${pair}`);
        add(`${pass}GBigram:${G}^${dir} ${P}>${pair}`);
        add(`${pass}TwoBigram:${upper}^${dir} ${P}>${pair}`);
      }
      // Lexical bigrams: the same pairs with the two lexical heads.
      const nodes = sideNodes(n, dir);
      for (let i = 0; i + 1 < seq.length; i++) {
        const a = nodes[i];
        const b = nodes[i + 1];
        const w1 = a ? a.headWord.toLowerCase() : STOP;
        const w2 = b ? b.headWord.toLowerCase() : STOP;
        add(`${pass}LexBigram:${dir} ${P}>${seq[i]} ${seq[i + 1]} ${w1} ${w2}`);
      }
    }
    // Trigrams over STOP C1 .. Cm STOP, head marked.
    const marked = [STOP, ...kids.map((k, i) => (i === h ? `${k}*` : k)), STOP];
    for (let i = 0; i + 2 < marked.length; i++)
      add(`${pass}Trigram:${P}>${marked[i]} ${marked[i + 1]} ${marked[i + 2]}`);
  };

  const lexicalOnly = (n: HeadNode, parent: HeadNode | undefined, grand: HeadNode | undefined): void => {
    const P = n.label;
    const h = n.head;
    const H = n.children[h];
    const G = parent ? parent.label : TOP;
    for (let i = 0; i < n.children.length; i++) {
      if (i === h) continue;
      const M = n.children[i];
      const dir = i < h ? 'L' : 'R';
      const adj = Math.abs(i - h) === 1 ? 1 : 0;
      add(`HeadMod:${dir} ${G} ${P} ${H.label} ${M.label} adj=${adj}`);
      // Distance head-modifiers: words strictly between the two head words.
      const dist = Math.abs(M.headIndex - H.headIndex) - 1;
      const rel = `Dist:${P} ${H.label} ${M.label}`;
      add(`${rel} =${dist}`);
      for (let x = dist + 1; x < 9; x++) add(`${rel} <${x}`);
      for (let x = 2; x < dist; x++) add(`${rel} >${x}`);
      // Adpositional phrases (PTB PP): the modifier's adposition and the head of its object.
      if (adpositions.has(basicCategory(M.label)) && M.head >= 0 && M.children.length > M.head + 1) {
        const obj = M.children[M.head + 1];
        const prep = M.headWord.toLowerCase();
        const objHead = obj.headWord.toLowerCase();
        add(`PP:${P} ${H.label} ${M.label} ${obj.label} ${H.headWord.toLowerCase()} ${prep} ${objHead}`);
        add(`PP:${P} ${H.label} ${M.label} ${obj.label} ${prep} ${objHead}`);
      }
    }
    void grand;
  };

  // Spans (preterminal positions) of every node, for lengths and sentence ends.
  const span = new Map<HeadNode, [number, number]>();
  const tags: string[] = [];
  const spans = (n: HeadNode): void => {
    const start = tags.length;
    if (n.word !== undefined) tags.push(n.label);
    else for (const c of n.children) spans(c);
    span.set(n, [start, tags.length]);
  };
  spans(top);
  const length = (n: HeadNode): number => {
    const [a, b] = span.get(n) as [number, number];
    return b - a;
  };
  const isPunct = (n: HeadNode): boolean => n.word !== undefined && punctuation.has(n.label);
  const lower = (w: string): string => w.toLowerCase();

  /** Templates beyond one rule; `gov` is the node whose head governs n's head (undefined at the top). */
  const longRange = (n: HeadNode, gov: HeadNode | undefined): void => {
    const P = n.label;
    const h = n.head;
    const H = n.children[h];
    for (let i = 0; i < n.children.length; i++) {
      const M = n.children[i];
      if (i === h || isPunct(M)) continue;
      const dir = i < h ? 'L' : 'R';
      add(`HeadHead:${dir} ${M.headTag} ${H.headTag}`);
      add(`HeadHeadW:${dir} ${lower(M.headWord)} ${H.headTag}`);
      add(`HeadHeadH:${dir} ${M.headTag} ${lower(H.headWord)}`);
      add(`GrandHead:${dir} ${M.headTag} ${H.headTag} ${gov ? gov.headTag : TOP}`);
    }
    // Coordination: conjuncts on both sides of a conjunction, punctuation skipped.
    for (let i = 1; i + 1 < n.children.length; i++) {
      const C = n.children[i];
      if (C.word === undefined || !conjunctions.has(C.label)) continue;
      let a = i - 1;
      while (a >= 0 && isPunct(n.children[a])) a--;
      let b = i + 1;
      while (b < n.children.length && isPunct(n.children[b])) b++;
      if (a < 0 || b >= n.children.length) continue;
      const A = n.children[a];
      const B = n.children[b];
      const rule = (x: HeadNode): string => `${x.label}>${x.children.map((c) => c.label).join(' ')}`;
      let rest = b + 1;
      while (rest < n.children.length && isPunct(n.children[rest])) rest++;
      const last = rest >= n.children.length ? 'last' : 'inner';
      add(`CoPar:${P} ${A.label === B.label ? 'same' : `${A.label}|${B.label}`}`);
      add(`CoPar2:${P} ${A.label === B.label && rule(A) === rule(B) ? 'same' : 'diff'}`);
      add(`CoHead:${P} ${A.headTag === B.headTag ? 'same' : `${A.headTag}|${B.headTag}`}`);
      add(`CoLen:${P} ${bucket(Math.abs(length(A) - length(B)))} ${last}`);
    }
    // Frames of verb-like heads.
    if (H.word !== undefined && verbs.has(H.label)) {
      const frame = n.children
        .map((c, i) => (i === h ? '*' : c.label))
        .filter((l, i) => !isPunct(n.children[i]))
        .join(' ');
      add(`Frame:${H.label}>${frame}`);
      add(`FrameW:${lower(H.word)}>${frame}`);
    }
  };
  const heavy = (n: HeadNode): void => {
    const [, end] = span.get(n) as [number, number];
    const atEnd = end === tags.length ? 'end' : 'mid';
    const followed = end < tags.length && punctuation.has(tags[end]) ? 'punct' : 'word';
    add(`Heavy:${n.label} ${bucket(length(n))} ${atEnd} ${followed}`);
  };

  const lexPass = options.lexicalizedPass ?? true;
  const wantLong = options.longRange ?? true;
  const walk = (
    n: HeadNode,
    parent: HeadNode | undefined,
    grand: HeadNode | undefined,
    gov: HeadNode | undefined,
  ): void => {
    if (n.word !== undefined || n.children.length === 0) return;
    structural(n, parent, grand, plain, '');
    lexicalOnly(n, parent, grand);
    if (wantLong) {
      longRange(n, gov);
      heavy(n);
    }
    if (lexPass && touchesClosedClass(n, parent, closed)) structural(n, parent, grand, lexical, 'CC');
    n.children.forEach((c, i) => walk(c, n, parent, i === n.head ? gov : n));
  };
  walk(top, undefined, undefined, undefined);
  if (options.context ?? false) contextTemplates(top, tags, span, isPunct, add);
  return counts;
}

/**
 * Templates over the words around and under each phrase (Charniak & Johnson 2005's
 * RightBranch, Neighbours, Edges, Word, WProj and NGramTree, in this module's naming):
 * they see the tags and words at a phrase's edges and outside it, which rule-local
 * templates do not.
 */
function contextTemplates(
  top: HeadNode,
  tags: readonly string[],
  span: ReadonlyMap<HeadNode, [number, number]>,
  isPunct: (n: HeadNode) => boolean,
  add: (name: string) => void,
): void {
  // Preterminals in order, each with its path from the top (top first, preterminal last).
  const paths: HeadNode[][] = [];
  const collect = (n: HeadNode, path: HeadNode[]): void => {
    path.push(n);
    if (n.word !== undefined) paths.push([...path]);
    else for (const c of n.children) collect(c, path);
    path.pop();
  };
  collect(top, []);
  const words = paths.map((p) => (p[p.length - 1].word as string).toLowerCase());
  const tagAt = (i: number): string => (i < 0 ? '<s>' : i >= tags.length ? '</s>' : tags[i]);
  const wordAt = (i: number): string => (i < 0 ? '<s>' : i >= words.length ? '</s>' : words[i]);

  // RightBranch: phrases on the path down the last non-punctuation children, and off it.
  let on = 0;
  for (let n: HeadNode | undefined = top; n && n.word === undefined;) {
    on++;
    let k: number = n.children.length - 1;
    while (k > 0 && isPunct(n.children[k])) k--;
    n = n.children[k];
  }
  const phrases = span.size - tags.length; // span holds every node, tags every preterminal
  for (let i = 0; i < on; i++) add('RightBranch:on');
  for (let i = on; i < phrases; i++) add('RightBranch:off');

  for (const [n, [a, b]] of span) {
    if (n.word !== undefined) continue;
    const len = bucket(b - a);
    add(`Neighbours:${n.label} ${len} ${tagAt(a - 1)} ${tagAt(b)}`);
    add(`Neighbours:${n.label} ${len} ${tagAt(a - 2)} ${tagAt(a - 1)} ${tagAt(b)}`);
    add(`Edges:${n.label} ${len} ${tagAt(a - 1)} ${tagAt(a)} ${tagAt(b - 1)} ${tagAt(b)}`);
    add(`EdgeWords:${n.label} L ${wordAt(a - 1)} ${wordAt(a)}`);
    add(`EdgeWords:${n.label} R ${wordAt(b - 1)} ${wordAt(b)}`);
  }

  for (let i = 0; i < paths.length; i++) {
    const path = paths[i];
    const d = path.length - 1;
    const parent = d >= 1 ? path[d - 1].label : TOP;
    const grand = d >= 2 ? path[d - 2].label : TOP;
    add(`Word:${words[i]} ${tags[i]} ${parent}`);
    add(`Word:${words[i]} ${tags[i]} ${parent} ${grand}`);
    // The word's projection: the labels up the path while the node is its parent's head child.
    const proj: string[] = [];
    for (let k = d; k >= 1 && path[k - 1].children[path[k - 1].head] === path[k]; k--) proj.push(path[k - 1].label);
    add(`WordProj:${words[i]} ${tags[i]} ${proj.join(' ')}`);
    // NGramTree: the smallest fragment joining two neighbouring words' preterminals.
    if (i + 1 < paths.length) {
      const next = paths[i + 1];
      let c = 0;
      while (c < path.length && c < next.length && path[c] === next[c]) c++;
      const down = (p: HeadNode[]): string =>
        p
          .slice(c)
          .map((x) => x.label)
          .join(' ');
      add(`NGramTree:${path[c - 1].label} [${down(path)}] [${down(next)}]`);
    }
  }
}

/** Whether any node a structural feature of n mentions is annotated in the lexicalized pass. */
function touchesClosedClass(n: HeadNode, parent: HeadNode | undefined, closed: ReadonlySet<string>): boolean {
  if (closed.has(n.headTag)) return true;
  if (n.children.some((c) => closed.has(c.headTag))) return true;
  return parent !== undefined && (closed.has(parent.headTag) || parent.children.some((c) => closed.has(c.headTag)));
}

/** Left side: C_{h-1} .. C_1 STOP; right side: C_{h+1} .. C_m STOP. */
function sides(n: HeadNode, kids: string[]): Array<['L' | 'R', string[]]> {
  const h = n.head;
  const left = kids.slice(0, h).reverse();
  const right = kids.slice(h + 1);
  return [
    ['L', [...left, STOP]],
    ['R', [...right, STOP]],
  ];
}

function sideNodes(n: HeadNode, dir: 'L' | 'R'): Array<HeadNode | undefined> {
  const h = n.head;
  const seq = dir === 'L' ? n.children.slice(0, h).reverse() : n.children.slice(h + 1);
  return [...seq, undefined];
}

/** Expands counts into binary threshold features: `name`, `name|>=2`, ..., `name|>=count`. */
export function thresholdFeatures(counts: Map<string, number>, thresholds = true): string[] {
  const out: string[] = [];
  for (const [name, c] of counts) {
    out.push(name);
    if (thresholds) for (let k = 2; k <= c; k++) out.push(`${name}|>=${k}`);
  }
  return out;
}

/** All binary features of one head-annotated tree. */
export function treeFeatures(root: HeadNode, options: TreeFeatureOptions = {}): string[] {
  return thresholdFeatures(treeFeatureCounts(root, options), options.thresholds ?? true);
}

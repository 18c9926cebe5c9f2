/**
 * Reranking features of parse trees (SPEC section 7, seed 002 section 5.2), computed on a
 * head-annotated tree (the shape of lib/trees/heads.ts `annotateHeads`). Every template
 * yields readable names, e.g. `Rule:VP>PP VBD* NP` (`*` marks the head child). A feature
 * seen c times in a tree becomes the threshold features `name`, `name|>=2`, ..., `name|>=c`.
 */

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
  /** POS tags whose words are closed-class (the lexicalization pass annotates with them). */
  closedClassTags?: ReadonlySet<string>;
  /** Emit the second, closed-class-lexicalized pass (default true). */
  lexicalizedPass?: boolean;
  /** Emit threshold features for counts > 1 (default true). */
  thresholds?: boolean;
}

export const CLOSED_CLASS_TAGS: ReadonlySet<string> = new Set([
  'CC', 'DT', 'EX', 'IN', 'MD', 'PDT', 'POS', 'PRP', 'PRP$', 'RP', 'TO', 'WDT', 'WP', 'WP$', 'WRB',
]);

const STOP = 'STOP';
const TOP = 'TOP';
const ROOT_LABELS = new Set(['', 'ROOT', 'TOP']);

/** The templates: name prefixes, in the order they are emitted. */
export const TEMPLATES = [
  'Rule', 'Bigram', 'GRule', 'GBigram', 'TwoRule', 'TwoBigram', 'Trigram', 'LexBigram',
  'HeadMod', 'PP', 'Dist',
] as const;

/** Feature names with their counts in one tree (before thresholds). */
export function treeFeatureCounts(root: HeadNode, options: TreeFeatureOptions = {}): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (name: string): void => {
    counts.set(name, (counts.get(name) ?? 0) + 1);
  };
  const closed = options.closedClassTags ?? CLOSED_CLASS_TAGS;
  // Skip trivial roots: the wrapper `( (S ...))`, ROOT and TOP nodes with one child.
  let top = root;
  while (ROOT_LABELS.has(top.label) && top.children.length === 1 && top.word === undefined) top = top.children[0];

  const plain = (n: HeadNode): string => n.label;
  const lexical = (n: HeadNode): string => (closed.has(n.headTag) ? `${n.label}(${n.headWord.toLowerCase()})` : n.label);

  /** The non-lexical templates under a labelling; the closed-class pass prefixes its names with `CC`. */
  const structural = (n: HeadNode, parent: HeadNode | undefined, grand: HeadNode | undefined, lab: (n: HeadNode) => string, pass: string): void => {
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
    for (let i = 0; i + 2 < marked.length; i++) add(`${pass}Trigram:${P}>${marked[i]} ${marked[i + 1]} ${marked[i + 2]}`);
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
      // PPs: a PP modifier's preposition and the head of its object.
      if (M.label === 'PP' && M.head >= 0 && M.children.length > M.head + 1) {
        const obj = M.children[M.head + 1];
        const prep = M.headWord.toLowerCase();
        const objHead = obj.headWord.toLowerCase();
        add(`PP:${P} ${H.label} ${M.label} ${obj.label} ${H.headWord.toLowerCase()} ${prep} ${objHead}`);
        add(`PP:${P} ${H.label} ${M.label} ${obj.label} ${prep} ${objHead}`);
      }
    }
    void grand;
  };

  const lexPass = options.lexicalizedPass ?? true;
  const walk = (n: HeadNode, parent: HeadNode | undefined, grand: HeadNode | undefined): void => {
    if (n.word !== undefined || n.children.length === 0) return;
    structural(n, parent, grand, plain, '');
    lexicalOnly(n, parent, grand);
    if (lexPass && touchesClosedClass(n, parent, closed)) structural(n, parent, grand, lexical, 'CC');
    for (const c of n.children) walk(c, n, parent);
  };
  walk(top, undefined, undefined);
  return counts;
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

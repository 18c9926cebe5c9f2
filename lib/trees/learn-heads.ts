/**
 * What a treebank says about its own scheme, learned from its trees: punctuation,
 * conjunction and closed-class tags, and head rules for the labels a head table does not
 * cover (the "learned fallback" of head-rules.ts).
 */
import { headChildIndex } from './heads.js';
import { forPhrases, type HeadDirection, type HeadRule, type HeadTable } from './head-rules.js';
import type { Tree } from './tree.js';
import { basicCategory } from './transforms.js';

/** Tags whose words are (almost) all without letters or digits: punctuation in any script. */
export function learnPunctuationTags(trees: Iterable<Tree>): Set<string> {
  const total = new Map<string, number>();
  const punct = new Map<string, number>();
  const walk = (n: Tree): void => {
    if (n.word !== undefined) {
      total.set(n.label, (total.get(n.label) ?? 0) + 1);
      if (!/[\p{L}\p{N}]/u.test(n.word)) punct.set(n.label, (punct.get(n.label) ?? 0) + 1);
      return;
    }
    for (const c of n.children) walk(c);
  };
  for (const t of trees) walk(t);
  const out = new Set<string>();
  for (const [tag, n] of total) if ((punct.get(tag) ?? 0) >= 0.95 * n) out.add(tag);
  return out;
}

/**
 * Tags that join two phrases of the same label: a tag (not punctuation) whose occurrences
 * stand between two siblings with equal labels (`NP CC NP`, `np conj-c np`) at least 30% of
 * the time, seen at least 20 times.
 */
export function learnConjunctionTags(trees: Iterable<Tree>, punctuation: ReadonlySet<string>): Set<string> {
  const total = new Map<string, number>();
  const between = new Map<string, number>();
  const walk = (n: Tree): void => {
    if (n.word !== undefined) return;
    const cats = n.children.map((c) => (c.word !== undefined ? c.label : basicCategory(c.label)));
    n.children.forEach((c, i) => {
      if (c.word === undefined || punctuation.has(c.label)) return;
      total.set(c.label, (total.get(c.label) ?? 0) + 1);
      if (i > 0 && i + 1 < cats.length && cats[i - 1] === cats[i + 1])
        between.set(c.label, (between.get(c.label) ?? 0) + 1);
    });
    for (const c of n.children) walk(c);
  };
  for (const t of trees) walk(t);
  const out = new Set<string>();
  for (const [tag, n] of total) if (n >= 20 && (between.get(tag) ?? 0) >= 0.3 * n) out.add(tag);
  return out;
}

/** Closed-class tags by the share of their tokens that are hapaxes with the tag. */
export function learnClosedClassTags(trees: Iterable<Tree>, punctuation: ReadonlySet<string>): Set<string> {
  const pairs = new Map<string, Map<string, number>>();
  const walk = (n: Tree): void => {
    if (n.word !== undefined) {
      if (punctuation.has(n.label)) return;
      let words = pairs.get(n.label);
      if (!words) pairs.set(n.label, (words = new Map()));
      const w = n.word.toLowerCase();
      words.set(w, (words.get(w) ?? 0) + 1);
      return;
    }
    for (const c of n.children) walk(c);
  };
  for (const t of trees) walk(t);
  const out = new Set<string>();
  for (const [tag, words] of pairs) {
    let tokens = 0;
    let hapax = 0;
    for (const k of words.values()) {
      tokens += k;
      if (k === 1) hapax++;
    }
    if (tokens >= 20 && hapax < 0.01 * tokens) out.add(tag);
  }
  return out;
}

/** The tag classes of a treebank that head rules and tree classes are both learned from. */
export interface TagClasses {
  /** learnPunctuationTags */
  punctuation: ReadonlySet<string>;
  /** learnConjunctionTags */
  conjunctions: ReadonlySet<string>;
  /** learnClosedClassTags */
  closed: ReadonlySet<string>;
}

/** Punctuation, conjunction and closed-class tags, learned once for everything that needs them. */
export function learnTagClasses(trees: readonly Tree[]): TagClasses {
  const punctuation = learnPunctuationTags(trees);
  return {
    punctuation,
    conjunctions: learnConjunctionTags(trees, punctuation),
    closed: learnClosedClassTags(trees, punctuation),
  };
}

/**
 * For each phrase label, how often each tag is the lexical head of its nodes under `table`,
 * over the nodes `counted` accepts (default: every phrase node). One bottom-up pass: each
 * node's head tag is its head child's.
 */
export function headTagCounts(
  trees: readonly Tree[],
  table: HeadTable,
  counted: (n: Tree) => boolean = () => true,
): Map<string, Map<string, number>> {
  const counts = new Map<string, Map<string, number>>();
  const tagOf = (n: Tree): string => {
    if (n.word !== undefined) return n.label;
    const h = headChildIndex(n, { table });
    const head = n.children[h < 0 ? 0 : h];
    const tag = tagOf(head);
    for (const c of n.children) if (c !== head) tagOf(c);
    if (counted(n)) {
      const label = basicCategory(n.label);
      let d = counts.get(label);
      if (!d) counts.set(label, (d = new Map()));
      d.set(tag, (d.get(tag) ?? 0) + 1);
    }
    return tag;
  };
  for (const t of trees) tagOf(t);
  return counts;
}

interface ChildStats {
  /** Instances of the parent where this child label occurs exactly once. */
  once: number;
  /** Occurrences as a preterminal, and in total. */
  preterminal: number;
  total: number;
  /** Sum of relative positions (0 = first child, 1 = last). */
  position: number;
}

/**
 * The candidates of a parent headed by a word: its words, each followed by the phrases that
 * project it (phrases other than the parent's own label whose nodes are mostly, > 50%,
 * headed by that word's tag), then the other phrases. So a clause whose finite verb sits
 * inside a verb phrase of auxiliaries is headed by that phrase, not by an adverb that
 * happens to be a word beside it.
 */
function withProjections(
  parent: string,
  words: readonly string[],
  phrases: readonly string[],
  headTags: Map<string, Map<string, number>>,
): string[] {
  const mainTag = (label: string): string | undefined => {
    const d = headTags.get(label);
    if (!d) return undefined;
    let total = 0;
    let best: [string, number] | undefined;
    for (const [tag, k] of d) {
      total += k;
      if (!best || k > best[1]) best = [tag, k];
    }
    return best && best[1] > 0.5 * total ? best[0] : undefined;
  };
  const projecting = new Map<string, string[]>();
  for (const p of phrases) {
    const tag = p === parent ? undefined : mainTag(p);
    if (tag === undefined || !words.includes(tag)) continue;
    projecting.set(tag, [...(projecting.get(tag) ?? []), p]);
  }
  const placed = new Set([...projecting.values()].flat());
  return [...words.flatMap((w) => [w, ...(projecting.get(w) ?? [])]), ...phrases.filter((p) => !placed.has(p))];
}

/**
 * Learns rules for the labels a table does not cover, from a treebank. For a parent label P
 * the head is the child label that most often occurs exactly once under P: the child that
 * carries P's lexical material is obligatory and unique (a PP has one preposition, a clause
 * one finite verb), while modifiers and arguments are optional or repeat (a clause's two
 * NPs). Nodes that mostly hold a word of their own (not punctuation or a conjunction) are
 * headed by a word, others by a phrase; among words, a closed-class tag (a determiner
 * next to its noun) counts half, so the content word wins a tie. The rule lists the labels that occur once in at least 5% of P's nodes, best first, searched
 * from the side where the best label usually sits. Punctuation never heads. Labels seen
 * fewer than `minCount` times keep the table's `otherwise` child. `otherwise` itself is set
 * to the side where learned heads sit more often, unless the table gives rules.
 * Phrase candidates are then put in the order of how often they share the parent's lexical
 * material: with the first rules, the head tags of P's nodes and of each candidate's nodes
 * are counted, and candidates whose head tags overlap P's most come first (a clause shares
 * its verb with its VP, not with its subject NP). Under a word-headed parent, a phrase mostly
 * headed by one of its word candidates comes right after that word (withProjections).
 * Coordination: a label whose nodes mostly hold a conjunction (learnConjunctionTags) is
 * headed by its first conjunct, and a table without a coordination entry gets the learned
 * conjunctions (with the learned punctuation as `skip`).
 */
export function learnHeadRules(
  trees: readonly Tree[],
  table?: HeadTable,
  options: { minCount?: number; tagClasses?: TagClasses } = {},
): HeadTable {
  const minCount = options.minCount ?? 5;
  const base = table ?? { name: 'learned', rules: {}, otherwise: 'left' as const };
  const { punctuation, conjunctions, closed } = options.tagClasses ?? learnTagClasses(trees);
  const perLabel = new Map<
    string,
    { count: number; coordinated: number; lexical: number; children: Map<string, ChildStats> }
  >();
  forPhrases(trees, (n) => {
    const label = basicCategory(n.label);
    if (base.rules[label] !== undefined) return;
    let s = perLabel.get(label);
    if (!s) perLabel.set(label, (s = { count: 0, coordinated: 0, lexical: 0, children: new Map() }));
    s.count++;
    if (n.children.some((c) => c.word !== undefined && !punctuation.has(c.label) && !conjunctions.has(c.label)))
      s.lexical++;
    if (n.children.some((c) => c.word !== undefined && conjunctions.has(c.label))) s.coordinated++;
    const seen = new Map<string, number>();
    n.children.forEach((c, i) => {
      const cat = c.word !== undefined ? c.label : basicCategory(c.label);
      if (punctuation.has(cat) || conjunctions.has(cat)) return;
      seen.set(cat, (seen.get(cat) ?? 0) + 1);
      let cs = s.children.get(cat);
      if (!cs) s.children.set(cat, (cs = { once: 0, preterminal: 0, total: 0, position: 0 }));
      cs.total++;
      if (c.word !== undefined) cs.preterminal++;
      cs.position += i / (n.children.length - 1);
    });
    for (const [cat, k] of seen) if (k === 1) (s.children.get(cat) as ChildStats).once++;
  });
  const rules: Record<string, readonly HeadRule[]> = { ...base.rules };
  const learned: string[] = [...(base.learned ?? [])];
  let leftVotes = 0;
  let rightVotes = 0;
  for (const [label, s] of [...perLabel].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    if (s.count < minCount) continue;
    if (s.coordinated >= 0.5 * s.count) {
      rules[label] = [{ direction: 'leftdis', labels: [] }];
      learned.push(label);
      leftVotes += s.count;
      continue;
    }
    // Nodes that mostly hold a word of their own are headed by a word (a tag), others by a phrase.
    const lexicalParent = s.lexical >= 0.5 * s.count;
    const tier = (c: ChildStats): number => (lexicalParent === c.preterminal > c.total / 2 ? 0 : 1);
    const weight = (cat: string, c: ChildStats): number => (closed.has(cat) ? 0.5 : 1) * c.once;
    const ranked = [...s.children]
      .filter(([, c]) => c.once >= 0.05 * s.count)
      .sort(
        ([a, x], [b, y]) => tier(x) - tier(y) || weight(b, y) - weight(a, x) || y.total - x.total || (a < b ? -1 : 1),
      );
    if (ranked.length === 0) continue;
    const best = ranked[0][1];
    const direction: HeadDirection = best.position / best.total <= 0.5 ? 'left' : 'right';
    if (direction === 'left') leftVotes += s.count;
    else rightVotes += s.count;
    rules[label] = [{ direction, labels: ranked.slice(0, 12).map(([cat]) => cat) }];
    learned.push(label);
  }
  // Second pass: phrase candidates ordered by the head tags they share with the parent.
  const first: HeadTable = { ...base, rules, otherwise: 'left', coordination: base.coordination };
  const headTags = headTagCounts(trees, first);
  const share = (a: string, b: string): number => {
    const da = headTags.get(a);
    const db = headTags.get(b);
    if (!da || !db) return 0;
    let na = 0;
    let nb = 0;
    for (const k of da.values()) na += k;
    for (const k of db.values()) nb += k;
    let overlap = 0;
    for (const [tag, k] of da) overlap += Math.min(k / na, (db.get(tag) ?? 0) / nb);
    return overlap;
  };
  for (const label of learned) {
    if (base.rules[label] !== undefined) continue;
    const [rule] = rules[label];
    const words = rule.labels.filter((l) => !headTags.has(l));
    const phrases = rule.labels.filter((l) => headTags.has(l));
    const order = new Map(phrases.map((l, i) => [l, i]));
    phrases.sort((a, b) => share(label, b) - share(label, a) || (order.get(a) as number) - (order.get(b) as number));
    const lexicalParent = rule.labels.length > 0 && !headTags.has(rule.labels[0]);
    rules[label] = [
      {
        direction: rule.direction,
        labels: lexicalParent ? withProjections(label, words, phrases, headTags) : [...phrases, ...words],
      },
    ];
  }
  const otherwise = Object.keys(base.rules).length > 0 ? base.otherwise : rightVotes > leftVotes ? 'right' : 'left';
  const coordination =
    base.coordination ??
    (conjunctions.size > 0 ? { conjunctions: [...conjunctions].sort(), skip: [...punctuation].sort() } : undefined);
  return { ...base, name: table ? `${table.name}+learned` : 'learned', rules, coordination, otherwise, learned };
}

/**
 * Explicit features for the linear kernel: a candidate's own `features` from the n-best
 * file, or the built-in extractor when the file has none. Feature names are interned in a
 * FeatureDictionary; a frozen dictionary (at test time) drops names it has not seen.
 */
import type { Tree } from '../trees/tree.js';
import type { NativeFeatureRows } from './perceptron-native.js';
import { suffixOf } from './word-forms.js';

export class FeatureDictionary {
  private readonly ids = new Map<string, number>();
  readonly names: string[] = [];
  frozen = false;

  constructor(names: readonly string[] = []) {
    for (const n of names) this.id(n);
  }

  /** The id of `name`; adds it unless frozen (then -1 for an unknown name). */
  id(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      if (this.frozen) return -1;
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
    }
    return id;
  }

  get size(): number {
    return this.names.length;
  }
}

/** Builds CSR rows from feature maps, one row per map. */
export class FeatureRowBuilder {
  private rowPtr: number[] = [0];
  private cols: number[] = [];
  private values: number[] = [];

  constructor(private readonly dictionary: FeatureDictionary) {}

  add(features: ReadonlyMap<string, number> | Readonly<Record<string, number>>): void {
    const entries = features instanceof Map ? features.entries() : Object.entries(features);
    for (const [name, value] of entries) {
      if (value === 0) continue;
      const id = this.dictionary.id(name);
      if (id < 0) continue;
      this.cols.push(id);
      this.values.push(value);
    }
    this.rowPtr.push(this.cols.length);
  }

  build(): NativeFeatureRows {
    return {
      rowPtr: Float64Array.from(this.rowPtr),
      cols: Int32Array.from(this.cols),
      values: Float32Array.from(this.values),
    };
  }
}

function bump(m: Map<string, number>, key: string): void {
  m.set(key, (m.get(key) ?? 0) + 1);
}

/**
 * Built-in tree features (counts): every rule `R:A>B C`, every rule with its parent
 * label `G:P^A>B C`, every tag-word pair `W:T word`, and every rule's label with its
 * span length bucket `L:A/len` (1, 2, 3-4, 5-8, 9+).
 */
export function treeFeatures(tree: Tree): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (n: Tree, parent: string): number => {
    if (n.word !== undefined) {
      bump(out, `W:${n.label} ${n.word}`);
      return 1;
    }
    const rule = `${n.label}>${n.children.map((c) => c.label).join(' ')}`;
    bump(out, `R:${rule}`);
    bump(out, `G:${parent}^${rule}`);
    let length = 0;
    for (const c of n.children) length += walk(c, n.label);
    const bucket = length <= 2 ? String(length) : length <= 4 ? '3-4' : length <= 8 ? '5-8' : '9+';
    bump(out, `L:${n.label}/${bucket}`);
    return length;
  };
  walk(tree, '^');
  return out;
}

/**
 * Built-in tag-sequence features (counts): tag with word `T:tag word`, tag with lower-cased
 * suffix `S:tag suffix3`, tag bigrams `B:prev tag` and trigrams `C:prev2 prev tag` (with
 * `<s>`/`</s>` boundaries).
 */
export function tagFeatures(tokens: readonly string[], tags: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  let p2 = '<s>';
  let p1 = '<s>';
  for (let i = 0; i < tags.length; i++) {
    const t = tags[i];
    const w = tokens[i] ?? '';
    bump(out, `T:${t} ${w}`);
    bump(out, `S:${t} ${suffixOf(w.toLowerCase(), 3)}`);
    bump(out, `B:${p1} ${t}`);
    bump(out, `C:${p2} ${p1} ${t}`);
    p2 = p1;
    p1 = t;
  }
  bump(out, `B:${p1} </s>`);
  return out;
}

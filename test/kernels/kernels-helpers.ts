/** Brute-force references and matrix checks shared by the kernel tests. */
import type { Tree } from '../../lib/trees/tree.js';

export interface Fragment {
  text: string;
  size: number;
  depth: number;
}

/** Every fragment rooted at n: whole productions, each child either cut off or expanded. */
export function fragmentsAt(n: Tree): Fragment[] {
  if (n.word !== undefined) return [{ text: `(${n.label} ${n.word})`, size: 1, depth: 1 }];
  let partial: Fragment[] = [{ text: `(${n.label}`, size: 1, depth: 1 }];
  for (const c of n.children) {
    const options: Fragment[] = [{ text: c.label, size: 0, depth: 0 }, ...fragmentsAt(c)];
    const next: Fragment[] = [];
    for (const p of partial) {
      for (const o of options)
        next.push({ text: `${p.text} ${o.text}`, size: p.size + o.size, depth: Math.max(p.depth, o.depth + 1) });
    }
    partial = next;
  }
  return partial.map((f) => ({ ...f, text: `${f.text})` }));
}

export function fragmentCounts(t: Tree): Map<string, { count: number; f: Fragment }> {
  const out = new Map<string, { count: number; f: Fragment }>();
  const walk = (n: Tree): void => {
    for (const f of fragmentsAt(n)) {
      const e = out.get(f.text);
      if (e) e.count++;
      else out.set(f.text, { count: 1, f });
    }
    n.children.forEach(walk);
  };
  walk(t);
  return out;
}

/** sum over shared fragments of lambda^size * count_a * count_b (depth <= depth when given). */
export function bruteTreeKernel(a: Tree, b: Tree, lambda: number, depth?: number): number {
  const fa = fragmentCounts(a);
  const fb = fragmentCounts(b);
  let k = 0;
  for (const [text, { count, f }] of fa) {
    const other = fb.get(text);
    if (!other || (depth !== undefined && f.depth > depth)) continue;
    k += lambda ** f.size * count * other.count;
  }
  return k;
}

/** Tag fragments: runs of labels, each position bare, with its word, or with its word class. */
export function bruteTagKernel(
  a: { words: string[]; tags: string[] },
  b: { words: string[]; tags: string[] },
  lambda: number,
  wordClass?: (w: string) => string | undefined,
): number {
  const w1 = wordClass ? 0.5 : 1;
  const w2 = wordClass ? 0.5 : 0;
  const features = (s: { words: string[]; tags: string[] }): Map<string, number> => {
    const out = new Map<string, number>();
    for (let start = 0; start < s.words.length; start++) {
      let partial: [string, number][] = [['', 1]];
      for (let t = start; t < s.words.length; t++) {
        const next: [string, number][] = [];
        const cls = wordClass?.(s.words[t]);
        for (const [text, weight] of partial) {
          const base = `${text}|${s.tags[t]}`;
          next.push([`${base}_`, weight]);
          next.push([`${base}w:${s.words[t]}`, weight * Math.sqrt(w1)]);
          if (w2 > 0 && cls) next.push([`${base}c:${cls}`, weight * Math.sqrt(w2)]);
        }
        partial = next;
        const k = t - start + 1;
        for (const [text, weight] of partial)
          out.set(text, (out.get(text) ?? 0) + weight * Math.sqrt(lambda ** (k - 1)));
      }
    }
    return out;
  };
  const fa = features(a);
  const fb = features(b);
  let k = 0;
  for (const [text, v] of fa) k += v * (fb.get(text) ?? 0);
  return k;
}

/** Smallest eigenvalue of a symmetric matrix by cyclic Jacobi rotations. */
export function minEigenvalue(m: Float64Array, n: number): number {
  const a = Float64Array.from(m);
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q] ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p];
          const akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k];
          const aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
      }
    }
  }
  let min = Infinity;
  for (let i = 0; i < n; i++) min = Math.min(min, a[i * n + i]);
  return min;
}

/** Cholesky factorization with a diagonal jitter; false if a pivot is not positive. */
export function choleskyOk(m: Float64Array, n: number, jitter: number): boolean {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = m[i * n + j] + (i === j ? jitter : 0);
      for (let k = 0; k < j; k++) s -= l[i * n + k] * l[j * n + k];
      if (i === j) {
        if (!(s > 0)) return false;
        l[i * n + i] = Math.sqrt(s);
      } else l[i * n + j] = s / l[j * n + j];
    }
  }
  return true;
}

export function randomTree(r: () => number, maxDepth: number): Tree {
  const label = ['A', 'B', 'C'][Math.floor(r() * 3)];
  if (maxDepth <= 1 || r() < 0.35) return { label, children: [], word: ['x', 'y'][Math.floor(r() * 2)] };
  const k = 1 + Math.floor(r() * 3);
  return { label, children: Array.from({ length: k }, () => randomTree(r, maxDepth - 1)) };
}

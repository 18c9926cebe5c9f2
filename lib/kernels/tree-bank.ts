/**
 * TreeBank: many trees converted once into the compact native form the tree kernels read
 * (interned production ids, child index arrays, post-order nodes, production-sorted node
 * lists). Building a bank does all string work; kernel calls do none.
 */
import { isUtf8 } from 'node:buffer';
import { InputError, UsageError } from '../errors.js';
import { isStream, readWholeFile } from '../io/lines.js';
import { readTreebankSync } from '../io/treebank.js';
import { native } from '../native.js';
import type { Tree } from '../trees/tree.js';
import { removeEmptyElements, stripFunctionTags } from '../trees/transforms.js';
import type { KernelsAddon, NativeTreeBank } from './native-kernels.js';
import { IntBuffer, SymbolTable } from './symbols.js';

export interface TreeBankOptions {
  /**
   * Remove an unlabeled outer wrapper `( (S ...))` -> `(S ...)` (default true). Labels are
   * otherwise kept as given (function tags, indices, -NONE-).
   */
  unwrap?: boolean;
  /** Apply the standard transforms first: strip function tags and indices, remove -NONE- elements. */
  strip?: boolean;
  /** Base-model log-probabilities L(x), one per tree, for the `beta` term. */
  logprobs?: ArrayLike<number>;
  /** Names the source in error messages (a file name). */
  source?: string;
  /** Line number of each tree in `source`, for error messages. */
  lines?: ArrayLike<number>;
}

/** Removes the unlabeled outer wrapper of `( (S ...))`. */
export function unwrapTree(t: Tree): Tree {
  return t.label === '' && t.word === undefined && t.children.length === 1 ? t.children[0] : t;
}

/**
 * Trees loaded once into the native core, for tree-kernel values, rows and Gram matrices.
 *
 * @example
 * ```ts
 * const bank = TreeBank.fromTrees(readTreesSync('a.mrg'));
 * const k = kernel(bank, 0, bank, 1, { lambda: 0.4 });
 * ```
 */
export class TreeBank {
  /** The native handle. */
  readonly handle: NativeTreeBank;
  /** L(x) per tree when given. */
  readonly logprobs: Float64Array | undefined;
  readonly size: number;

  private constructor(handle: NativeTreeBank, logprobs: Float64Array | undefined) {
    this.handle = handle;
    this.size = handle.size();
    this.logprobs = logprobs;
  }

  static fromTrees(trees: readonly Tree[], options: TreeBankOptions = {}): TreeBank {
    const source = options.source ?? '<trees>';
    const symbols = new SymbolTable();
    const label = new IntBuffer();
    const word = new IntBuffer();
    const arity = new IntBuffer();
    const sizes = new Int32Array(trees.length);
    trees.forEach((given, index) => {
      const line = options.lines?.[index];
      const where = line === undefined ? `tree ${index + 1}` : `tree`;
      let t: Tree | undefined = options.unwrap === false ? given : unwrapTree(given);
      if (options.strip) {
        t = removeEmptyElements(stripFunctionTags(t));
        if (t === undefined) throw new InputError(source, line, `${where}: empty tree after removing empty elements`);
      }
      const before = label.length;
      const stack: Tree[] = [t as Tree];
      while (stack.length > 0) {
        const n = stack.pop() as Tree;
        if (n.word !== undefined) {
          if (n.children.length > 0)
            throw new InputError(source, line, `${where}: node '${n.label}' has both a word and children`);
          label.push(symbols.id(n.label));
          word.push(symbols.id(n.word));
          arity.push(0);
        } else {
          if (n.children.length === 0) {
            throw new InputError(
              source,
              line,
              `${where}: empty tree or node '${n.label}' with no children and no word`,
            );
          }
          label.push(symbols.id(n.label));
          word.push(-1);
          arity.push(n.children.length);
          for (let c = n.children.length - 1; c >= 0; c--) stack.push(n.children[c]);
        }
      }
      sizes[index] = label.length - before;
    });
    if (options.logprobs !== undefined && options.logprobs.length !== trees.length) {
      throw new UsageError(`logprobs has ${options.logprobs.length} entries for ${trees.length} trees`);
    }
    const addon = native<KernelsAddon>();
    const handle = new addon.TreeBank(symbols.names, label.toArray(), word.toArray(), arity.toArray(), sizes);
    return new TreeBank(handle, options.logprobs ? Float64Array.from(options.logprobs) : undefined);
  }

  /**
   * Reads a bracketed treebank file straight into a bank. Without `strip`, the native reader
   * parses the file's bytes (no tree objects; the same bank as `fromTrees(readTreesSync(file))`);
   * malformed input, `strip` and pipes go through the JS reader, whose errors name the file,
   * the line and the problem.
   */
  static fromFile(file: string, options: Omit<TreeBankOptions, 'source' | 'lines'> = {}): TreeBank {
    const logprobs = (n: number): Float64Array | undefined => {
      if (options.logprobs !== undefined && options.logprobs.length !== n) {
        throw new UsageError(`logprobs has ${options.logprobs.length} entries for ${n} trees`);
      }
      return options.logprobs ? Float64Array.from(options.logprobs) : undefined;
    };
    if (!options.strip && !isStream(file)) {
      const bytes = readWholeFile(file);
      if (isUtf8(bytes)) {
        const handle = new (native<KernelsAddon>().TreeBank)(bytes, options.unwrap !== false);
        // An empty bank: the bytes are not well-formed trees; the JS reader says why below.
        if (handle.size() > 0) return new TreeBank(handle, logprobs(handle.size()));
      }
    }
    const parsed = readTreebankSync(file);
    return TreeBank.fromTrees(
      parsed.map((p) => p.tree),
      { ...options, source: file, lines: parsed.map((p) => p.line) },
    );
  }

  /** Bytes of the native arrays holding the trees. */
  get bytes(): number {
    return this.handle.bytes();
  }

  get totalNodes(): number {
    return this.handle.totalNodes();
  }
}

/**
 * Incremental parser for bracketed trees: feed it lines, it returns each tree as soon as
 * its brackets balance. Trees may share a line or span many lines.
 */
import { InputError } from '../errors.js';
import type { Tree } from './tree.js';

interface OpenNode {
  label: string | undefined;
  children: Tree[];
  word: string | undefined;
  line: number;
}

export interface ParsedTree {
  tree: Tree;
  /** Line on which the tree's first bracket stands. */
  line: number;
}

const TOKEN = /\(|\)|[^\s()]+/g;

/**
 * Deepest bracket nesting accepted. Real treebank trees stay under a hundred levels; the
 * recursive tree code (here, in transforms and in the native kernels) would overflow the
 * stack a few thousand levels down, so deeper input is refused up front.
 */
export const MAX_TREE_DEPTH = 1000;

export class BracketParser {
  private stack: OpenNode[] = [];

  constructor(private readonly file: string) {}

  /** Number of brackets currently open (0 between trees). */
  get depth(): number {
    return this.stack.length;
  }

  /** Consumes one line; returns the trees it completes. */
  feed(text: string, lineNumber: number, out: ParsedTree[] = []): ParsedTree[] {
    TOKEN.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = TOKEN.exec(text)) !== null) {
      const tok = m[0];
      if (tok === '(') {
        const parent = this.stack[this.stack.length - 1];
        if (parent && parent.word !== undefined) {
          this.fail(lineNumber, `a bracket follows the word '${parent.word}' inside (${parent.label ?? ''} ...)`);
        }
        if (this.stack.length >= MAX_TREE_DEPTH)
          this.fail(lineNumber, `brackets nested more than ${MAX_TREE_DEPTH} levels deep`);
        this.stack.push({ label: undefined, children: [], word: undefined, line: lineNumber });
      } else if (tok === ')') {
        const open = this.stack.pop();
        if (!open) this.fail(lineNumber, "unbalanced brackets: ')' with no matching '('");
        const tree = this.close(open, lineNumber);
        const parent = this.stack[this.stack.length - 1];
        if (parent) parent.children.push(tree);
        else {
          if (tree.word === undefined && !hasWord(tree)) this.fail(open.line, 'tree has no words');
          out.push({ tree, line: open.line });
        }
      } else {
        const top = this.stack[this.stack.length - 1];
        if (!top) this.fail(lineNumber, `text outside brackets: '${tok}'`);
        if (top.label === undefined && top.children.length === 0) top.label = tok;
        else if (top.children.length > 0) {
          this.fail(lineNumber, `word '${tok}' stands beside subtrees inside (${top.label ?? ''} ...)`);
        } else if (top.word === undefined) top.word = tok;
        else this.fail(lineNumber, `two words '${top.word}' and '${tok}' in one preterminal (${top.label} ...)`);
      }
    }
    return out;
  }

  /** Call at end of input: throws if a tree is still open. */
  finish(lastLine: number): void {
    if (this.stack.length > 0) {
      this.fail(
        this.stack[0].line,
        `unbalanced brackets: tree opened here is not closed by end of file (line ${lastLine})`,
      );
    }
  }

  private close(open: OpenNode, lineNumber: number): Tree {
    const label = open.label ?? '';
    if (open.word !== undefined) return { label, children: [], word: open.word };
    if (open.children.length === 0) {
      if (open.label === undefined) this.fail(lineNumber, "empty brackets '()'");
      // `(X)` with a label and nothing else: a node with neither word nor children.
      this.fail(lineNumber, `constituent (${label}) has no children and no word`);
    }
    return { label, children: open.children };
  }

  private fail(line: number, problem: string): never {
    this.stack = [];
    throw new InputError(this.file, line, problem);
  }
}

function hasWord(t: Tree): boolean {
  if (t.word !== undefined) return true;
  return t.children.some(hasWord);
}

/**
 * Parses exactly one tree from a string (e.g. an n-best candidate).
 *
 * @example
 * ```ts
 * const tree = parseTree('(S (NP (PRP It)) (VP (VBZ works)))');
 * tree.children[0].label; // 'NP'
 * ```
 */
export function parseTree(text: string, source = '<string>', line = 1): Tree {
  const parser = new BracketParser(source);
  const trees = parser.feed(text, line);
  parser.finish(line);
  if (trees.length !== 1) {
    throw new InputError(
      source,
      line,
      trees.length === 0 ? 'no tree found' : `expected one tree, found ${trees.length}`,
    );
  }
  return trees[0].tree;
}

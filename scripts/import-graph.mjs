#!/usr/bin/env node
/**
 * The import graph of lib/: circles and imports from a lower layer to a higher one.
 *
 *   node scripts/import-graph.mjs            # counts, then each circle and upward import
 *   node scripts/import-graph.mjs --check    # the same; exit 1 when either count is not 0
 *   node scripts/import-graph.mjs --root <dir>  # another tree laid out like lib/ (tests)
 *
 * Every import counts: static, `import type`, `export ... from` and `await import(...)`, since a
 * type circle or a lazy import is still an arrow a reader has to follow. The layers are the ones
 * lint rules enforce (scripts/eslint-layers.mjs); both read them from scripts/layers.mjs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { LAYERS, layerOf, mayImport } from './layers.mjs';

function listTs(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listTs(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The relative module specifiers a file imports, with how (static, type, dynamic). */
function importsOf(file) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const typeOnly = ts.isImportDeclaration(node) ? Boolean(node.importClause?.isTypeOnly) : node.isTypeOnly;
      found.push({ spec: node.moduleSpecifier.text, kind: typeOnly ? 'type' : 'static' });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ spec: node.arguments[0].text, kind: 'dynamic' });
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push({ spec: node.argument.literal.text, kind: 'type' });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((i) => i.spec.startsWith('.'));
}

export function importGraph(root) {
  const files = listTs(root)
    .map((f) => relative(root, f).split(sep).join('/'))
    .sort();
  const known = new Set(files);
  const edges = new Map(files.map((f) => [f, []]));
  for (const file of files) {
    for (const { spec, kind } of importsOf(join(root, file))) {
      const target = relative(root, resolve(root, dirname(file), spec.replace(/\.js$/, '.ts')))
        .split(sep)
        .join('/');
      if (known.has(target)) edges.get(file).push({ to: target, kind });
    }
  }
  return { files, edges };
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
export function circles({ files, edges }) {
  let next = 0;
  const index = new Map(),
    low = new Map(),
    stack = [],
    onStack = new Set(),
    out = [];
  const connect = (v) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const { to } of edges.get(v)) {
      if (!index.has(to)) {
        connect(to);
        low.set(v, Math.min(low.get(v), low.get(to)));
      } else if (onStack.has(to)) low.set(v, Math.min(low.get(v), index.get(to)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || edges.get(v).some((e) => e.to === v)) out.push(component.sort());
    }
  };
  for (const f of files) if (!index.has(f)) connect(f);
  return out.sort((a, b) => b.length - a.length);
}

/** Imports whose target sits in a higher layer than the importer, or in a layer it may not see. */
export function upwardImports({ files, edges }) {
  const out = [];
  for (const from of files) {
    const a = layerOf(from);
    for (const { to, kind } of edges.get(from)) {
      const b = layerOf(to);
      if (a === undefined || b === undefined) continue;
      if (!mayImport(a, b)) out.push({ from, to, kind, fromLayer: a.name, toLayer: b.name });
    }
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const rootAt = args.indexOf('--root');
  const root = resolve(rootAt >= 0 ? args[rootAt + 1] : join(dirname(new URL(import.meta.url).pathname), '..', 'lib'));
  const graph = importGraph(root);
  const unplaced = graph.files.filter((f) => layerOf(f) === undefined);
  const found = circles(graph);
  const upward = upwardImports(graph);
  const edgeCount = [...graph.edges.values()].reduce((n, e) => n + e.length, 0);
  console.log(`${graph.files.length} files, ${edgeCount} imports, ${LAYERS.length} layers`);
  console.log(`circles: ${found.length} (${found.reduce((n, c) => n + c.length, 0)} files in them)`);
  for (const c of found) console.log(`  circle of ${c.length}: ${c.join(' ')}`);
  console.log(`upward imports: ${upward.length}`);
  for (const u of upward)
    console.log(`  ${u.from} (${u.fromLayer}) -> ${u.to} (${u.toLayer})${u.kind === 'static' ? '' : ` [${u.kind}]`}`);
  if (unplaced.length > 0) console.log(`files in no layer: ${unplaced.length}\n  ${unplaced.join('\n  ')}`);
  if (args.includes('--check') && (found.length > 0 || upward.length > 0 || unplaced.length > 0)) process.exitCode = 1;
}

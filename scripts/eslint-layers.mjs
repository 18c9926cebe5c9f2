/**
 * Lint rules that keep lib/ layered (the layers: scripts/layers.mjs), turned on for lib/ in
 * eslint.config.js:
 *   layers/no-upward-import  an import of a higher layer, or of a same-rank layer not in `sees`
 *   layers/no-cycle          an import that closes a circle of files (from the graph on disk)
 * Both see every import: static, `import type`, `export ... from` and `await import('...')`.
 * Option `root`: the folder the layers' paths are relative to (default: lib/ beside scripts/).
 */
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { circles, importGraph } from './import-graph.mjs';
import { layerOf, mayImport } from './layers.mjs';

const defaultRoot = join(dirname(fileURLToPath(import.meta.url)), '..', 'lib');
const rootOption = {
  type: 'array',
  items: [{ type: 'object', properties: { root: { type: 'string' } }, additionalProperties: false }],
};

/** The path of an import relative to `root` ('io/lines.ts'), or undefined outside it. */
function targetOf(root, file, spec) {
  if (!spec.startsWith('.')) return undefined;
  const path = relative(root, resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
    .split(sep)
    .join('/');
  return path.startsWith('..') ? undefined : path;
}

/** Calls `check(node, specifier)` for every import of a relative module the file makes. */
function onImports(check) {
  const source = (node) => {
    if (node.source?.type === 'Literal' && typeof node.source.value === 'string') check(node.source, node.source.value);
  };
  return {
    ImportDeclaration: source,
    ExportNamedDeclaration: source,
    ExportAllDeclaration: source,
    ImportExpression: source,
    TSImportType(node) {
      const literal = node.argument?.literal ?? node.argument;
      if (literal?.type === 'Literal' && typeof literal.value === 'string') check(literal, literal.value);
    },
  };
}

const noUpwardImport = {
  meta: {
    type: 'problem',
    docs: { description: 'lib/ imports only from its own layer and the layers below (scripts/layers.mjs)' },
    schema: rootOption,
    messages: {
      upward:
        "layer '{{from}}' may not import '{{spec}}' (layer '{{to}}'): lib/ imports only downwards (scripts/layers.mjs)",
    },
  },
  create(context) {
    const root = resolve(context.options[0]?.root ?? defaultRoot);
    const file = context.filename;
    const from = layerOf(relative(root, file).split(sep).join('/'));
    if (from === undefined) return {};
    return onImports((node, spec) => {
      const target = targetOf(root, file, spec);
      const to = target === undefined ? undefined : layerOf(target);
      if (to !== undefined && !mayImport(from, to))
        context.report({ node, messageId: 'upward', data: { from: from.name, to: to.name, spec } });
    });
  },
};

/** Per root: each file's circle (the files of its strongly connected component). */
const circleCache = new Map();
function circleOf(root, path) {
  let byFile = circleCache.get(root);
  if (byFile === undefined) {
    byFile = new Map();
    for (const circle of circles(importGraph(root))) for (const f of circle) byFile.set(f, circle);
    circleCache.set(root, byFile);
  }
  return byFile.get(path);
}

const noCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'no circle of imports between the files of lib/' },
    schema: rootOption,
    messages: { cycle: "'{{spec}}' closes a circle of imports: {{files}} (node scripts/import-graph.mjs)" },
  },
  create(context) {
    const root = resolve(context.options[0]?.root ?? defaultRoot);
    const file = context.filename;
    const path = relative(root, file).split(sep).join('/');
    if (path.startsWith('..')) return {};
    const circle = circleOf(root, path);
    if (circle === undefined) return {};
    return onImports((node, spec) => {
      const target = targetOf(root, file, spec);
      if (target !== undefined && circle.includes(target))
        context.report({ node, messageId: 'cycle', data: { spec, files: circle.join(', ') } });
    });
  },
};

export default {
  meta: { name: 'structrank-layers' },
  rules: { 'no-upward-import': noUpwardImport, 'no-cycle': noCycle },
};

/**
 * `kernel trees` and `kernel tags` in row blocks. A job computes the rows [from, to) of the
 * Gram matrix and stores them as little-endian doubles; the coordinator places the blocks and
 * prints the matrix with the local command's printer, so the output is the local run's byte
 * for byte. For A against itself the local run computes each pair once, K(a_i, a_j) for
 * i <= j, and mirrors it (K(a_j, a_i) may differ in the last bit: the node pairs are summed in
 * another order). A job therefore computes only its rows' upper part: its block against
 * itself (the same-bank Gram matrix: mirrored, a normalized diagonal of exactly 1) and its
 * block against the items after it; the coordinator mirrors the rest.
 */
import { z } from 'zod';
import { InputError } from '../errors.js';
import { readTreebankSync } from '../io/treebank.js';
import { gramAsync } from '../kernels/kernel.js';
import { type SequenceBank, builtinWordFeatures, type BuiltinWordFeature } from '../kernels/sequence-bank.js';
import { readSequenceFile, type SequenceFileOptions } from '../kernels/sequence-files.js';
import { TreeBank } from '../kernels/tree-bank.js';
import { printMatrix } from '../kernels/print-matrix.js';
import type { JobEnv, JobOutcome } from './job-env.js';
import { parsePayload, type KernelStripPayload } from './payloads.js';
import { queueOptions, runShardSteps, shardStep } from './shards.js';
import { ArtifactStore } from './store.js';

type Options = KernelStripPayload['options'];

/** A file's items, and a bank of any range of them, built as the local command builds its banks. */
interface Items {
  size: number;
  bank(from: number, to: number): TreeBank | SequenceBank;
}

function loadItems(kind: 'trees' | 'tags', file: string, source: string, o: Options): Items {
  if (kind === 'trees') {
    const parsed = readTreebankSync(file);
    return {
      size: parsed.length,
      bank: (from, to) => {
        const part = parsed.slice(from, to);
        return TreeBank.fromTrees(
          part.map((p) => p.tree),
          { source, lines: part.map((p) => p.line), strip: !!o.strip },
        );
      },
    };
  }
  const sim2 = parsePayload(
    'kernel-strip',
    z.enum(builtinWordFeatures as readonly [BuiltinWordFeature, ...BuiltinWordFeature[]]).optional(),
    o.sim2,
  );
  return readSequenceFile(file, source, {
    format: o.format ?? 'conll',
    columns: o.columns ?? [],
    tagField: o.tagField ?? 'upos',
    wordFeature: sim2,
  });
}

const gramOptions = (o: Options, threads: number, signal?: AbortSignal) => ({
  lambda: o.lambda,
  depth: o.depth,
  sim2: o.sim2 !== undefined,
  normalize: o.normalize,
  plain: o.plain,
  threads,
  signal,
});

/** Job body: the rows [from, to) (for A against A, their columns from `from` on). */
export async function runKernelStrip(p: KernelStripPayload, env: JobEnv): Promise<JobOutcome> {
  const done = env.store.readManifest(p.step);
  if (done) return { step: p.step, cached: true, files: done.files };
  const a = loadItems(p.kind, env.store.verifiedPath(p.a), 'A', p.options);
  if (p.to > a.size || p.from >= p.to)
    throw new InputError('<payload>', undefined, `rows ${p.from}-${p.to} outside the ${a.size} items of A`);
  const block = a.bank(p.from, p.to);
  const options = gramOptions(p.options, env.threads, env.signal) as Parameters<typeof gramAsync>[2] & object;
  let strip: Float64Array;
  if (p.b !== undefined) {
    const b = loadItems(p.kind, env.store.verifiedPath(p.b), 'B', p.options);
    strip = await gramAsync(block, b.bank(0, b.size), options);
  } else {
    const rows = p.to - p.from;
    const width = a.size - p.from;
    const self = await gramAsync(block, null, options);
    const right = p.to < a.size ? await gramAsync(block, a.bank(p.to, a.size), options) : new Float64Array(0);
    strip = new Float64Array(rows * width);
    for (let r = 0; r < rows; r++) {
      strip.set(self.subarray(r * rows, (r + 1) * rows), r * width);
      strip.set(right.subarray(r * (width - rows), (r + 1) * (width - rows)), r * width + rows);
    }
  }
  const files = { out: env.store.put(littleEndian(strip)) };
  env.store.writeManifest({ step: p.step, files, seconds: 0 });
  return { step: p.step, cached: false, files };
}

function littleEndian(values: Float64Array): Buffer {
  const out = Buffer.alloc(values.length * 8);
  for (let i = 0; i < values.length; i++) out.writeDoubleLE(values[i], i * 8);
  return out;
}

function fromLittleEndian(bytes: Buffer): Float64Array {
  const out = new Float64Array(bytes.length / 8);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readDoubleLE(i * 8);
  return out;
}

/** The kernel command's options that a sharded run uses. */
export interface KernelShardValues {
  lambda: number;
  normalize?: boolean;
  plain?: boolean;
  json?: boolean;
  depth?: number;
  strip?: boolean;
  sim2?: string;
  /** tags: the input files' format and columns or tag field (kernel-tags.ts sequenceFileOptions) */
  files?: SequenceFileOptions;
  redis?: string;
  store?: string;
  shardSize: number;
}

/** The coordinator of `kernel trees|tags --redis --store`: row blocks as jobs, one matrix printed. */
export async function runKernelSharded(
  kind: 'trees' | 'tags',
  files: string[],
  values: KernelShardValues,
  signal?: AbortSignal,
): Promise<number> {
  const command = `kernel ${kind}`;
  const q = queueOptions(command, values);
  const options: Options = { lambda: values.lambda, normalize: !!values.normalize, plain: !!values.plain };
  if (kind === 'trees') {
    if (values.depth !== undefined) options.depth = values.depth;
    if (values.strip) options.strip = true;
  } else {
    const files = values.files as SequenceFileOptions;
    if (files.format === 'conllu') Object.assign(options, { format: 'conllu', tagField: files.tagField });
    else options.columns = files.columns;
    if (values.sim2 !== undefined) options.sim2 = values.sim2;
  }
  // Read and build here as the local command does: its errors, at its files and lines.
  const items = files.map((file) => loadItems(kind, file, file, options));
  for (const it of items) it.bank(0, it.size);
  const n = items[0].size;
  const cols = (items[1] ?? items[0]).size;
  const store = new ArtifactStore(q.store);
  const a = await store.putFile(files[0]);
  const b = files[1] !== undefined ? await store.putFile(files[1]) : undefined;
  const size = values.shardSize;
  const blocks: [number, number][] = [];
  for (let from = 0; from < n; from += size) blocks.push([from, Math.min(n, from + size)]);
  const steps = blocks.map(([from, to], i) =>
    shardStep('kernel-strip', `kernel-${kind}`, i, blocks.length, { kind, a, ...(b ? { b } : {}), from, to, options }),
  );
  process.stderr.write(`${command}: ${blocks.length} block(s) of up to ${size} rows\n`);
  const manifests = await runShardSteps(command, q.redis, store, steps, { signal, input: files[0], shards: [] });
  const matrix = new Float64Array(n * cols);
  manifests.forEach((m, k) => {
    const [from, to] = blocks[k];
    const strip = fromLittleEndian(store.get(m.files.out));
    const width = b ? cols : n - from;
    for (let r = 0; r < to - from; r++)
      matrix.set(strip.subarray(r * width, (r + 1) * width), (from + r) * cols + (cols - width));
  });
  if (!b) for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) matrix[i * cols + j] = matrix[j * cols + i];
  await printMatrix(matrix, cols, !!values.json);
  return 0;
}

/**
 * The processor a benchmark runs on, printed in every bench's header and kept in the JSON a
 * bench writes: the same code runs at different speeds on different processors (an AVX2-only
 * AMD EPYC and an AVX-512 Intel Xeon pick different vector variants), so a figure without
 * its processor cannot be compared with anything.
 */
import { readFileSync } from 'node:fs';
import { arch, availableParallelism, cpus } from 'node:os';
import { native } from '../lib/native.js';

export interface Processor {
  model: string;
  vendor: string;
  /** cpu family / model / stepping as the kernel reports them (x86), else the architecture. */
  family: string;
  /** The vector extensions that matter to the hot loops, as /proc/cpuinfo names them. */
  simd: string[];
  /** The vector variant structrank's addon chose (native/core/simd.h), and why. */
  variant: string;
  cores: number;
}

const SIMD_FLAGS = [
  'sse2',
  'sse4_2',
  'avx',
  'avx2',
  'fma',
  'avx512f',
  'avx512dq',
  'avx512bw',
  'avx512vl',
  'asimd',
  'sve',
];

/** The first processor block of /proc/cpuinfo as key -> value ('' off Linux). */
function cpuinfo(): Map<string, string> {
  const out = new Map<string, string>();
  let text = '';
  try {
    text = readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (out.size > 0) break;
      continue;
    }
    const i = line.indexOf(':');
    if (i > 0) out.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  return out;
}

/** The variant an addon reports; an addon built before the report existed says nothing. */
export function variantOf(info: { simd?: { description: string } }): string {
  return info.simd?.description ?? 'not reported (a build with target_clones, resolved by the loader)';
}

let cached: Processor | undefined;

export function processor(): Processor {
  if (cached) return cached;
  const info = cpuinfo();
  const flags = (info.get('flags') ?? info.get('Features') ?? '').split(/\s+/);
  const family = info.has('cpu family')
    ? `family ${info.get('cpu family')} model ${info.get('model')} stepping ${info.get('stepping')}`
    : arch();
  cached = {
    model: info.get('model name') ?? cpus()[0]?.model ?? 'unknown',
    vendor: info.get('vendor_id') ?? info.get('CPU implementer') ?? 'unknown',
    family,
    simd: SIMD_FLAGS.filter((f) => flags.includes(f)),
    variant: variantOf(native().nativeInfo()),
    cores: availableParallelism(),
  };
  return cached;
}

/** One header line: `processor: AMD EPYC (AuthenticAMD, family 25 model 1 ...); SIMD ...; variant ...`. */
export function processorLine(p: Processor = processor()): string {
  return (
    `processor: ${p.model} (${p.vendor}, ${p.family}), ${p.cores} cores; SIMD ${p.simd.join(' ') || 'none listed'}; ` +
    `structrank's vector variant ${p.variant}`
  );
}

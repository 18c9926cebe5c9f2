/**
 * Training checkpoints: everything a trainer needs to continue exactly where it stopped, so
 * that training N steps, saving, and resuming to N + M gives the model of one N + M run.
 *
 * A checkpoint is a model-file container (lib/io/model-file.ts: magic, version, SHA-256,
 * atomic write) of kind `checkpoint`, whose JSON meta says which trainer wrote it, after
 * how many steps, a fingerprint of the training data and of the options that shape the
 * model, the trainer's own bookkeeping (best dev score, patience counter) and the names
 * and lengths of the binary sections (native optimizer states) concatenated in the payload.
 * Format: docs/formats.md, "Training checkpoints".
 */
import { createHash } from 'node:crypto';
import { ModelFileError } from '../errors.js';
import { loadModel, saveModel } from './model-file.js';

const KIND = 'checkpoint';
const VERSION = 1;

/** Which trainer wrote a checkpoint; a checkpoint is only resumed by the same trainer. */
export type CheckpointTrainer =
  'tagger' | 'loglinear-reranker' | 'boost-reranker' | 'perceptron-reranker' | 'crf-parser';

export interface Checkpoint<State = unknown> {
  trainer: CheckpointTrainer;
  /** Epochs, iterations or rounds done. */
  step: number;
  /** fingerprintOf(training data, model-shaping options): resuming checks it. */
  fingerprint: string;
  /** The model-shaping options, named in the error when the fingerprint differs. */
  options: Record<string, unknown>;
  /** The trainer's JSON bookkeeping (dev scores, counters). */
  state: State;
  /** Binary states (native optimizer state, weights), by name. */
  sections: Record<string, Uint8Array>;
}

interface CheckpointMeta {
  trainer: CheckpointTrainer;
  step: number;
  fingerprint: string;
  options: Record<string, unknown>;
  state: unknown;
  sections: { name: string; bytes: number }[];
}

/** SHA-256 (hex) of the parts in order, each prefixed by its length so that parts cannot run together. */
export function fingerprintOf(parts: Iterable<string | Uint8Array>): string {
  const hash = createHash('sha256');
  const length = Buffer.alloc(8);
  for (const part of parts) {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    length.writeBigUInt64LE(BigInt(bytes.length));
    hash.update(length).update(bytes);
  }
  return hash.digest('hex');
}

/** Writes a checkpoint atomically (temp file, fsync, rename): a crash leaves the previous one. */
export function saveCheckpoint(file: string, checkpoint: Checkpoint): void {
  const names = Object.keys(checkpoint.sections);
  const meta: CheckpointMeta = {
    trainer: checkpoint.trainer,
    step: checkpoint.step,
    fingerprint: checkpoint.fingerprint,
    options: checkpoint.options,
    state: checkpoint.state ?? null,
    sections: names.map((name) => ({ name, bytes: checkpoint.sections[name].length })),
  };
  saveModel(file, {
    kind: KIND,
    kindVersion: VERSION,
    meta,
    payload: Buffer.concat(names.map((n) => checkpoint.sections[n])),
  });
}

/**
 * Reads a checkpoint of `trainer` and checks that it was written for the same training data
 * and model options (`fingerprint`, `options`); any difference is a ModelFileError naming
 * the file and, when it is an option, the option.
 */
export function loadCheckpoint<State = unknown>(
  file: string,
  trainer: CheckpointTrainer,
  expect: { fingerprint: string; options: Record<string, unknown> },
): Checkpoint<State> {
  const m = loadModel<CheckpointMeta>(file, KIND);
  const bad = (problem: string): never => {
    throw new ModelFileError(file, problem);
  };
  if (m.kindVersion > VERSION)
    bad(`checkpoint version ${m.kindVersion} is newer than this structrank supports (${VERSION})`);
  const meta = m.meta;
  if (!meta || typeof meta.step !== 'number' || !Array.isArray(meta.sections) || typeof meta.fingerprint !== 'string')
    bad('checkpoint metadata is incomplete');
  if (meta.trainer !== trainer)
    bad(`this is a checkpoint of the ${meta.trainer} trainer, not of the ${trainer} trainer`);
  if (meta.fingerprint !== expect.fingerprint) {
    const names = new Set([...Object.keys(meta.options ?? {}), ...Object.keys(expect.options)]);
    const differs = [...names].filter(
      (k) => JSON.stringify(meta.options?.[k] ?? null) !== JSON.stringify(expect.options[k] ?? null),
    );
    bad(
      differs.length > 0
        ? `checkpoint was written with other options: ${differs.map((k) => `${k} ${JSON.stringify(meta.options?.[k] ?? null)} (now ${JSON.stringify(expect.options[k] ?? null)})`).join(', ')}`
        : 'checkpoint was written for other training (or dev) data',
    );
  }
  const sections: Record<string, Uint8Array> = {};
  let at = 0;
  for (const { name, bytes } of meta.sections) {
    if (!Number.isInteger(bytes) || bytes < 0 || at + bytes > m.payload.length)
      bad('checkpoint sections do not fit its payload');
    sections[name] = m.payload.subarray(at, at + bytes);
    at += bytes;
  }
  if (at !== m.payload.length) bad('checkpoint payload has bytes no section claims');
  return {
    trainer,
    step: meta.step,
    fingerprint: meta.fingerprint,
    options: meta.options,
    state: meta.state as State,
    sections,
  };
}

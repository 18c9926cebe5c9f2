/**
 * Feature extraction over whole n-best files on all cores: sentences go to a pool of
 * worker_threads in batches (in-process when threads = 1 or the compiled worker is absent,
 * e.g. when running from TypeScript sources). Features come back as names, or, with
 * `interned`, as rows of ids that the workers intern themselves (interned-rows.ts).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { abortCheckpoint, AbortError, InputError } from '../errors.js';
import { resolveThreads } from '../native.js';
import type { NbestSentence } from '../io/nbest.js';
import { sentenceFeatures, type ExtractOptions } from './nbest-features.js';
import { listTagScoring } from '../eval/score.js';
import type { SentenceFeatureNames } from './feature-table.js';
import { IdMap, RowInterner, type InternedSentence } from './interned-rows.js';

export interface ExtractRunOptions extends ExtractOptions {
  threads?: number;
  signal?: AbortSignal;
  /** Called with the number of sentences done. */
  onProgress?: (done: number) => void;
  batchSize?: number;
  /**
   * Receives each sentence's features as soon as they are extracted (not in order); the
   * returned array then stays empty. Lets a caller compact them at once instead of holding
   * every candidate's feature names (gigabytes of strings on the demo's 30,000 candidates).
   */
  onSentence?: (index: number, features: SentenceFeatureNames) => void;
  /**
   * Receives each sentence's features as rows of ids from `intern` instead (not in order; the
   * returned array stays empty). Workers intern into tables of their own, so only the names
   * new to a worker reach `intern`.
   */
  interned?: { intern: (name: string) => number; onSentence: (index: number, rows: InternedSentence) => void };
}

interface BatchReply {
  id: number;
  result?: Array<SentenceFeatureNames | InternedSentence>;
  /** With interning: the names the worker interned since its last reply. */
  names?: string[];
  error?: { message: string; problem?: string; line?: number };
}

// Errors inside a candidate tree name the n-best line of the sentence.
function rethrow(
  file: string,
  s: NbestSentence | undefined,
  err: { message: string; problem?: string; line?: number },
): never {
  if (s) throw new InputError(file, s.line || undefined, `sentence ${s.id}: ${err.problem ?? err.message}`);
  throw new InputError(file, err.line || undefined, err.problem ?? err.message);
}

/**
 * Worker threads to start for `batches` batches when `threads` are asked for: at most one per
 * core, as each worker is a whole V8 instance (tens of MB): --threads 100000 started one per batch.
 */
export function extractionWorkers(threads: number, batches: number): number {
  return Math.max(1, Math.min(resolveThreads(threads), batches));
}

export async function extractSentences(
  file: string,
  sentences: readonly NbestSentence[],
  options: ExtractRunOptions = {},
): Promise<SentenceFeatureNames[]> {
  const threads = resolveThreads(options.threads);
  const workerUrl = new URL('./feature-worker.js', import.meta.url);
  const { threads: _t, signal, onProgress, batchSize, onSentence, interned, ...extract } = options;
  void _t;
  // One tag scoring for the whole file.
  if (extract.scoring === undefined) {
    const scoring = listTagScoring(sentences);
    if (scoring !== undefined) extract.scoring = scoring;
  }
  const out: SentenceFeatureNames[] = onSentence || interned ? [] : new Array(sentences.length);
  const keep = onSentence ?? ((i: number, features: SentenceFeatureNames): void => void (out[i] = features));
  if (threads === 1 || sentences.length < 64 || !existsSync(fileURLToPath(workerUrl))) {
    const checkpoint = abortCheckpoint(signal);
    const rows = interned && new RowInterner(interned.intern);
    for (let i = 0; i < sentences.length; i++) {
      await checkpoint();
      try {
        // No local holds the names: one would keep them alive across the next await.
        if (rows) interned.onSentence(i, rows.sentence(sentenceFeatures(sentences[i], extract)));
        else keep(i, sentenceFeatures(sentences[i], extract));
      } catch (err) {
        rethrow(file, sentences[i], err as Error);
      }
      if ((i & 255) === 255) onProgress?.(i + 1);
    }
    onProgress?.(sentences.length);
    return out;
  }
  const size = Math.max(1, batchSize ?? 100);
  const batches: Array<[number, number]> = [];
  for (let b = 0; b < sentences.length; b += size) batches.push([b, Math.min(sentences.length, b + size)]);
  const workers = Array.from({ length: extractionWorkers(threads, batches.length) }, () => new Worker(workerUrl));
  const idMaps = new Map(workers.map((w) => [w, interned && new IdMap(interned.intern)]));
  let next = 0;
  let done = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      let active = 0;
      let failed = false;
      const onAbort = (): void => {
        failed = true;
        reject(new AbortError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const feed = (w: Worker): void => {
        if (failed) return;
        if (next >= batches.length) {
          if (active === 0) {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          }
          return;
        }
        const id = next++;
        const [b, e] = batches[id];
        active++;
        w.postMessage({ id, batch: sentences.slice(b, e), options: extract, intern: interned !== undefined });
      };
      for (const w of workers) {
        w.on('message', (msg: BatchReply) => {
          active--;
          const [b] = batches[msg.id];
          if (msg.error) {
            failed = true;
            try {
              rethrow(file, undefined, msg.error);
            } catch (err) {
              reject(err);
            }
            return;
          }
          const result = msg.result ?? [];
          const ids = idMaps.get(w);
          if (interned && ids) {
            ids.learn(msg.names ?? []);
            (result as InternedSentence[]).forEach((r, k) => {
              ids.map(r.cols);
              interned.onSentence(b + k, r);
            });
          } else (result as SentenceFeatureNames[]).forEach((r, k) => keep(b + k, r));
          done += result.length;
          onProgress?.(done);
          feed(w);
        });
        w.on('error', (err) => {
          failed = true;
          reject(err);
        });
        feed(w);
      }
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return out;
}

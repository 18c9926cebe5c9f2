/** worker_threads entry: extracts features and scores for batches of n-best sentences. */
import { parentPort } from 'node:worker_threads';
import type { NbestSentence } from '../io/nbest.js';
import { sentenceFeatures, type ExtractOptions } from './nbest-features.js';

parentPort?.on('message', (msg: { id: number; batch: NbestSentence[]; options: ExtractOptions }) => {
  const result = [];
  for (const s of msg.batch) {
    try {
      result.push(sentenceFeatures(s, msg.options));
    } catch (err) {
      const e = err as Error & { problem?: string };
      parentPort?.postMessage({
        id: msg.id,
        error: { message: e.message, problem: `sentence ${s.id}: ${e.problem ?? e.message}`, line: s.line },
      });
      return;
    }
  }
  parentPort?.postMessage({ id: msg.id, result });
});

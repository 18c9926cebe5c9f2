/**
 * worker_threads entry: extracts features and scores for batches of n-best sentences, as
 * names, or (with `intern`) as rows of ids of this worker's own table plus the names new to
 * it (interned-rows.ts).
 */
import { parentPort } from 'node:worker_threads';
import type { NbestSentence } from '../io/nbest.js';
import type { SentenceFeatureNames } from './feature-table.js';
import { NameTable, RowInterner, type InternedSentence } from './interned-rows.js';
import { sentenceFeatures, type ExtractOptions } from './nbest-features.js';

const table = new NameTable();
const rows = new RowInterner((name) => table.intern(name));
let namesSent = 0;

parentPort?.on('message', (msg: { id: number; batch: NbestSentence[]; options: ExtractOptions; intern: boolean }) => {
  const result: Array<SentenceFeatureNames | InternedSentence> = [];
  for (const s of msg.batch) {
    try {
      const features = sentenceFeatures(s, msg.options);
      result.push(msg.intern ? rows.sentence(features) : features);
    } catch (err) {
      const e = err as Error & { problem?: string };
      parentPort?.postMessage({
        id: msg.id,
        error: { message: e.message, problem: `sentence ${s.id}: ${e.problem ?? e.message}`, line: s.line },
      });
      return;
    }
  }
  if (!msg.intern) {
    parentPort?.postMessage({ id: msg.id, result });
    return;
  }
  const names = table.names.slice(namesSent);
  namesSent = table.names.length;
  const buffers = (result as InternedSentence[]).flatMap((r) => [
    r.cols.buffer,
    r.ends.buffer,
    r.logprob.buffer,
    r.score.buffer,
  ]);
  parentPort?.postMessage({ id: msg.id, result, names }, buffers);
});

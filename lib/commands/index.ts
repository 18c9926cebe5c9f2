/** The CLI's command table. Each entry loads its module lazily so start-up stays fast. */
import type { Command } from '../cli/command.js';

export const commands: Record<string, () => Promise<Command>> = {
  info: async () => (await import('./info.js')).default,
  demo: async () => (await import('./demo.js')).default,
  pipeline: async () => (await import('./pipeline.js')).default,
  'kernel trees': async () => (await import('./kernel-trees.js')).default,
  'kernel tags': async () => (await import('./kernel-tags.js')).default,
  'train-tagger': async () => (await import('./train-tagger.js')).default,
  tag: async () => (await import('./tag.js')).default,
  'train-parser': async () => (await import('./train-parser.js')).default,
  parse: async () => (await import('./parse.js')).default,
  'eval parse': async () => (await import('./eval-parse.js')).default,
  'eval chunks': async () => (await import('./eval-chunks.js')).default,
  'eval tags': async () => (await import('./eval-tags.js')).default,
  features: async () => (await import('./features.js')).default,
  'train-reranker': async () => (await import('./train-reranker.js')).default,
  rerank: async () => (await import('./rerank.js')).default,
  worker: async () => (await import('./worker.js')).default,
  'queue status': async () => (await import('./queue.js')).default,
};

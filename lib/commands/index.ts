/** The CLI's command table. Each entry loads its module lazily so start-up stays fast. */
import type { Command } from '../cli/command.js';

export const commands: Record<string, () => Promise<Command>> = {
  info: async () => (await import('./info.js')).default,
  demo: async () => (await import('./demo.js')).default,
  pipeline: async () => (await import('./pipeline.js')).default,
  'eval parse': async () => (await import('./eval-parse.js')).default,
  'eval chunks': async () => (await import('./eval-chunks.js')).default,
  'eval tags': async () => (await import('./eval-tags.js')).default,
};

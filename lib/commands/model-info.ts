/**
 * What a model file is: its kind and format version, and the summary its class's `info()`
 * gives (sizes, algorithm, options that shaped it). `structrank info --model M`.
 */
import { statSync } from 'node:fs';
import { loadModel } from '../io/model-file.js';

export interface ModelFileInfo {
  file: string;
  bytes: number;
  kind: string;
  kindVersion: number;
  /** The loaded model's `info()`; absent for kinds that are not models (feature tables, checkpoints). */
  info?: Record<string, unknown>;
}

/** Reads `file` (checksum verified) and describes it; a file that is no model file is a ModelFileError. */
export async function modelFileInfo(file: string): Promise<ModelFileInfo> {
  const { kind, kindVersion } = loadModel(file);
  const base = { file, bytes: statSync(file).size, kind, kindVersion };
  // Each kind's own loader, imported only when needed (a tagger's info need not load the parser).
  switch (kind) {
    case 'tagger': {
      const { Tagger } = await import('../tagger/tagger.js');
      return { ...base, info: { ...(await Tagger.load(file)).info() } };
    }
    case 'chart-parser': {
      const { ChartParserModel } = await import('../parser/chart-parser.js');
      return { ...base, info: { ...(await ChartParserModel.load(file)).info() } };
    }
    case 'reranker': {
      const { LinearReranker } = await import('../rerank/linear-reranker.js');
      return { ...base, info: { ...(await LinearReranker.load(file)).info() } };
    }
    case 'perceptron-reranker': {
      const { PerceptronReranker } = await import('../rerank/perceptron.js');
      return { ...base, info: { ...(await PerceptronReranker.load(file)).info() } };
    }
    default:
      return base;
  }
}

/** The description as `key: value` lines. */
export function formatModelFileInfo(m: ModelFileInfo): string {
  const lines = [`${m.file}: ${m.kind} ${m.info ? 'model' : 'file'} (format ${m.kindVersion}), ${m.bytes} bytes`];
  for (const [key, value] of Object.entries(m.info ?? {})) {
    if (key === 'kind') continue;
    const shown = Array.isArray(value)
      ? value.join(', ')
      : typeof value === 'object' && value !== null
        ? JSON.stringify(value)
        : String(value);
    lines.push(`  ${key}: ${shown}`);
  }
  return lines.join('\n');
}

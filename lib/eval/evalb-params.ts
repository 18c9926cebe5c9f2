/** Reads EVALB parameter files (.prm) such as COLLINS.prm. */
import { InputError } from '../errors.js';
import { readLinesSync } from '../io/lines.js';
import type { EvalbParams } from './evalb.js';

export interface EvalbParamFile {
  params: EvalbParams;
  /** CUTOFF_LEN when the file sets it. */
  cutoff?: number;
}

/**
 * Parses a .prm file as evalb.c does: comment lines start with '#', lines shorter than 3
 * characters are ignored, each other line is `KEY value`. Supported keys: DELETE_LABEL,
 * DELETE_LABEL_FOR_LENGTH, EQ_LABEL, EQ_WORD, LABELED, CUTOFF_LEN; DEBUG and MAX_ERROR are
 * accepted and ignored. Anything else (e.g. new.prm's QUOTE_LABEL) is refused.
 */
export function readEvalbParams(file: string): EvalbParamFile {
  const deleteLabels: string[] = [];
  const deleteLabelsForLength: string[] = [];
  const equalLabels: [string, string][] = [];
  const equalWords: [string, string][] = [];
  let labeled = true;
  let cutoff: number | undefined;
  for (const { text, number } of readLinesSync(file)) {
    const line = text.replace(/\s+$/, '');
    if (line.startsWith('#') || line.length < 3) continue;
    const m = /^(\S+)\s*(.*)$/.exec(line);
    if (!m) continue;
    const [, key, value] = m;
    const fail = (problem: string): never => {
      throw new InputError(file, number, problem);
    };
    const int = (): number => {
      const n = Number(value.trim());
      if (!Number.isInteger(n)) fail(`${key} needs an integer, got '${value}'`);
      return n;
    };
    const pair = (): [string, string] => {
      const parts = value.trim().split(/\s+/);
      if (parts.length !== 2) fail(`${key} requires two values`);
      return [parts[0], parts[1]];
    };
    if (value.trim() === '') fail(`empty value for ${key}`);
    switch (key) {
      case 'DELETE_LABEL':
        deleteLabels.push(value);
        break;
      case 'DELETE_LABEL_FOR_LENGTH':
        deleteLabelsForLength.push(value);
        break;
      case 'EQ_LABEL':
        equalLabels.push(pair());
        break;
      case 'EQ_WORD':
        equalWords.push(pair());
        break;
      case 'LABELED':
        labeled = int() !== 0;
        break;
      case 'CUTOFF_LEN':
        cutoff = int();
        break;
      case 'DEBUG':
      case 'MAX_ERROR':
        break;
      default:
        fail(`unsupported parameter '${key}'`);
    }
  }
  return { params: { deleteLabels, deleteLabelsForLength, equalLabels, equalWords, labeled }, cutoff };
}

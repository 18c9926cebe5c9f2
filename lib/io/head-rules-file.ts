/** Head-rule tables from files (the format: lib/trees/head-rules.ts). */
import { InputError } from '../errors.js';
import { headRulePreset, headTableFromJson, HEAD_RULE_PRESETS, type HeadTable } from '../trees/head-rules.js';
import { readTextFile } from './lines.js';

/** A preset name or a JSON file. */
export function loadHeadRules(nameOrFile: string): HeadTable {
  if (nameOrFile in HEAD_RULE_PRESETS) return headRulePreset(nameOrFile);
  const text = readTextFile(nameOrFile);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new InputError(nameOrFile, undefined, `head rules: not valid JSON: ${(err as Error).message}`);
  }
  return headTableFromJson(json, nameOrFile);
}

/**
 * Case and digits in native code come from a table generated from Unicode
 * (scripts/unicode-tables.mjs -> native/core/unicode_case.inc). On a Node with the same
 * Unicode version the table must be what the generator writes, and every cased letter and
 * digit must take its shape symbol through the addon.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { wordShape } from '../lib/rerank/word-forms.js';
import { repoRoot } from './helpers.js';

const table = readFileSync(join(repoRoot, 'native', 'core', 'unicode_case.inc'), 'utf8');
const version = /kUnicodeVersion\[\] = "([^"]+)"/.exec(table)?.[1];
const sameUnicode = version === process.versions.unicode;

describe('Unicode case table', () => {
  it(`was generated from a Unicode version (${version ?? 'none'}; this Node has ${process.versions.unicode})`, () => {
    expect(version).toMatch(/^\d+\.\d+/);
    if (!sameUnicode) console.log(`unicode-case: table from Unicode ${version}, Node has ${process.versions.unicode}: comparison skipped`);
  });

  it.skipIf(!sameUnicode)('is what scripts/unicode-tables.mjs writes for this Node', () => {
    const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'unicode-tables.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.skipIf(!sameUnicode)('gives every cased letter and decimal digit from U+0100 up its shape symbol', () => {
    const wrong: string[] = [];
    for (let cp = 0x100; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      const want = /[\p{Lu}\p{Lt}]/u.test(ch) ? 'X' : /\p{Ll}/u.test(ch) ? 'x' : /\p{Nd}/u.test(ch) ? 'd' : undefined;
      if (want !== undefined && wordShape(ch) !== want) wrong.push(`U+${cp.toString(16)}`);
    }
    expect(wrong).toEqual([]);
  });
});

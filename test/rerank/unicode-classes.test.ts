/**
 * Character classes in native code come from a table generated from Unicode
 * (scripts/unicode-tables.mjs -> native/core/unicode_classes.inc). On a Node with the same
 * Unicode version the table must be what the generator writes, and every code point from
 * U+0100 up must take its class's shape symbol through the addon.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { wordShape } from '../../lib/rerank/word-forms.js';
import { repoRoot } from '../helpers.js';

const table = readFileSync(join(repoRoot, 'native', 'core', 'unicode_classes.inc'), 'utf8');
const version = /kUnicodeVersion\[\] = "([^"]+)"/.exec(table)?.[1];
const sameUnicode = version === process.versions.unicode;

describe('Unicode class table', () => {
  it(`was generated from a Unicode version (${version ?? 'none'}; this Node has ${process.versions.unicode})`, () => {
    expect(version).toMatch(/^\d+\.\d+/);
    if (!sameUnicode)
      console.log(
        `unicode-classes: table from Unicode ${version}, Node has ${process.versions.unicode}: comparison skipped`,
      );
  });

  it.skipIf(!sameUnicode)('is what scripts/unicode-tables.mjs writes for this Node', () => {
    const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'unicode-tables.mjs'), '--check'], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.skipIf(!sameUnicode)('gives every code point from U+0100 up the shape symbol of its Unicode class', () => {
    const wrong: string[] = [];
    for (let cp = 0x100; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      const want = /[\p{Lu}\p{Lt}]/u.test(ch)
        ? 'X'
        : /\p{Ll}/u.test(ch)
          ? 'x'
          : /\p{Nd}/u.test(ch)
            ? 'd'
            : /\p{Z}/u.test(ch)
              ? '_'
              : /[\p{P}\p{S}\p{No}\p{Nl}\p{Cc}]/u.test(ch)
                ? ch // written as itself
                : 'L'; // letters without case, marks, format characters, unassigned
      if (wordShape(ch) !== want) wrong.push(`U+${cp.toString(16)}`);
    }
    expect(wrong.slice(0, 20)).toEqual([]);
  });
});

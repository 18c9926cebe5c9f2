/**
 * Expands a template set of plain column atoms (`word[-1]`, `pos[0]`, ...; the chunk
 * template is one) into attribute strings, the same attributes structrank's feature
 * extractor makes (native/tagger/features.cc): one attribute per template and token, with
 * one boundary value per atom offset before the sentence and one after it. CRFsuite reads
 * these pre-expanded files, so every tool learns over the same attribute set.
 */
import { writeFileSync } from 'node:fs';
import type { TemplateSet } from '../../lib/tagger/templates.js';
import type { TokenRows } from '../../lib/tagger/tagger.js';

interface Atom {
  column: number;
  offset: number;
}

function parseTemplates(templates: TemplateSet, columns: string[]): Atom[][] {
  return templates.map((t) =>
    t.map((atom) => {
      const m = /^(\w+)\[(-?\d+)\]$/.exec(atom) ?? /^(\w+)$/.exec(atom);
      const column = m ? columns.indexOf(m[1]) : -1;
      if (!m || column < 0)
        throw new Error(`bench/peers/features: only plain column atoms are supported, not '${atom}'`);
      return { column, offset: m[2] === undefined ? 0 : Number(m[2]) };
    }),
  );
}

/** Attribute strings of every token of a sentence. */
function attributes(sentence: TokenRows, atoms: Atom[][]): string[][] {
  const n = sentence.length;
  return sentence.map((_, i) =>
    atoms.map((t, k) => {
      const values = t.map(({ column, offset }) => {
        const j = i + offset;
        if (j < 0) return `__B${offset}__`;
        if (j >= n) return `__E${offset}__`;
        return sentence[j][column];
      });
      return `${k}=${values.join('|')}`;
    }),
  );
}

/** Writes CRFsuite's attribute-file format: `label<TAB>attr<TAB>...`, a blank line between sentences. */
export function writeAttributeFiles(
  sentences: TokenRows[],
  templates: TemplateSet,
  columns: string[],
  labelIndex: number,
  file: string,
): { attributes: number; tokens: number } {
  const atoms = parseTemplates(templates, columns);
  const crf: string[] = [];
  const seen = new Set<string>();
  let tokens = 0;
  for (const s of sentences) {
    const attrs = attributes(s, atoms);
    s.forEach((row, i) => {
      const label = row[labelIndex];
      // CRFsuite reads `name:value`, so ':' and '\\' in a name are escaped.
      crf.push(`${label}\t${attrs[i].map((a) => a.replace(/\\/g, '\\\\').replace(/:/g, '\\:')).join('\t')}`);
      for (const a of attrs[i]) seen.add(a);
      tokens++;
    });
    crf.push('');
  }
  writeFileSync(file, crf.join('\n') + '\n');
  return { attributes: seen.size, tokens };
}

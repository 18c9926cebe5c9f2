import { afterAll, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { writeAttributeFiles } from '../../bench/peers/features.js';
import { readConllSync } from '../../lib/io/conll.js';
import { Tagger } from '../../lib/tagger/tagger.js';
import { DEFAULT_TEMPLATES } from '../../lib/tagger/templates.js';
import { dataFile, describeWithData, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describeWithData(['conll2000'], 'bench peers: the attribute files CRFsuite reads', () => {
  it('hold the same attributes as structrank extracts from the chunk template', async () => {
    const sentences = readConllSync(dataFile('conll2000', 'train.txt'))
      .slice(0, 300)
      .map((s) => s.rows);
    const file = tmp.file('train.crfsuite');
    const written = writeAttributeFiles(sentences, DEFAULT_TEMPLATES.chunk, ['word', 'pos', 'chunk'], 2, file);
    const tagger = await Tagger.train(sentences, {
      algo: 'perceptron',
      columns: ['word', 'pos', 'chunk'],
      label: 'chunk',
      templates: 'chunk',
      epochs: 1,
      threads: 1,
    });
    expect(written.attributes).toBe(tagger.info().attributes);
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    expect(lines.length).toBe(written.tokens);
    // label, then one attribute per template; boundary values before and after the sentence.
    const first = lines[0].split('\t');
    expect(first.length).toBe(1 + DEFAULT_TEMPLATES.chunk.length);
    expect(first[0]).toBe(sentences[0][0][2]);
    expect(first).toContain('0=__B-2__');
  });
});

import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AbortError } from '../../lib/errors.js';
import { readConllSync } from '../../lib/io/conll.js';
import { readConlluSync } from '../../lib/io/conllu.js';
import { Tagger } from '../../lib/tagger/tagger.js';
import {
  chooseDefaultTemplate,
  compileTemplates,
  DEFAULT_TEMPLATES,
  defaultTemplateSet,
  EDGE_TEMPLATE_MAX_LABELS,
  ORDER2_MAX_LABELS,
} from '../../lib/tagger/templates.js';
import { clusterWords, formatClusters } from '../../lib/tagger/word-clusters.js';
import { dataFile } from '../helpers.js';

const labelsOf = (rows: string[][][], column: number): string[] => rows.flatMap((s) => s.map((r) => r[column]));

describe('the default template adapts to the label set', () => {
  it('entities, chunks and parts of speech on small hand-made files', () => {
    // Entities: most tokens are O.
    const ner = ['B-PER', 'I-PER', 'O', 'O', 'O', 'B-LOC', 'O', 'O', 'O', 'O'];
    expect(chooseDefaultTemplate(ner, ['word', 'pos'])).toMatchObject({ name: 'ner', order: 2 });
    // Many entity labels (OntoNotes-style): order 2 would cost L^3 per token, so order 1.
    const types = Array.from({ length: 10 }, (_, i) => `T${i}`);
    const manyTypes = [...types.flatMap((t) => [`B-${t}`, `I-${t}`]), ...Array.from({ length: 30 }, () => 'O')];
    expect(new Set(manyTypes).size).toBe(ORDER2_MAX_LABELS + 1);
    expect(chooseDefaultTemplate(manyTypes, ['word'])).toMatchObject({ name: 'ner', order: 1 });
    expect(chooseDefaultTemplate(manyTypes, ['word']).reason).toMatch(
      /label order 1, as order 2 costs L\^3 per token above 20 labels \(21 here\)/,
    );
    expect(
      chooseDefaultTemplate(
        manyTypes.filter((l) => l !== 'I-T9'),
        ['word'],
      ),
    ).toMatchObject({ order: 2 });
    // Chunks: most tokens are inside a chunk.
    const chunk = ['B-NP', 'I-NP', 'B-VP', 'B-NP', 'I-NP', 'O', 'B-PP', 'B-NP'];
    expect(chooseDefaultTemplate(chunk, ['word', 'pos'])).toMatchObject({ name: 'chunk', order: 1 });
    // Chunks without a POS column: the chunk set would have words only; ner's word-form features serve better.
    expect(chooseDefaultTemplate(chunk, ['word'])).toMatchObject({ name: 'ner' });
    // Parts of speech: not chunk tags.
    expect(chooseDefaultTemplate(['DET', 'NOUN', 'VERB', 'O'], ['word'])).toMatchObject({ name: 'pos' });
    expect(chooseDefaultTemplate(['DT', 'NN', 'VBZ', 'B-X'], ['word'])).toMatchObject({ name: 'pos' });
  });

  it('default sets use every input column the user gives, not only word and pos', async () => {
    // XPOS decided by the UPOS column alone (the words are shared by both): a default set that
    // ignored upos could not tell the tags apart.
    const words = ['run', 'walk', 'set', 'cut', 'fly'];
    const sentences = Array.from({ length: 60 }, (_, k) =>
      Array.from({ length: 6 }, (_, i) => {
        const upos = (k * 7 + i * 3) % 5 < 2 ? 'NOUN' : 'VERB';
        return [words[(k + i) % 5], upos, upos === 'NOUN' ? 'NN' : 'VB'];
      }),
    );
    const tagger = await Tagger.train(sentences, {
      algo: 'perceptron',
      columns: ['word', 'upos', 'xpos'],
      label: 'xpos',
      epochs: 3,
      threads: 1,
    });
    expect(tagger.meta.templates).toContainEqual(['upos[0]']);
    expect(tagger.meta.templates).toContainEqual(['upos[-1]', 'upos[0]']);
    const rows = sentences.slice(0, 10).map((s) => s.map((r) => [r[0], r[1]]));
    const tags = await tagger.tag(rows);
    expect(tags).toEqual(sentences.slice(0, 10).map((s) => s.map((r) => r[2])));
    // A named or explicit set is used as given.
    const explicit = await Tagger.train(sentences, {
      algo: 'perceptron',
      columns: ['word', 'upos', 'xpos'],
      label: 'xpos',
      templates: [['word[0]']],
      epochs: 1,
      threads: 1,
    });
    expect(explicit.meta.templates).toEqual([['word[0]']]);
  });

  it('leaves out the edge templates (L^2 per token) for more than EDGE_TEMPLATE_MAX_LABELS labels', async () => {
    const edge = (set: readonly (readonly string[])[]): number => set.filter((t) => t.includes('prevtag')).length;
    expect(edge(DEFAULT_TEMPLATES.pos)).toBeGreaterThan(0);
    expect(edge(defaultTemplateSet(DEFAULT_TEMPLATES.pos, ['word'], EDGE_TEMPLATE_MAX_LABELS))).toBe(
      edge(DEFAULT_TEMPLATES.pos),
    );
    const large = defaultTemplateSet(DEFAULT_TEMPLATES.pos, ['word', 'upos'], EDGE_TEMPLATE_MAX_LABELS + 1);
    expect(edge(large)).toBe(0);
    expect(large.length).toBe(DEFAULT_TEMPLATES.pos.length - edge(DEFAULT_TEMPLATES.pos) + 5);
    const many = Array.from({ length: EDGE_TEMPLATE_MAX_LABELS + 1 }, (_, i) => `T${i}`);
    expect(chooseDefaultTemplate(many, ['word']).reason).toMatch(
      /65 labels, not chunk tags; no previous-label edge templates above 64 labels/,
    );
    expect(chooseDefaultTemplate(many.slice(1), ['word']).reason).not.toMatch(/edge/);
    // Tagger.train applies it to the default set and keeps what it dropped out of the model.
    const sentences = Array.from({ length: 20 }, (_, k) => many.map((tag, i) => [`w${(i + k) % many.length}`, tag]));
    const tagger = await Tagger.train(sentences, {
      algo: 'perceptron',
      columns: ['word', 'tag'],
      label: 'tag',
      epochs: 1,
      threads: 1,
    });
    expect(tagger.meta.templateChoice?.name).toBe('pos');
    expect(edge(tagger.meta.templates)).toBe(0);
    const explicit = await Tagger.train(sentences, {
      algo: 'perceptron',
      columns: ['word', 'tag'],
      label: 'tag',
      templates: [['word[0]', 'prevtag']],
      epochs: 1,
      threads: 1,
    });
    expect(edge(explicit.meta.templates)).toBe(1);
  });

  it('Tagger.train without templates records the choice and uses that set', async () => {
    const sentences = [
      [
        ['Juan', 'NP', 'B-PER'],
        ['vive', 'VMI', 'O'],
        ['en', 'SPS', 'O'],
        ['Madrid', 'NP', 'B-LOC'],
        ['.', 'Fp', 'O'],
      ],
      [
        ['La', 'DA', 'O'],
        ['casa', 'NC', 'O'],
        ['de', 'SPS', 'O'],
        ['Ana', 'NP', 'B-PER'],
        ['Pérez', 'NP', 'I-PER'],
      ],
    ];
    const tagger = await Tagger.train(sentences, {
      algo: 'perceptron',
      columns: ['word', 'pos', 'ne'],
      label: 'ne',
      epochs: 2,
      threads: 1,
    });
    expect(tagger.meta.templateChoice?.name).toBe('ner');
    expect(tagger.meta.order).toBe(2);
    const expected = compileTemplates(DEFAULT_TEMPLATES.ner, ['word', 'pos'], { dropMissing: true }).templates;
    expect(tagger.meta.templates).toEqual(expected);
    const explicit = await Tagger.train(sentences, {
      algo: 'perceptron',
      columns: ['word', 'pos', 'ne'],
      label: 'ne',
      templates: 'chunk',
      epochs: 2,
      threads: 1,
    });
    expect(explicit.meta.templateChoice).toBeUndefined();
    expect(explicit.meta.order).toBe(1);
  });

  const esp = dataFile('conll2002-esp', 'esp.testa');
  it.skipIf(!existsSync(esp))('on an entity file (CoNLL-2002 Spanish): ner', () => {
    const rows = readConllSync(esp, { separator: 'whitespace', columns: 3 }).map((s) => s.rows);
    expect(chooseDefaultTemplate(labelsOf(rows, 2), ['word', 'pos']).name).toBe('ner');
  });

  const conll2000 = dataFile('conll2000', 'test.txt');
  it.skipIf(!existsSync(conll2000))('on a chunk file (CoNLL-2000): chunk', () => {
    const rows = readConllSync(conll2000, { separator: 'whitespace', columns: 3 }).map((s) => s.rows);
    expect(chooseDefaultTemplate(labelsOf(rows, 2), ['word', 'pos']).name).toBe('chunk');
  });

  const ewt = dataFile('ud-ewt', 'en_ewt-ud-dev.conllu');
  it.skipIf(!existsSync(ewt))('on a POS file (UD EWT): pos', () => {
    const labels = readConlluSync(ewt).flatMap((s) => s.tokens.map((t) => t.upos));
    expect(chooseDefaultTemplate(labels, ['word']).name).toBe('pos');
  });
});

describe('word clusters from text', () => {
  // Two kinds of word in the same contexts: animals after "the", verbs before "."
  const animals = ['cat', 'dog', 'cow', 'fox', 'owl', 'bee'];
  const verbs = ['runs', 'sleeps', 'eats', 'sings', 'jumps', 'waits'];
  const text: string[][] = [];
  for (let i = 0; i < 300; i++) {
    text.push(['the', animals[(i * 7) % 6], verbs[(i * 5) % 6], '.']);
    text.push(['a', animals[(i * 11) % 6], 'never', verbs[(i * 13) % 6], '.']);
  }

  it('puts words of the same distribution together, with prefix-consistent bit strings', async () => {
    const c = await clusterWords(text, { classes: 6 });
    const bits = new Map(c.words.map((w, i) => [w, c.clusters[i]]));
    expect(c.words).toHaveLength(6 + 6 + 4);
    // All animals share a cluster, all verbs share another.
    expect(new Set(animals.map((w) => bits.get(w))).size).toBe(1);
    expect(new Set(verbs.map((w) => bits.get(w))).size).toBe(1);
    expect(bits.get('cat')).not.toBe(bits.get('runs'));
    for (const b of c.clusters) expect(b).toMatch(/^[01]+$/);
    // Deterministic, and in the tagger's cluster-file form.
    expect(await clusterWords(text, { classes: 6 })).toEqual(c);
    expect(formatClusters(c).split('\n')[0]).toMatch(/^\S+\t[01]+$/);
  });

  it('handles empty input and fewer words than classes', async () => {
    expect(await clusterWords([])).toEqual({ words: [], clusters: [] });
    const c = await clusterWords([['x', 'y']], { classes: 128 });
    expect(c.words).toEqual(['x', 'y']);
    expect(new Set(c.clusters).size).toBe(2);
  });

  it('stops on an abort fired while it works: the event loop runs between its steps', async () => {
    // 4,000 distinct words: exchange passes of about a second, far beyond the 100 ms between yields.
    const big: string[][] = [];
    for (let i = 0; i < 4000; i++) big.push(Array.from({ length: 10 }, (_, j) => `w${(i * 7 + j * 13) % 4000}`));
    const controller = new AbortController();
    const passes: number[] = [];
    const run = clusterWords(big, {
      classes: 128,
      signal: controller.signal,
      onProgress: (p) => {
        // A timer only fires when the event loop runs: a clustering that never yields finishes first.
        if (passes.length === 0) setImmediate(() => controller.abort());
        passes.push(p.pass);
      },
    });
    await expect(run).rejects.toThrow(AbortError);
    expect(Math.max(...passes)).toBeLessThan(6);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChartParserModel } from '../../lib/parser/chart-parser.js';
import { treeWords } from '../../lib/parser/input.js';
import { readTreesSync } from '../../lib/io/treebank.js';
import { MAX_NBEST } from '../../lib/io/nbest.js';
import { Tagger } from '../../lib/tagger/tagger.js';
import { repoRoot, runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const gum = (name: string): string => join(repoRoot, 'data', 'gum-open', name);
let parser: ChartParserModel;
let model: string;
let tagModel: string;
const rows = readTreesSync(gum('dev.mrg'))
  .slice(0, 30)
  .map((t) => treeWords(t).map((w) => [w, 'X', w.length > 3 ? 'B-NP' : 'O']));

beforeAll(async () => {
  parser = await ChartParserModel.train(readTreesSync(gum('train.mrg')).slice(0, 800), { threads: 2 });
  model = tmp.file('p.model');
  parser.save(model);
  const tagger = await Tagger.train(rows, {
    algo: 'perceptron',
    columns: ['word', 'pos', 'chunk'],
    label: 'chunk',
    epochs: 1,
  });
  tagModel = tmp.file('t.model');
  tagger.save(tagModel);
}, 120_000);

describe('k-best lists are bounded', () => {
  it(`--nbest above ${MAX_NBEST} is refused by tag and parse before any work`, () => {
    const input = tmp.file('in.mrg', readFileSync(gum('dev.mrg'), 'utf8').split('\n').slice(0, 3).join('\n') + '\n');
    const p = runCli([
      'parse',
      '--model',
      model,
      '--input',
      input,
      '--out',
      tmp.file('o.mrg'),
      '--nbest',
      '1000000',
      '--out-nbest',
      tmp.file('o.jsonl'),
    ]);
    expect(p.status).toBe(2);
    expect(p.stderr).toMatch(/parse: --nbest is at most 1000, not 1000000/);
    const conll = tmp.file(
      'in.conll',
      rows
        .slice(0, 3)
        .map((s) => s.map((r) => r.join(' ')).join('\n'))
        .join('\n\n') + '\n',
    );
    const t = runCli([
      'tag',
      '--model',
      tagModel,
      '--input',
      conll,
      '--nbest',
      '1000000',
      '--out-nbest',
      tmp.file('t.jsonl'),
    ]);
    expect(t.status).toBe(2);
    expect(t.stderr).toMatch(/tag: --nbest is at most 1000, not 1000000/);
  });

  it('the API refuses k above the bound too', async () => {
    await expect(parser.parseNbest([['a', 'b']], MAX_NBEST + 1)).rejects.toThrow(/k is at most 1000/);
    const tagger = await Tagger.load(tagModel);
    expect(() => tagger.tagNbestSync(rows.slice(0, 1), MAX_NBEST + 1)).toThrow(/k is at most 1000/);
    await expect(tagger.tagNbest(rows.slice(0, 1), MAX_NBEST + 1)).rejects.toThrow(/k is at most 1000/);
    expect((await tagger.tagNbest(rows.slice(0, 1), MAX_NBEST))[0].length).toBeGreaterThan(1);
  });
});

describe('k-best extraction is cancellable', () => {
  it('an AbortSignal stops the k-best extraction of a long sentence in the middle', async () => {
    // The longest dev sentences: their 1000-best lists take the parser well over the abort delay.
    const long = readTreesSync(gum('dev.mrg'))
      .map((t) => treeWords(t))
      .sort((a, b) => b.length - a.length)
      .slice(0, 1);
    const started = Date.now();
    const full = await parser.parseNbest(long, MAX_NBEST, { threads: 1 });
    const fullMs = Date.now() - started;
    expect(full[0].candidates.length).toBeGreaterThan(100);
    const controller = new AbortController();
    const job = parser.parseNbest(long, MAX_NBEST, { threads: 1, signal: controller.signal });
    // Abort early in the first sentence. Without polling inside the extraction the job runs
    // to the end of the sentence before it notices; compared with the same run's full time.
    const t0 = Date.now();
    setTimeout(() => controller.abort(), Math.max(5, fullMs / 20));
    await expect(job).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - t0).toBeLessThan(fullMs / 2);
  });
});

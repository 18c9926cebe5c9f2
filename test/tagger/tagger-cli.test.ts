import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readNbestSync } from '../../lib/io/nbest.js';
import { dataFile, describeWithData, hasData, itWithData, repoRoot, runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const blocks = (name: string, limit: number): string =>
  hasData('conll2000')
    ? readFileSync(dataFile('conll2000', name), 'utf8').split('\n\n').slice(0, limit).join('\n\n')
    : '';
const trainText = blocks('train.txt', 800) + '\n\n';
const testText = blocks('test.txt', 100) + '\n';

describeWithData(['conll2000'], 'train-tagger and tag commands', () => {
  let train: string;
  let test: string;
  let model: string;
  beforeAll(() => {
    train = tmp.file('train.txt', trainText);
    test = tmp.file('test.txt', testText);
    model = tmp.file('chunk.model');
  });

  it('trains with per-epoch dev scores and tags with an appended column and n-best JSON Lines', () => {
    const r = runCli([
      'train-tagger',
      '--algo',
      'perceptron',
      '--train',
      train,
      '--dev',
      test,
      '--columns',
      'word,pos,chunk',
      '--label',
      'chunk',
      '--epochs',
      '3',
      '--model',
      model,
      '--threads',
      '2',
    ]);
    expect(r.stderr).toMatch(/3\/3 .*dev F1 \d+\.\d\d/);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/perceptron order 1, \d+ labels/);
    const out = tmp.file('out.txt');
    const nb = tmp.file('nbest.jsonl');
    const t = runCli(['tag', '--model', model, '--input', test, '--out', out, '--nbest', '3', '--out-nbest', nb]);
    expect(t.stderr).toBe('');
    expect(t.status).toBe(0);
    const inLines = testText.split('\n');
    const outLines = readFileSync(out, 'utf8').split('\n');
    expect(outLines.length).toBe(inLines.length);
    let right = 0;
    let tokens = 0;
    inLines.forEach((line, i) => {
      if (line === '') return expect(outLines[i]).toBe('');
      const fields = outLines[i].split(' ');
      expect(fields.slice(0, 3).join(' ')).toBe(line);
      expect(fields.length).toBe(4);
      tokens++;
      if (fields[2] === fields[3]) right++;
    });
    expect(right / tokens).toBeGreaterThan(0.85);
    const records = readNbestSync(nb);
    expect(records.length).toBe(100);
    expect(records[0].id).toBe('s1');
    expect(records[0].tokens[0]).toBe('Rockwell');
    expect(records[0].candidates.length).toBe(3);
    expect(records[0].gold?.length).toBe(records[0].tokens.length);
    const firstSentence = outLines.slice(0, records[0].tokens.length).map((l) => l.split(' ')[3]);
    expect(records[0].candidates[0].tags).toEqual(firstSentence);
    // The output scores directly with conlleval semantics (eval chunks).
    const ev = runCli(['eval', 'chunks', '--file', out]);
    expect(ev.status).toBe(0);
    expect(ev.stdout).toMatch(/FB1:\s+\d+\.\d\d/);
  });

  it('streams: a file read in blocks, stdin and in-memory tagging give identical labels across batch boundaries', async () => {
    // 1,200 sentences: more than one tagging batch (500), with a document marker in the middle.
    const blocks = readFileSync(dataFile('conll2000', 'test.txt'), 'utf8')
      .split('\n\n')
      .filter((b) => b.trim() !== '')
      .slice(0, 1200);
    const text = [...blocks.slice(0, 700), '-DOCSTART- -X- O', ...blocks.slice(700)].join('\n\n') + '\n';
    const big = tmp.file('big.txt', text);
    const fromFile = runCli(['tag', '--model', model, '--input', big, '--threads', '1']);
    expect(fromFile.stderr).toBe('');
    expect(fromFile.status).toBe(0);
    // Through a shell pipe (a pipe, not a file: the streaming reader).
    const cli = join(repoRoot, 'dist', 'cli.js');
    const fromPipe = spawnSync(
      'sh',
      ['-c', `cat "${big}" | "${process.execPath}" "${cli}" tag --model "${model}" --input /dev/stdin --threads 2`],
      { encoding: 'utf8', maxBuffer: 1 << 28 },
    );
    expect(fromPipe.stderr).toBe('');
    expect(fromPipe.stdout).toBe(fromFile.stdout);
    const { Tagger } = await import('../../lib/tagger/tagger.js');
    const tagger = await Tagger.load(model);
    const rows = blocks.map((b) => b.split('\n').map((l) => l.split(' ')));
    const expected = (await tagger.tag(rows, { threads: 1 })).flat();
    const got = fromFile.stdout
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.startsWith('-DOCSTART-'))
      .map((l) => l.split(' ').pop());
    expect(got).toEqual(expected);
    expect(fromFile.stdout.split('\n').length).toBe(text.split('\n').length);
  });

  it('reports bad input files and bad options clearly', () => {
    const bad = tmp.file('bad.txt', 'He PRP B-NP\nsaid VBD\n\n');
    let r = runCli([
      'train-tagger',
      '--algo',
      'crf',
      '--train',
      bad,
      '--columns',
      'word,pos,chunk',
      '--label',
      'chunk',
      '--model',
      tmp.file('x.model'),
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/bad\.txt:2: expected 3 columns, found 2/);
    r = runCli([
      'train-tagger',
      '--algo',
      'svm',
      '--train',
      bad,
      '--columns',
      'word,pos,chunk',
      '--label',
      'chunk',
      '--model',
      'x',
    ]);
    expect(r.status).toBe(2);
    const tmpl = tmp.file('t.json', '{"templates": [["word[0]"], ["suffix9x(word)"]]}');
    r = runCli([
      'train-tagger',
      '--algo',
      'crf',
      '--train',
      train,
      '--columns',
      'word,pos,chunk',
      '--label',
      'chunk',
      '--template',
      tmpl,
      '--model',
      tmp.file('y.model'),
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/t\.json: bad template atom 'suffix9x\(word\)'/);
    const noColumn = tmp.file('ner.json', '{"templates": [["word[0]"], ["ner[0]"]]}');
    r = runCli([
      'train-tagger',
      '--algo',
      'crf',
      '--train',
      train,
      '--columns',
      'word,pos,chunk',
      '--label',
      'chunk',
      '--template',
      noColumn,
      '--model',
      tmp.file('y.model'),
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /ner\.json: template \["ner\[0\]"\] names column 'ner', not among the input columns \[word, pos\]/,
    );
    const noClusters = tmp.file('cl.json', '{"templates": [["cluster4(word)"]]}');
    r = runCli([
      'train-tagger',
      '--algo',
      'crf',
      '--train',
      train,
      '--columns',
      'word,pos,chunk',
      '--label',
      'chunk',
      '--template',
      noClusters,
      '--model',
      tmp.file('y.model'),
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cl\.json: .*uses clusters but no cluster file was given/);
    const notModel = tmp.file('not.model', 'hello');
    r = runCli(['tag', '--model', notModel, '--input', test]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/not\.model: not a structrank model file/);
    const oneCol = tmp.file('one.txt', 'Hello\nworld\n');
    r = runCli(['tag', '--model', model, '--input', oneCol]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/one\.txt:1: expected 2 columns \(word, pos\) or 3/);
  });

  itWithData(['ud-ewt'], 'trains on CoNLL-U files (comments, multiword ranges skipped; fields by name)', () => {
    const blocks = readFileSync(dataFile('ud-ewt', 'en_ewt-ud-train.conllu'), 'utf8').split('\n\n');
    const train = tmp.file('ewt-train.conllu', blocks.slice(0, 400).join('\n\n') + '\n\n');
    const dev = tmp.file('ewt-dev.conllu', blocks.slice(400, 480).join('\n\n') + '\n\n');
    expect(readFileSync(train, 'utf8')).toMatch(/^# sent_id/m);
    const m = tmp.file('upos.model');
    let r = runCli([
      'train-tagger',
      '--algo',
      'perceptron',
      '--train',
      train,
      '--dev',
      dev,
      '--columns',
      'word,upos',
      '--label',
      'upos',
      '--epochs',
      '2',
      '--model',
      m,
      '--threads',
      '2',
    ]);
    expect(r.stderr).toMatch(/2\/2 .*dev acc \d+\.\d\d/);
    expect(r.status).toBe(0);
    r = runCli([
      'train-tagger',
      '--algo',
      'perceptron',
      '--train',
      train,
      '--columns',
      'word,upos',
      '--label',
      'upos',
      '--format',
      'conll',
      '--model',
      m,
    ]);
    expect(r.status).toBe(1);
    r = runCli([
      'train-tagger',
      '--algo',
      'perceptron',
      '--train',
      train,
      '--columns',
      'word,pos',
      '--label',
      'pos',
      '--model',
      m,
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/CoNLL-U input, --columns names fields among word .* got 'pos'/);
  });
});

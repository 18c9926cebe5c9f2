import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readConllSync } from '../../lib/io/conll.js';
import { InputError, UsageError } from '../../lib/errors.js';
import { Tagger, type TaggerTrainOptions } from '../../lib/tagger/tagger.js';
import { readTrainingColumns } from '../../lib/tagger/training-columns.js';
import { chooseDefaultTemplate } from '../../lib/tagger/templates.js';
import { runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const columns = ['word', 'pos', 'chunk'];
// Everything the JS reader accepts: a byte-order mark, CRLF, runs of spaces and tabs, a
// no-break space (JavaScript's \s) inside and around fields, -DOCSTART- lines, several blank
// lines, whitespace-only lines, non-ASCII words and a last line without its newline.
const tricky = Buffer.concat([
  Buffer.from([0xef, 0xbb, 0xbf]),
  Buffer.from(
    '-DOCSTART- -X- O\r\n\r\n' +
      'He PRP B-NP\r\nreckons  VBZ\tB-VP\r\nthe DT B-NP\r\ncurrent JJ I-NP\r\n\u00a0deficit\u00a0NN I-NP \r\n. . O\r\n' +
      '\n \t\n\n' +
      'Ça PRP B-NP\nva VBZ B-VP\n. . O\n' +
      '-DOCSTART- -X- O\n' +
      'Zürich NNP B-NP\nwächst VBZ B-VP\n\n\n' +
      'It PRP B-NP\nrose VBD B-VP\nsharply RB B-ADVP\n. . O',
    'utf8',
  ),
]);

describe('readTrainingColumns: a training file read natively', () => {
  const options: TaggerTrainOptions = { algo: 'crf', columns, label: 'chunk', epochs: 3, threads: 1 };

  it('trains the same model as the rows the JS reader gives, on every quirk of the format', async () => {
    const file = tmp.file('tricky.txt', tricky);
    const fromFile = await readTrainingColumns(file, { columns, label: 'chunk' });
    const rows = readConllSync(file, { columns: 3 }).map((s) => s.rows);
    expect(fromFile.sentences).toBe(rows.length);
    expect(fromFile.tokens).toBe(rows.flat().length);
    expect(Object.fromEntries(fromFile.labelCounts)).toEqual(
      rows.flat().reduce<Record<string, number>>((m, r) => ((m[r[2]] = (m[r[2]] ?? 0) + 1), m), {}),
    );
    const a = await Tagger.train(rows, options);
    const b = await Tagger.train(fromFile, options);
    expect(b.meta).toEqual(a.meta);
    expect(b.info()).toEqual(a.info());
    a.save(tmp.file('a.model'));
    b.save(tmp.file('b.model'));
    expect(readFileSync(tmp.file('b.model')).equals(readFileSync(tmp.file('a.model')))).toBe(true);
  });

  it('reads tab-separated files keeping spaces inside fields, as the JS reader does', async () => {
    const file = tmp.file('tabs.txt', 'New York\tNNP\tB-NP\nis\tVBZ\tB-VP\n\nit\tPRP\tB-NP\n');
    const fromFile = await readTrainingColumns(file, { columns, label: 'chunk', separator: 'tab' });
    expect(Buffer.from(fromFile.text).toString()).toBe('New York\tNNP\nis\tVBZ\n\nit\tPRP\n\n');
    expect(Buffer.from(fromFile.labels).toString()).toBe('B-NP\nB-VP\n\nB-NP\n\n');
  });

  it('names the file and line of bad input, as the JS reader does', async () => {
    const wide = tmp.file('wide.txt', 'a DT B-NP\n\nb NN I-NP extra\n');
    await expect(readTrainingColumns(wide, { columns, label: 'chunk' })).rejects.toThrow(InputError);
    await expect(readTrainingColumns(wide, { columns, label: 'chunk' })).rejects.toThrow(
      `${wide}:3: expected 3 columns, found 4`,
    );
    expect(() => readConllSync(wide, { columns: 3 })).toThrow(`${wide}:3: expected 3 columns, found 4`);
    const badUtf8 = tmp.file(
      'bad-utf8.txt',
      Buffer.concat([Buffer.from('a DT B-NP\nb '), Buffer.from([0xff]), Buffer.from(' NN O\n')]),
    );
    await expect(readTrainingColumns(badUtf8, { columns, label: 'chunk' })).rejects.toThrow(
      `${badUtf8}:2: invalid UTF-8`,
    );
    const empty = tmp.file('empty.txt', '');
    await expect(readTrainingColumns(empty, { columns, label: 'chunk' })).rejects.toThrow(`${empty}: empty file`);
    await expect(readTrainingColumns(tmp.file('missing-dir/none.txt'), { columns, label: 'chunk' })).rejects.toThrow(
      /none\.txt/,
    );
    await expect(readTrainingColumns(wide, { columns, label: 'ner' })).rejects.toThrow(UsageError);
  });

  it('Tagger.train refuses a file read with other columns than its options name', async () => {
    const file = tmp.file('two.txt', 'a DT B-NP\nb NN I-NP\n');
    const read = await readTrainingColumns(file, { columns, label: 'chunk' });
    await expect(Tagger.train(read, { ...options, label: 'pos' })).rejects.toThrow(
      /was read with columns \[word, pos, chunk\] and label 'chunk'/,
    );
  });

  it('train-tagger reads its CoNLL file natively: the template choice and the model of the rows', async () => {
    const file = tmp.file('cli.txt', tricky);
    const r = runCli([
      'train-tagger',
      '--algo',
      'crf',
      '--train',
      file,
      '--columns',
      columns.join(','),
      '--label',
      'chunk',
      '--epochs',
      '3',
      '--threads',
      '1',
      '--model',
      tmp.file('cli.model'),
    ]);
    expect(r.status, r.stderr).toBe(0);
    const rows = readConllSync(file, { columns: 3 }).map((s) => s.rows);
    const choice = chooseDefaultTemplate(
      rows.flat().map((row) => row[2]),
      ['word', 'pos'],
    );
    expect(r.stdout).toContain(`templates '${choice.name}', order ${choice.order} (${choice.reason})`);
    const api = await Tagger.train(rows, options);
    const cli = await Tagger.load(tmp.file('cli.model'));
    expect(cli.info()).toEqual(api.info());
    const sentences = rows.map((s) => s.map((row) => row.slice(0, 2)));
    expect(await cli.tagNbest(sentences, 3, { threads: 1 })).toEqual(await api.tagNbest(sentences, 3, { threads: 1 }));
  });
});

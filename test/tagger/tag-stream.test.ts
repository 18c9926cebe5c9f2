/**
 * The streaming `tag` path (lib/tagger/tag-stream.ts: blocks of lines split, tagged and
 * written in native code) writes the same bytes as the in-memory path (the per-line reader
 * and Tagger.tagSentences, which `tag --nbest` still uses), whatever the block size, and
 * reports bad lines with the same file line numbers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { Tagger } from '../../lib/tagger/tagger.js';
import { tagStream } from '../../lib/tagger/tag-stream.js';
import { plainTagOptions } from '../../lib/cli/fast-tag.js';
import { runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** A small deterministic chunking corpus: word, POS, chunk. */
function corpus(sentences: number, seed: number): string[][][] {
  const words = [
    'the',
    'cat',
    'sat',
    'on',
    'mat',
    'A',
    'dog',
    'ran',
    'to',
    'Paris',
    'quickly',
    'big',
    '3',
    'ü-ber',
    'naïve',
  ];
  const pos = ['DT', 'NN', 'VBD', 'IN', 'NN', 'DT', 'NN', 'VBD', 'TO', 'NNP', 'RB', 'JJ', 'CD', 'NN', 'JJ'];
  let x = seed;
  const next = (): number => (x = (x * 1103515245 + 12345) % 2147483648);
  const out: string[][][] = [];
  for (let s = 0; s < sentences; s++) {
    const n = 2 + (next() % 9);
    const rows: string[][] = [];
    let prev = 'O';
    for (let i = 0; i < n; i++) {
      const k = next() % words.length;
      const p = pos[k];
      const inside = p === 'NN' || p === 'NNP' || p === 'JJ' || p === 'DT' || p === 'CD';
      const chunk = inside ? (prev.endsWith('NP') && p !== 'DT' ? 'I-NP' : 'B-NP') : p.startsWith('VB') ? 'B-VP' : 'O';
      rows.push([words[k], p, chunk]);
      prev = chunk;
    }
    out.push(rows);
  }
  return out;
}

let model: string;
let tagger: Tagger;

beforeAll(async () => {
  tagger = await Tagger.train(corpus(120, 7), {
    algo: 'crf',
    columns: ['word', 'pos', 'chunk'],
    label: 'chunk',
    templates: 'chunk',
    epochs: 15,
    threads: 1,
  });
  model = tmp.file('m.model');
  tagger.save(model);
});

/** The in-memory path's output: `tag --nbest 1` reads lines in JS and tags with tagSentences. */
function inMemory(input: string, separator = 'whitespace'): { status: number; text: string; stderr: string } {
  const out = tmp.file('mem.out');
  const r = runCli([
    'tag',
    '--model',
    model,
    '--input',
    input,
    '--out',
    out,
    '--nbest',
    '1',
    '--out-nbest',
    tmp.file('mem.jsonl'),
    '--separator',
    separator,
    '--threads',
    '1',
  ]);
  return { status: r.status, text: r.status === 0 ? readFileSync(out, 'utf8') : '', stderr: r.stderr };
}

async function streamed(
  input: string,
  blockBytes: number,
  separator: 'whitespace' | 'tab' = 'whitespace',
): Promise<string> {
  const out = tmp.file(`stream-${blockBytes}.out`);
  await tagStream(tagger, { input, out, separator, threads: 1, blockBytes });
  return readFileSync(out, 'utf8');
}

const rowsText = (sentences: string[][][], sep: string): string =>
  sentences.map((s) => s.map((r) => r.join(sep)).join('\n')).join('\n\n');

describe('streaming tag', () => {
  it('writes the same bytes as the in-memory path for any block size, with odd spacing, CRLF, BOM, -DOCSTART- and no final newline', async () => {
    const test = corpus(60, 99);
    // Input columns only in one file, all columns in another; runs of spaces and tabs, a
    // no-break space (U+00A0) and an ideographic space (U+3000) as separators, CRLF lines,
    // blank lines with spaces, document markers, a BOM and no final newline.
    const odd = test.map((s, k) =>
      s
        .map((r, i) =>
          k % 3 === 0 && i === 0
            ? `  ${r[0]}\t ${r[1]}\u00a0 ${r[2]}`
            : k % 5 === 1
              ? `${r[0]}\u3000${r[1]} ${r[2]}\r`
              : r.join(' '),
        )
        .join('\n'),
    );
    let text =
      '\ufeff-DOCSTART- -X- O\n\n' +
      odd.slice(0, 30).join('\n \n') +
      '\n\n-DOCSTART- -X- O\n' +
      odd.slice(30).join('\n\n');
    const full = tmp.file('full.txt', text);
    const inputOnly = tmp.file(
      'input.txt',
      rowsText(
        test.map((s) => s.map((r) => r.slice(0, 2))),
        ' ',
      ) + '\n\n',
    );
    for (const input of [full, inputOnly]) {
      const ref = inMemory(input);
      expect(ref.stderr).toBe('');
      expect(ref.status).toBe(0);
      expect(ref.text.split('\n').length).toBeGreaterThan(200);
      for (const block of [1, 7, 64, 1000, 1 << 20]) expect(await streamed(input, block)).toBe(ref.text);
      // The command line (its plain form runs the streaming path without the command tree).
      const out = tmp.file('cli.out');
      const r = runCli(['tag', '--model', model, '--input', input, '--out', out, '--threads', '1']);
      expect(r.status).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe(ref.text);
    }
    text = rowsText(test, '\t') + '\n';
    const tabs = tmp.file('tabs.txt', text);
    const ref = inMemory(tabs, 'tab');
    expect(ref.status).toBe(0);
    for (const block of [5, 1 << 20]) expect(await streamed(tabs, block, 'tab')).toBe(ref.text);
  });

  it("writes a block's output into the buffer it is given when it fits, else into a new one", () => {
    const block = Buffer.from(
      rowsText(
        corpus(5, 3).map((s) => s.map((r) => r.slice(0, 2))),
        ' ',
      ) + '\n\n',
    );
    const fresh = tagger.tagColumnBlock(block, true, -1, 'whitespace', 1);
    const into = Buffer.alloc(fresh.output.length + 10, 0x7e);
    const reused = tagger.tagColumnBlock(block, true, -1, 'whitespace', 1, into);
    expect(reused.output.buffer).toBe(into.buffer);
    expect(reused.output.byteOffset).toBe(into.byteOffset);
    expect(Buffer.from(reused.output).equals(Buffer.from(fresh.output))).toBe(true);
    expect(into[fresh.output.length]).toBe(0x7e); // nothing written past the output
    const small = Buffer.alloc(fresh.output.length - 1);
    const grown = tagger.tagColumnBlock(block, true, -1, 'whitespace', 1, small);
    expect(grown.output.buffer).not.toBe(small.buffer);
    expect(Buffer.from(grown.output).equals(Buffer.from(fresh.output))).toBe(true);
  });

  it('an empty file, or one of only a byte-order mark, is one error naming it; blocks may end anywhere', async () => {
    for (const [name, text] of [
      ['empty.txt', ''],
      ['bom.txt', '\ufeff'],
    ] as const) {
      const input = tmp.file(name, text);
      await expect(
        tagStream(tagger, { input, out: tmp.file(`${name}.out`), separator: 'whitespace', threads: 1, blockBytes: 8 }),
      ).rejects.toThrow(new RegExp(`${name.replace('.', '\\.')}: empty file`));
    }
    // Blocks that end exactly at a sentence's end, or inside one, or in a line: every way the
    // reused buffer can be left between blocks.
    const input = tmp.file('exact.txt', 'the DT\ncat NN\n\nthe DT\ncat NN\n\n');
    const ref = inMemory(input);
    for (const block of [1, 2, 7, 8, 15, 16]) expect(await streamed(input, block)).toBe(ref.text);
  });

  it('labels agree with Tagger.tagSentences', async () => {
    const test = corpus(40, 5);
    const input = tmp.file('plain.txt', rowsText(test, ' ') + '\n');
    const labels = (await streamed(input, 100))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split(' ')[3]);
    expect(labels).toEqual((await tagger.tag(test)).flat());
  });

  it('reports a bad line with its file line number, as the in-memory path does', async () => {
    const test = corpus(30, 3);
    const lines = rowsText(test, ' ').split('\n');
    lines[57] = lines[57].split(' ').slice(0, 2).join(' ') + ' x y'; // 4 fields where 3 came first
    const bad = tmp.file('bad.txt', lines.join('\n') + '\n');
    const ref = inMemory(bad);
    expect(ref.status).toBe(1);
    expect(ref.stderr).toContain(':58:');
    for (const block of [3, 50, 1 << 20])
      await expect(streamed(bad, block)).rejects.toThrow(ref.stderr.trim().replace(/^structrank: /, ''));
    const first = tmp.file('first.txt', '\n\nonly-one-field\n');
    const refFirst = inMemory(first);
    expect(refFirst.stderr).toMatch(/:3: expected 2 columns \(word, pos\) or 3/);
    await expect(streamed(first, 4)).rejects.toThrow(refFirst.stderr.trim().replace(/^structrank: /, ''));
    const utf = tmp.file(
      'utf.txt',
      Buffer.concat([Buffer.from('a DT\nb NN\n\nc '), Buffer.from([0xff]), Buffer.from(' NN\n')]),
    );
    for (const block of [2, 1 << 20]) await expect(streamed(utf, block)).rejects.toThrow(/:4: invalid UTF-8/);
    await expect(streamed(tmp.file('empty.txt', ''), 10)).rejects.toThrow(/empty file/);
  });

  it('reads standard input, and leaves no output behind when cancelled', async () => {
    const test = corpus(20, 11);
    const text = rowsText(test, ' ') + '\n';
    const input = tmp.file('stdin.txt', text);
    const ref = inMemory(input);
    const r = runCli(['tag', '--model', model, '--input', '-', '--threads', '1'], { input: text });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(ref.text);
    const out = tmp.file('cancelled.out');
    const controller = new AbortController();
    controller.abort();
    await expect(
      tagStream(tagger, { input, out, separator: 'whitespace', threads: 1, signal: controller.signal }),
    ).rejects.toThrow(/abort/i);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith('cancelled.out'))).toEqual([]); // no temp file either
  });

  it('runs only the plain form of the command line itself', () => {
    expect(plainTagOptions(['tag', '--model', 'm', '--input', 'i'])?.get('--input')).toBe('i');
    expect(
      plainTagOptions(['tag', '--model', 'm', '--input', '-', '--out', '-', '--threads', '1', '--separator', 'tab'])
        ?.size,
    ).toBe(5);
    for (const argv of [
      ['tag', '--model', 'm'],
      ['tag', '--model', 'm', '--input', 'i', '--nbest', '3'],
      ['tag', '--model=m', '--input', 'i'],
      ['tag', '--model', 'm', '--input', 'i', '--threads', '-1'],
      ['tag', '--model', 'm', '--input', 'i', '--separator', 'comma'],
      ['tag', '--model', 'm', '--input', 'i', '--help'],
      ['tag', '--model', 'm', '--model', 'n', '--input', 'i'],
      ['train-tagger', '--model', 'm', '--input', 'i'],
    ])
      expect(plainTagOptions(argv)).toBeUndefined();
  });
});

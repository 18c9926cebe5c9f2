/**
 * `parse` and `tag` in sentence shards on a Redis queue: the merged outputs (1-best and
 * n-best, ids included) must be byte-identical to a local run, and an error a worker finds
 * in a shard is reported at the input file's own line, as a local run reports it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { splitConlluInput, splitParseInput, splitTagInput, shiftNbestIds } from '../../lib/distributed/shards.js';
import { asConllu, tinyNerCorpus } from '../pipeline/pipeline-fakes.js';
import { repoRoot, runCli, tempDir } from '../helpers.js';
import {
  redisWithTwoWorkers,
  skipWithoutRedis,
  startCli,
  startRedis,
  startWorkerProcess,
} from '../../test-support/distributed.js';

const skip = skipWithoutRedis();
const tmp = tempDir();
afterAll(() => tmp.cleanup());
const gum = join(repoRoot, 'data', 'gum-open');

describe('sentence shards', () => {
  it('cut at sentence boundaries, keep every line, and count the sentences before each shard', () => {
    const conll = tmp.file('cut.txt', '-DOCSTART- -X- O\n\na A O\nb B O\n\nc C O\n\n\nd D O\ne E O\n\n');
    const shards = splitTagInput(conll, 2, 'whitespace');
    expect(shards.map((s) => s.text).join('')).toBe(readFileSync(conll, 'utf8'));
    expect(shards.map((s) => s.idOffset)).toEqual([0, 2]);
    expect(shards[1].lines[0]).toBe(8);
    const text = tmp.file('cut-text.txt', 'a b\n\nc d\ne\n\n\n');
    const parts = splitParseInput(text, 1);
    expect(parts.map((s) => s.text).join('')).toBe(readFileSync(text, 'utf8'));
    expect(parts.map((s) => s.idOffset)).toEqual([0, 1, 3]); // text ids are line numbers
    expect(shiftNbestIds('{"id":"s1","tokens":[]}\n{"id":"s2","tokens":[]}\n', 5)).toBe(
      '{"id":"s6","tokens":[]}\n{"id":"s7","tokens":[]}\n',
    );
    expect(() => splitTagInput(tmp.file('cut-bad.txt', 'a A O\n\nb B\n'), 1, 'whitespace')).toThrow(
      /cut-bad\.txt:3: expected 3 columns, found 2/,
    );
  });

  it("cut CoNLL-U after a sentence's blank line, its comments staying with it", () => {
    const w = (id: string, form: string): string => `${id}\t${form}\t_\t_\t_\t_\t_\t_\t_\t_`;
    const text =
      [
        '# sent_id = 1',
        w('1', 'a'),
        '',
        '# sent_id = 2',
        w('1', 'b'),
        w('1.1', 'e'),
        '',
        '',
        '# sent_id = 3',
        w('1-2', 'cd'),
        w('1', 'c'),
        w('2', 'd'),
      ].join('\n') + '\n';
    const file = tmp.file('cut.conllu', text);
    const shards = splitConlluInput(file, 1);
    expect(shards.map((s) => s.text).join('')).toBe(text);
    expect(shards.map((s) => s.idOffset)).toEqual([0, 1, 2]);
    expect(shards.map((s) => s.lines[0])).toEqual([1, 4, 8]); // the second blank line opens the third shard
    expect(shards[1].text.startsWith('# sent_id = 2\n')).toBe(true);
    expect(splitConlluInput(file, 2).map((s) => s.idOffset)).toEqual([0, 2]);
  });
});

describe.skipIf(skip)('parse and tag in shards on Redis (2 worker processes)', () => {
  const store = join(tmp.dir, 'store');
  const cluster = redisWithTwoWorkers(store);

  const queue = (): string[] => ['--redis', cluster.redis.url, '--store', store];

  it('parse: trees and text input, 1-best and n-best, byte-identical to a local run', () => {
    const model = join(tmp.dir, 'parser.model');
    const train = runCli(['train-parser', '--train', join(gum, 'train.mrg'), '--model', model, '--threads', '1']);
    expect(train.status, train.stderr).toBe(0);
    const text = tmp.file(
      'sentences.txt',
      'The cat sat .\n\nIt was a good day .\nWe went home\n   \nNothing else happened here .\n',
    );
    for (const input of [join(gum, 'dev.mrg'), text]) {
      const name = input === text ? 'text' : 'trees';
      const local = runCli([
        'parse',
        '--model',
        model,
        '--input',
        input,
        '--out',
        join(tmp.dir, `${name}.local`),
        '--nbest',
        '3',
        '--out-nbest',
        join(tmp.dir, `${name}.local.jsonl`),
        '--max-length',
        '25',
        '--threads',
        '1',
      ]);
      expect(local.status, local.stderr).toBe(0);
      const remote = runCli([
        'parse',
        '--model',
        model,
        '--input',
        input,
        '--out',
        join(tmp.dir, `${name}.remote`),
        '--nbest',
        '3',
        '--out-nbest',
        join(tmp.dir, `${name}.remote.jsonl`),
        '--max-length',
        '25',
        '--shard-size',
        name === 'text' ? '2' : '40',
        ...queue(),
      ]);
      expect(remote.status, remote.stderr).toBe(0);
      expect(remote.stderr).toMatch(
        name === 'text' ? /parse: 2 shard\(s\) of up to 2 sentences/ : /parse: 8 shard\(s\) of up to 40 sentences/,
      );
      expect(readFileSync(join(tmp.dir, `${name}.remote`), 'utf8')).toBe(
        readFileSync(join(tmp.dir, `${name}.local`), 'utf8'),
      );
      expect(readFileSync(join(tmp.dir, `${name}.remote.jsonl`), 'utf8')).toBe(
        readFileSync(join(tmp.dir, `${name}.local.jsonl`), 'utf8'),
      );
    }
  });

  it("parse: the CRF's parse options and the k-best list's kind reach the workers", () => {
    const trainFile = tmp.file(
      'crf-train.mrg',
      readFileSync(join(gum, 'train.mrg'), 'utf8').split('\n').slice(0, 120).join('\n') + '\n',
    );
    const model = join(tmp.dir, 'crf.model');
    const train = runCli([
      'train-parser',
      '--train',
      trainFile,
      '--model',
      model,
      '--crf',
      '--epochs',
      '1',
      '--threads',
      '1',
    ]);
    expect(train.status, train.stderr).toBe(0);
    const input = join(gum, 'dev.mrg');
    const options = [
      '--decode',
      'viterbi',
      '--prune',
      '0.001',
      '--retry',
      'exhaustive',
      '--nbest',
      '3',
      '--kbest-tags',
      'max',
      '--kbest-pool',
      '6',
    ];
    const parse = (name: string, extra: string[]) => {
      const r = runCli([
        'parse',
        '--model',
        model,
        '--input',
        input,
        '--out',
        join(tmp.dir, name),
        '--out-nbest',
        join(tmp.dir, `${name}.jsonl`),
        '--max-length',
        '25',
        ...extra,
      ]);
      expect(r.status, r.stderr).toBe(0);
      return {
        trees: readFileSync(join(tmp.dir, name), 'utf8'),
        nbest: readFileSync(join(tmp.dir, `${name}.jsonl`), 'utf8'),
      };
    };
    const local = parse('crf.local', [...options, '--threads', '1']);
    const remote = parse('crf.remote', [...options, '--shard-size', '40', ...queue()]);
    expect(remote.trees).toBe(local.trees);
    expect(remote.nbest).toBe(local.nbest);
    // The options change the output: a run that dropped them would not match.
    const plain = parse('crf.plain', ['--nbest', '3', '--threads', '1']);
    expect(plain.trees).not.toBe(local.trees);
    expect(plain.nbest).not.toBe(local.nbest);
    // The PCFGs' weight too (trained without --dev, the model mixes its PCFGs in at 0.5).
    const alone = ['--pcfg-weight', '0', '--nbest', '3'];
    const aloneLocal = parse('crf.alone.local', [...alone, '--threads', '1']);
    const aloneRemote = parse('crf.alone.remote', [...alone, '--shard-size', '40', ...queue()]);
    expect(aloneRemote.trees).toBe(aloneLocal.trees);
    expect(aloneLocal.trees).not.toBe(plain.trees);
  });

  // Uses trees.local from the test above (same model and input).
  it('parse: a worker killed with SIGKILL in a shard loses nothing', async () => {
    const model = join(tmp.dir, 'parser.model');
    const input = join(gum, 'dev.mrg');
    const killStore = join(tmp.dir, 'store-kill');
    // A Redis of its own, so that only the victim takes these jobs until it is killed.
    const own = await startRedis();
    try {
      const victim = await startWorkerProcess(own.url, killStore, ['--lock-seconds', '2']);
      const run = startCli([
        'parse',
        '--model',
        model,
        '--input',
        input,
        '--out',
        join(tmp.dir, 'kill.remote'),
        '--nbest',
        '3',
        '--out-nbest',
        join(tmp.dir, 'kill.remote.jsonl'),
        '--max-length',
        '25',
        '--shard-size',
        '40',
        '--redis',
        own.url,
        '--store',
        killStore,
      ]);
      await victim.stopWhen(/start shard parse-shard2of8/);
      expect(await victim.kill('SIGKILL')).toBe('SIGKILL');
      const rescuer = await startWorkerProcess(own.url, killStore, ['--lock-seconds', '2']);
      try {
        expect(await run.exited(), run.output()).toBe(0);
        expect(readFileSync(join(tmp.dir, 'kill.remote'), 'utf8')).toBe(
          readFileSync(join(tmp.dir, 'trees.local'), 'utf8'),
        );
        expect(readFileSync(join(tmp.dir, 'kill.remote.jsonl'), 'utf8')).toBe(
          readFileSync(join(tmp.dir, 'trees.local.jsonl'), 'utf8'),
        );
        await rescuer.waitFor(/done shard parse-shard2of8/, 10_000);
        expect(victim.output()).not.toMatch(/done shard parse-shard2of8/);
      } finally {
        await rescuer.kill('SIGKILL');
      }
    } finally {
      await own.stop();
    }
  });

  it('a worker with --concurrency 2 runs two shards at once, same output', async () => {
    const model = join(tmp.dir, 'parser.model');
    const own = await startRedis();
    const worker = await startWorkerProcess(own.url, join(tmp.dir, 'store-conc'), ['--concurrency', '2']);
    try {
      expect(worker.output()).toMatch(/2 job\(s\) at a time/);
      const run = startCli([
        'parse',
        '--model',
        model,
        '--input',
        join(gum, 'dev.mrg'),
        '--out',
        join(tmp.dir, 'conc.remote'),
        '--max-length',
        '25',
        '--shard-size',
        '40',
        '--redis',
        own.url,
        '--store',
        join(tmp.dir, 'store-conc'),
      ]);
      expect(await run.exited(), run.output()).toBe(0);
      expect(readFileSync(join(tmp.dir, 'conc.remote'), 'utf8')).toBe(
        readFileSync(join(tmp.dir, 'trees.local'), 'utf8'),
      );
      await worker.waitFor(/done shard parse-shard8of8/);
      const log = worker.output();
      expect(log.slice(0, log.indexOf('done shard')).match(/start shard/g)).toHaveLength(2);
    } finally {
      await worker.kill('SIGKILL');
      await own.stop();
    }
  });

  it('parse: an error in a later shard names the input file and its line, as locally', () => {
    const model = join(tmp.dir, 'parser.model');
    const bad = tmp.file('bad.txt', 'one two\nthree four\nfive six\nseven (eight\n');
    const local = runCli(['parse', '--model', model, '--input', bad, '--out', join(tmp.dir, 'bad.local')]);
    const remote = runCli([
      'parse',
      '--model',
      model,
      '--input',
      bad,
      '--out',
      join(tmp.dir, 'bad.remote'),
      '--shard-size',
      '1',
      ...queue(),
    ]);
    expect(local.status).toBe(1);
    expect(remote.status).toBe(1);
    expect(local.stderr).toContain(`${bad}:4: token '(eight' contains a bracket`);
    expect(remote.stderr.trim().split('\n').pop()).toBe(local.stderr.trim());
  });

  it('tag: CRF 1-best and n-best, byte-identical to a local run', async () => {
    const train = tmp.file('ner-train.txt', tinyNerCorpus(80, 1));
    const test = tmp.file('ner-test.txt', tinyNerCorpus(37, 2));
    const model = join(tmp.dir, 'tagger.model');
    const t = runCli([
      'train-tagger',
      '--algo',
      'crf',
      '--train',
      train,
      '--columns',
      'word,pos,ne',
      '--label',
      'ne',
      '--model',
      model,
      '--epochs',
      '10',
      '--threads',
      '1',
    ]);
    expect(t.status, t.stderr).toBe(0);
    const local = runCli([
      'tag',
      '--model',
      model,
      '--input',
      test,
      '--out',
      join(tmp.dir, 'tag.local'),
      '--nbest',
      '4',
      '--out-nbest',
      join(tmp.dir, 'tag.local.jsonl'),
      '--threads',
      '1',
    ]);
    expect(local.status, local.stderr).toBe(0);
    const remote = runCli([
      'tag',
      '--model',
      model,
      '--input',
      test,
      '--out',
      join(tmp.dir, 'tag.remote'),
      '--nbest',
      '4',
      '--out-nbest',
      join(tmp.dir, 'tag.remote.jsonl'),
      '--shard-size',
      '5',
      ...queue(),
    ]);
    expect(remote.status, remote.stderr).toBe(0);
    expect(remote.stderr).toMatch(/tag: 8 shard\(s\) of up to 5 sentences/);
    expect(readFileSync(join(tmp.dir, 'tag.remote'), 'utf8')).toBe(readFileSync(join(tmp.dir, 'tag.local'), 'utf8'));
    expect(readFileSync(join(tmp.dir, 'tag.remote.jsonl'), 'utf8')).toBe(
      readFileSync(join(tmp.dir, 'tag.local.jsonl'), 'utf8'),
    );
    // runCli blocks this process: read the workers' logs once it is free again.
    const doneShards = (): number =>
      cluster.workers.map((w) => w.output().match(/done shard tag-shard/g)?.length ?? 0).reduce((a, b) => a + b);
    for (let i = 0; i < 100 && doneShards() < 8; i++) await new Promise((r) => setTimeout(r, 50));
    expect(doneShards()).toBe(8);
  });

  it("tag: CoNLL-U in and out, 1-best and n-best, byte-identical to a local run; its errors at the input's lines", () => {
    // The NER corpus as CoNLL-U: words in FORM, tags in XPOS; the tagger writes entities into MISC (ne is no field).
    const train = tmp.file('ner-train.conll', tinyNerCorpus(80, 1));
    // A second blank line before sentence 11, where the third shard starts.
    const test = tmp.file(
      'ner-test.conllu',
      asConllu(tinyNerCorpus(37, 2)).replace('\n\n# sent_id = 11\n', '\n\n\n# sent_id = 11\n'),
    );
    const model = join(tmp.dir, 'tagger-u.model');
    const t = runCli([
      'train-tagger',
      '--algo',
      'crf',
      '--train',
      train,
      '--columns',
      'word,xpos,ne',
      '--label',
      'ne',
      '--model',
      model,
      '--epochs',
      '10',
      '--threads',
      '1',
    ]);
    expect(t.status, t.stderr).toBe(0);
    const run = (where: string, extra: string[]): ReturnType<typeof runCli> =>
      runCli([
        'tag',
        '--model',
        model,
        '--input',
        test,
        '--out',
        join(tmp.dir, `u.${where}`),
        '--nbest',
        '4',
        '--out-nbest',
        join(tmp.dir, `u.${where}.jsonl`),
        ...extra,
      ]);
    const local = run('local', ['--threads', '1']);
    expect(local.status, local.stderr).toBe(0);
    const remote = run('remote', ['--shard-size', '5', ...queue()]);
    expect(remote.status, remote.stderr).toBe(0);
    expect(remote.stderr).toMatch(/tag: 8 shard\(s\) of up to 5 sentences/);
    expect(readFileSync(join(tmp.dir, 'u.remote'), 'utf8')).toBe(readFileSync(join(tmp.dir, 'u.local'), 'utf8'));
    expect(readFileSync(join(tmp.dir, 'u.local'), 'utf8')).toMatch(/\tne=[A-Z-]+\n/);
    expect(readFileSync(join(tmp.dir, 'u.remote.jsonl'), 'utf8')).toBe(
      readFileSync(join(tmp.dir, 'u.local.jsonl'), 'utf8'),
    );
    // A bad line in the sixth shard: the message names the input file's line, as locally.
    const lines = readFileSync(test, 'utf8').split('\n');
    const at = lines.findIndex((l, i) => i > lines.length * 0.7 && /^[0-9]/.test(l));
    lines[at] = lines[at].split('\t').slice(0, 8).join('\t');
    const bad = tmp.file('bad-u.conllu', lines.join('\n'));
    const badLocal = runCli(['tag', '--model', model, '--input', bad, '--out', join(tmp.dir, 'u.bad-local')]);
    const badRemote = runCli([
      'tag',
      '--model',
      model,
      '--input',
      bad,
      '--out',
      join(tmp.dir, 'u.bad-remote'),
      '--shard-size',
      '5',
      ...queue(),
    ]);
    expect(badLocal.stderr.trim()).toBe(`structrank: ${bad}:${at + 1}: expected 10 tab-separated columns, found 8`);
    expect(badRemote.stderr.trim().split('\n').pop()).toBe(badLocal.stderr.trim());
  });
});

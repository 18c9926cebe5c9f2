import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('structrank kernel trees', () => {
  const a = tmp.file('a.mrg', '(S (NP (D a) (N b)) (VP (V c)))\n( (S (NP (D a)) (VP (V c))))\n');
  const b = tmp.file('b.mrg', '(S (NP (D a) (N b)) (VP (V c)))\n');

  it('prints the Gram matrix as JSON', () => {
    const r = runCli(['kernel', 'trees', '--lambda', '0.4', a, '--json']);
    expect(r.status).toBe(0);
    const rows = JSON.parse(r.stdout).rows as number[][];
    expect(rows.length).toBe(2);
    expect(rows[0][0]).toBeCloseTo(3.657216, 12);
    expect(rows[0][1]).toBe(rows[1][0]);
    // shared: (D a), (V c), VP->V and its fragment, NP? no (NP D N vs NP D), S->NP VP fragments
    expect(rows[0][1]).toBeCloseTo(1.984, 12);
  });

  it('prints A against B, normalized and depth-limited, as plain rows', () => {
    const r = runCli(['kernel', 'trees', '--lambda', '0.4', '--normalize', '--threads', '1', a, b]);
    expect(r.status).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(' ').map(Number));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toEqual([1]);
    expect(lines[1][0]).toBeCloseTo(1.984 / Math.sqrt(3.657216 * 2.89344), 12);
    const d = runCli(['kernel', 'trees', '--lambda', '0.4', '--depth', '1', b, '--json']);
    expect(JSON.parse(d.stdout).rows[0][0]).toBeCloseTo(2.4, 12);
  });

  it('reports bad input and bad flags on one line', () => {
    const empty = tmp.file('bad.mrg', '(S (NP (D a))\n');
    let r = runCli(['kernel', 'trees', '--lambda', '0.4', empty]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/bad\.mrg:1: unbalanced brackets/);
    r = runCli(['kernel', 'trees', '--lambda', '2', a]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/invalid value for --lambda/);
    r = runCli(['kernel', 'trees', a]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/missing required option --lambda/);
    r = runCli(['kernel', 'trees', '--lambda', '0.4', '--depth', '0', a]);
    expect(r.status).toBe(2);
  });
});

describe('structrank kernel tags', () => {
  const a = tmp.file('a.conll', 'The DT B-NP\ndog NN I-NP\n\nA DT B-NP\ncat NN I-NP\nran VBD B-VP\n');
  it('prints the Gram matrix of tag sequences', () => {
    const r = runCli(['kernel', 'tags', '--lambda', '0.5', a, '--json']);
    expect(r.status).toBe(0);
    const rows = JSON.parse(r.stdout).rows as number[][];
    // B-NP I-NP vs B-NP I-NP I? : singles 1 + 1, pair 0.5 * 1 * 1
    expect(rows[0][1]).toBeCloseTo(2.5, 12);
    const s = runCli(['kernel', 'tags', '--lambda', '0.5', '--sim2', 'caps', a, '--json']);
    // The/A both capitalized: position weight 1.5; dog/cat: 1; pair: 0.5 * 1.5 * 1
    expect(JSON.parse(s.stdout).rows[0][1]).toBeCloseTo(1.5 + 1 + 0.75, 12);
  });
  it('uses the columns named word and tag', () => {
    const r = runCli(['kernel', 'tags', '--lambda', '0.5', '--columns', 'word,tag,chunk', a, '--json']);
    const rows = JSON.parse(r.stdout).rows as number[][];
    // tags DT NN vs DT NN VBD: singles 1 + 1, pair 0.5
    expect(rows[0][1]).toBeCloseTo(2.5, 12);
    const bad = runCli(['kernel', 'tags', '--lambda', '0.5', '--columns', 'word,pos', a]);
    expect(bad.status).toBe(2);
    const wrong = runCli(['kernel', 'tags', '--lambda', '0.5', '--columns', 'word,pos,tag,x', a]);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/expected 4 columns/);
    const sim = runCli(['kernel', 'tags', '--lambda', '0.5', '--sim2', 'nope', a]);
    expect(sim.status).toBe(2);
  });
  it('reads CoNLL-U: the FORMs and the field --tag names, the matrix of the same sentences as columns', () => {
    const w = (id: number, form: string, upos: string, xpos: string): string =>
      [id, form, '_', upos, xpos, '_', '_', '_', '_', '_'].join('\t');
    const u = tmp.file(
      'a.conllu',
      [
        '# sent_id = 1',
        w(1, 'The', 'DET', 'DT'),
        w(2, 'dog', 'NOUN', 'NN'),
        '',
        '# sent_id = 2',
        '1-2\tAcat\t_\t_\t_\t_\t_\t_\t_\t_',
        w(1, 'A', 'DET', 'DT'),
        w(2, 'cat', 'NOUN', 'NN'),
        w(3, 'ran', 'VERB', 'VBD'),
        '',
      ].join('\n'),
    );
    for (const [field, sim2] of [
      ['xpos', []],
      ['upos', ['--sim2', 'caps']],
    ] as const) {
      const columns = runCli([
        'kernel',
        'tags',
        '--lambda',
        '0.5',
        '--columns',
        'word,tag,chunk',
        ...sim2,
        ...(field === 'upos'
          ? [tmp.file('up.conll', 'The DET B-NP\ndog NOUN I-NP\n\nA DET B-NP\ncat NOUN I-NP\nran VERB B-VP\n')]
          : [a]),
      ]);
      const conllu = runCli(['kernel', 'tags', '--lambda', '0.5', '--tag', field, ...sim2, u]);
      expect(conllu.stderr).toBe('');
      expect(conllu.stdout).toBe(columns.stdout);
    }
    expect(runCli(['kernel', 'tags', '--lambda', '0.5', '--columns', 'word,tag', u]).stderr).toMatch(
      /^structrank: kernel tags: --columns names CoNLL columns; with CoNLL-U files, --tag names/,
    );
    expect(runCli(['kernel', 'tags', '--lambda', '0.5', '--tag', 'form', u]).stderr).toMatch(
      /^structrank: kernel tags: --tag names a CoNLL-U field among lemma, upos, xpos, feats, deprel; got 'form'/,
    );
    expect(runCli(['kernel', 'tags', '--lambda', '0.5', '--tag', 'upos', a]).stderr).toMatch(
      /^structrank: kernel tags: --tag names a CoNLL-U field; CoNLL files/,
    );
  });
});

describe('structrank kernel trees --strip', () => {
  it('applies the standard transforms', () => {
    const f = tmp.file(
      's.mrg',
      '( (S (NP-SBJ-1 (-NONE- *-1)) (NP-TMP (NN x)) (VP (VB y))))\n(S (NP (NN x)) (VP (VB y)))\n',
    );
    const plain = JSON.parse(runCli(['kernel', 'trees', '--lambda', '0.4', '--normalize', f, '--json']).stdout).rows;
    const stripped = JSON.parse(
      runCli(['kernel', 'trees', '--lambda', '0.4', '--normalize', '--strip', f, '--json']).stdout,
    ).rows;
    expect(plain[0][1]).toBeLessThan(0.99);
    expect(stripped[0][1]).toBeCloseTo(1, 12);
  });
});

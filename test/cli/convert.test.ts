/** `structrank convert`: treebank, CoNLL columns, CoNLL-U and text, there and back where it makes sense. */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, runCli, tempDir } from '../helpers.js';
import { readTreesSync } from '../../lib/io/treebank.js';
import { tags, words } from '../../lib/trees/tree.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());
const gumTest = join(repoRoot, 'data', 'gum-open', 'test.mrg');

const conllu = [
  '# sent_id = a',
  "# text = Don't go.",
  "1-2\tDon't\t_\t_\t_\t_\t_\t_\t_\t_",
  '1\tDo\tdo\tAUX\tVBP\t_\t3\taux\t_\t_',
  "2\tn't\tnot\tPART\tRB\t_\t3\tadvmod\t_\t_",
  '3\tgo\tgo\tVERB\tVB\t_\t0\troot\t_\t_',
  '3.1\tgone\t_\t_\t_\t_\t_\t_\t_\t_',
  '4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_',
  '',
].join('\n');

describe('convert', () => {
  it('trees -> conll: the overt words and their tags, a blank line after each sentence', () => {
    const out = tmp.file('gum-test.conll');
    const r = runCli(['convert', '--from', 'trees', '--to', 'conll', '--input', gumTest, '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe(`convert: 294 sentences, trees -> conll: ${out}\n`);
    const trees = readTreesSync(gumTest);
    const expected = trees
      .map(
        (t) =>
          words(t)
            .map((w, i) => `${w} ${tags(t)[i]}`)
            .join('\n') + '\n\n',
      )
      .join('');
    expect(readFileSync(out, 'utf8')).toBe(expected);
  });

  it('-NONE- elements are not words; conll -> conllu -> conll gives the same file; -> text gives the words', () => {
    const mrg = tmp.file('t.mrg', '( (S (NP-SBJ (-NONE- *)) (VP (VB Go)) (. .)) )\n(ROOT (NP (DT A) (NN dog)))\n');
    const a = runCli(['convert', '--from', 'trees', '--to', 'conll', '--input', mrg]);
    expect(a.stdout).toBe('Go VB\n. .\n\nA DT\ndog NN\n\n');
    const conll = tmp.file('t.conll', a.stdout);
    const u = runCli(['convert', '--from', 'conll', '--to', 'conllu', '--columns', 'word,pos', '--input', conll]);
    expect(u.stdout).toBe(
      '# sent_id = 1\n1\tGo\t_\t_\tVB\t_\t_\t_\t_\t_\n2\t.\t_\t_\t.\t_\t_\t_\t_\t_\n\n# sent_id = 2\n1\tA\t_\t_\tDT\t_\t_\t_\t_\t_\n2\tdog\t_\t_\tNN\t_\t_\t_\t_\t_\n\n',
    );
    const back = runCli([
      'convert',
      '--from',
      'conllu',
      '--to',
      'conll',
      '--columns',
      'word,xpos',
      '--input',
      tmp.file('t.conllu', u.stdout),
    ]);
    expect(back.stdout).toBe(a.stdout);
    expect(runCli(['convert', '--from', 'trees', '--to', 'text', '--input', mrg]).stdout).toBe('Go .\nA dog\n');
    expect(
      runCli(['convert', '--from', 'conll', '--to', 'text', '--columns', 'word,pos', '--input', conll]).stdout,
    ).toBe('Go .\nA dog\n');
  });

  it('conllu -> conll: the chosen fields of syntactic words (ranges, empty nodes and comments dropped)', () => {
    const file = tmp.file('a.conllu', conllu);
    expect(runCli(['convert', '--from', 'conllu', '--to', 'conll', '--input', file]).stdout).toBe(
      "Do AUX\nn't PART\ngo VERB\n. PUNCT\n\n",
    );
    expect(
      runCli([
        'convert',
        '--from',
        'conllu',
        '--to',
        'conll',
        '--columns',
        'word,lemma,xpos,deprel',
        '--separator',
        'tab',
        '--input',
        file,
      ]).stdout,
    ).toBe("Do\tdo\tVBP\taux\nn't\tnot\tRB\tadvmod\ngo\tgo\tVB\troot\n.\t.\t.\tpunct\n\n");
  });

  it('bad input: one line with file and line, exit 1, the output left as it was', () => {
    const out = tmp.file('kept.conll', 'earlier output\n');
    const cases: [string, string[], RegExp][] = [
      ['bad.mrg', ['--from', 'trees'], /^structrank: \S+bad\.mrg:2: /],
      ['bad.conll', ['--from', 'conll', '--columns', 'word,pos'], /^structrank: \S+bad\.conll:3: expected 2 columns/],
      [
        'bad.conllu',
        ['--from', 'conllu'],
        /^structrank: \S+bad\.conllu:2: expected 10 tab-separated columns, found 3\n$/,
      ],
      [
        'space.conllu',
        ['--from', 'conllu'],
        /^structrank: \S+space\.conllu:1: 'New York' contains whitespace: it cannot be one column of the output \(use --separator tab\)\n$/,
      ],
    ];
    const texts: Record<string, string> = {
      'bad.mrg': '(S (NP (DT a)))\n(S (NP (DT a))\n',
      'bad.conll': 'a DT\nb NN\nc\n',
      'bad.conllu': '1\tx\t_\t_\t_\t_\t_\t_\t_\t_\n2\ty\tz\n',
      'space.conllu': '1\tNew York\t_\tPROPN\t_\t_\t_\t_\t_\t_\n',
    };
    for (const [name, args, message] of cases) {
      const to = args[1] === 'conll' ? 'conllu' : 'conll';
      const r = runCli(['convert', ...args, '--to', to, '--input', tmp.file(name, texts[name]), '--out', out]);
      expect(r.stderr).toMatch(message);
      expect(r.status).toBe(1);
      expect(readFileSync(out, 'utf8')).toBe('earlier output\n');
    }
  });

  it('usage errors and --help', () => {
    const conll = tmp.file('u.conll', 'a DT\n');
    expect(runCli(['convert', '--from', 'conll', '--to', 'conllu', '--input', conll]).stderr).toMatch(
      /^structrank: convert: --from conll needs --columns/,
    );
    expect(
      runCli(['convert', '--from', 'conll', '--to', 'trees', '--columns', 'word,pos', '--input', conll]).stderr,
    ).toMatch(/^structrank: convert: invalid value for --to: 'trees' \(conll, conllu or text\)/);
    expect(runCli(['convert', '--from', 'conllu', '--to', 'conllu', '--input', conll]).status).toBe(2);
    expect(
      runCli(['convert', '--from', 'conll', '--to', 'text', '--columns', 'pos,tag', '--input', conll]).stderr,
    ).toMatch(/--to text needs a word column/);
    const help = runCli(['convert', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('trees to conll, conllu or text: the overt words and their part-of-speech tags');
  });
});

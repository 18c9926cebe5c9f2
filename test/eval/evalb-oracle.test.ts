// Our EVALB against the original evalb.c on realistic parser-like output: gold trees of
// ptb-sample dev.mrg and gum-open dev.mrg, edited at random (test/perturb.ts: flattened,
// added and crossing brackets, unary duplicates, relabelings incl. ADVP/PRT, TOP and
// function tags, tag errors, dropped traces and wrappers, rare word/length mismatches and
// empty lines). The expected text below is what evalb.c (EVALB 2006 release, compiled with
// gcc, COLLINS.prm) printed for exactly these files; per-sentence lines were compared too
// (identical for these and for 6,360 more sentences from the train files). Set EVALB_BIN
// to an evalb binary (and EVALB_PRM to COLLINS.prm) to compare the full output live.
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { readTreesSync } from '../../lib/io/treebank.js';
import { scoreTreebankFiles } from '../../lib/eval/parse-files.js';
import { EVALB_HEADER, formatEvalbReport, formatSentenceLine } from '../../lib/eval/evalb-format.js';
import { perturbedLines } from '../perturb.js';
import { dataFile, itWithData, repoRoot, tempDir } from '../helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const EXPECTED: Record<string, string[]> = {
  'ptb-sample/dev.mrg': [
    '                 82.60  83.89   4295  5200  5120     85   5624  5437    96.67',
    '=== Summary ===',
    '',
    '-- All --',
    'Number of sentence        =    273',
    'Number of Error sentence  =      2',
    'Number of Skip  sentence  =      2',
    'Number of Valid sentence  =    269',
    'Bracketing Recall         =  82.60',
    'Bracketing Precision      =  83.89',
    'Bracketing FMeasure       =  83.24',
    'Complete match            =   4.09',
    'Average crossing          =   0.32',
    'No crossing               =  72.49',
    '2 or less crossing        =  99.63',
    'Tagging accuracy          =  96.67',
    '',
    '-- len<=40 --',
    'Number of sentence        =    260',
    'Number of Error sentence  =      2',
    'Number of Skip  sentence  =      2',
    'Number of Valid sentence  =    256',
    'Bracketing Recall         =  82.40',
    'Bracketing Precision      =  83.79',
    'Bracketing FMeasure       =  83.09',
    'Complete match            =   4.30',
    'Average crossing          =   0.30',
    'No crossing               =  73.44',
    '2 or less crossing        =  99.61',
    'Tagging accuracy          =  96.54',
  ],
  'gum-open/dev.mrg': [
    '                 83.51  84.48   5546  6641  6565    114   7175  6896    96.11',
    '=== Summary ===',
    '',
    '-- All --',
    'Number of sentence        =    311',
    'Number of Error sentence  =      9',
    'Number of Skip  sentence  =      8',
    'Number of Valid sentence  =    294',
    'Bracketing Recall         =  83.51',
    'Bracketing Precision      =  84.48',
    'Bracketing FMeasure       =  83.99',
    'Complete match            =   6.12',
    'Average crossing          =   0.39',
    'No crossing               =  70.75',
    '2 or less crossing        =  97.96',
    'Tagging accuracy          =  96.11',
    '',
    '-- len<=40 --',
    'Number of sentence        =    259',
    'Number of Error sentence  =      7',
    'Number of Skip  sentence  =      7',
    'Number of Valid sentence  =    245',
    'Bracketing Recall         =  83.72',
    'Bracketing Precision      =  84.42',
    'Bracketing FMeasure       =  84.07',
    'Complete match            =   7.35',
    'Average crossing          =   0.33',
    'No crossing               =  74.69',
    '2 or less crossing        =  97.96',
    'Tagging accuracy          =  96.33',
  ],
};

const cases: [string, string, number][] = [
  ['ptb-sample/dev.mrg', dataFile('ptb-sample', 'dev.mrg'), 1],
  ['gum-open/dev.mrg', `${repoRoot}/data/gum-open/dev.mrg`, 3],
];

describe('EVALB equality with evalb.c on perturbed treebanks', () => {
  for (const [name, goldFile, seed] of cases) {
    const test = name.startsWith('gum-open/')
      ? it
      : (title: string, fn: () => Promise<void>) => itWithData(['ptb-sample'], title, fn);
    test(`matches evalb.c on ${name}`, async () => {
      const goldText = readFileSync(goldFile, 'utf8');
      const testFile = tmp.file(
        name.replace('/', '-') + '.tst',
        perturbedLines(readTreesSync(goldFile), goldText.split('\n'), seed).join('\n') + '\n',
      );
      const lines: string[] = [];
      const acc = await scoreTreebankFiles(goldFile, testFile, {
        onSentence: (s, i) => lines.push(formatSentenceLine(i, s)),
      });
      const ours = formatEvalbReport(acc).split('\n');
      const summary = ours.slice(1, ours.indexOf('-- Labels (all valid sentences) --') - 1);
      expect(summary).toEqual(EXPECTED[name]);
      const bin = process.env.EVALB_BIN;
      if (bin) {
        const r = spawnSync(bin, ['-p', process.env.EVALB_PRM ?? 'COLLINS.prm', goldFile, testFile], {
          encoding: 'utf8',
        });
        expect(
          [EVALB_HEADER, ...lines, ...ours.slice(0, ours.indexOf('-- Labels (all valid sentences) --') - 1)].join('\n'),
        ).toBe(r.stdout.trimEnd());
      }
    });
  }
});

/**
 * Small honest stand-ins for the pipeline's orchestration tests: a most-frequent-tag base
 * tagger with k-best lists (alternatives at ambiguous words) and a context reranker with
 * one weight chosen on dev, over a generated NER-like corpus where a few words are
 * ambiguous and the previous word decides their tag.
 */
import type { NbestSentence } from '../../lib/io/nbest.js';
import type {
  BaseModel,
  CandidateSet,
  ComponentFactory,
  PipelineSentence,
  Reranker,
  StepContext,
} from '../../lib/pipeline/components.js';
import { corpusF1, scoreSet } from '../../lib/pipeline/evaluate.js';
import { rng } from '../perturb.js';

/** `word pos ne` lines: "jordan" / "washington" are PER after "said" or at the start, LOC after "in". */
export function tinyNerCorpus(sentences: number, seed: number): string {
  const r = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const out: string[] = [];
  for (let i = 0; i < sentences; i++) {
    const rows: string[][] = [];
    const amb = pick(['jordan', 'washington', 'georgia']);
    if (r() < 0.5) {
      rows.push([amb, 'NNP', 'B-PER'], ['said', 'VBD', 'O'], ['it', 'PRP', 'O'], ['rained', 'VBD', 'O']);
      rows.push(['in', 'IN', 'O'], [pick(['paris', 'rome']), 'NNP', 'B-LOC']);
    } else {
      rows.push(
        [pick(['mary', 'john']), 'NNP', 'B-PER'],
        ['lives', 'VBZ', 'O'],
        ['in', 'IN', 'O'],
        [amb, 'NNP', 'B-LOC'],
      );
      if (r() < 0.5)
        rows.push(
          ['with', 'IN', 'O'],
          [pick(['anna', 'peter']), 'NNP', 'B-PER'],
          [pick(['smith', 'jones']), 'NNP', 'I-PER'],
        );
    }
    out.push(rows.map((row) => row.join(' ')).join('\n'));
  }
  return out.join('\n\n') + '\n';
}

/**
 * tinyNerCorpus text as CoNLL-U: a `# sent_id` comment per sentence, the word as FORM, the POS
 * as XPOS, and the entity tag as UPOS when `entitiesAsUpos` (else UPOS is `_`).
 */
export function asConllu(conll: string, entitiesAsUpos = false): string {
  const sentence = (s: string, k: number): string[] => [
    `# sent_id = ${k + 1}`,
    ...s.split('\n').map((l, i) => {
      const [word, pos, ne] = l.split(' ');
      return [i + 1, word, '_', entitiesAsUpos ? ne : '_', pos, '_', '_', '_', '_', '_'].join('\t');
    }),
  ];
  return (
    conll
      .trim()
      .split('\n\n')
      .map((s, k) => sentence(s, k).join('\n'))
      .join('\n\n') + '\n'
  );
}

export interface FakeCalls {
  trains: number;
  nbests: number;
  rerankerTrains: number;
}

/** Most frequent tag per word; k-best by switching ambiguous words to their other tags. */
export function frequencyTagger(
  calls: FakeCalls,
  hook?: (sentences: PipelineSentence[], ctx: StepContext, dev?: PipelineSentence[]) => void,
): BaseModel {
  return {
    name: 'frequency tagger',
    async train(sentences, ctx, dev) {
      calls.trains++;
      hook?.(sentences, ctx, dev);
      const counts = new Map<string, Map<string, number>>();
      for (const s of sentences) {
        s.tokens.forEach((w, i) => {
          const m = counts.get(w) ?? new Map<string, number>();
          m.set((s.gold as string[])[i], (m.get((s.gold as string[])[i]) ?? 0) + 1);
          counts.set(w, m);
        });
      }
      const dist = (w: string): [string, number][] => {
        const m = counts.get(w);
        if (!m) return [['O', 0]];
        const total = [...m.values()].reduce((a, b) => a + b, 0);
        return [...m.entries()]
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
          .map(([t, c]) => [t, Math.log(c / total)]);
      };
      return {
        async nbest(test, k): Promise<NbestSentence[]> {
          calls.nbests++;
          return test.map((s) => {
            const d = s.tokens.map(dist);
            const best = d.map((x) => x[0][0]);
            const lp = d.reduce((a, x) => a + x[0][1], 0);
            const candidates = [{ tags: best, logprob: lp }];
            d.forEach((x, i) => {
              for (const [tag, l] of x.slice(1)) {
                if (candidates.length >= k) return;
                const tags = [...best];
                tags[i] = tag;
                candidates.push({ tags, logprob: lp - x[0][1] + l });
              }
            });
            return { id: s.id, tokens: s.tokens, candidates, line: 0 };
          });
        },
      };
    },
  };
}

/** F(x) = L(x) + w * (number of (previous word, tag) pairs seen in the oracle candidates of train); w chosen on dev. */
export function contextReranker(calls: FakeCalls): Reranker {
  return {
    name: 'context',
    async train(train: CandidateSet, dev: CandidateSet) {
      calls.rerankerTrains++;
      const seen = new Set<string>();
      train.sentences.forEach((s, i) => {
        const best = train.scores[i].indexOf(Math.max(...train.scores[i]));
        (s.candidates[best].tags as string[]).forEach((t, p) => seen.add(`${p > 0 ? s.tokens[p - 1] : '<s>'}|${t}`));
      });
      const choose = (set: CandidateSet, w: number): number[] =>
        set.sentences.map((s) => {
          let best = 0;
          let bestF = -Infinity;
          s.candidates.forEach((c, j) => {
            let hits = 0;
            (c.tags as string[]).forEach(
              (t, p) => (hits += seen.has(`${p > 0 ? s.tokens[p - 1] : '<s>'}|${t}`) ? 1 : 0),
            );
            const f = c.logprob + w * hits;
            if (f > bestF) {
              bestF = f;
              best = j;
            }
          });
          return best;
        });
      const grid = [0, 0.5, 5];
      const devSet = scoreSet(dev.sentences);
      const curve = grid.map((w) => corpusF1(devSet, choose(dev, w)));
      const w = grid[curve.indexOf(Math.max(...curve))];
      return {
        selected: { w, rounds: w },
        curves: [{ label: 'dev F1', x: grid, y: curve }],
        curveAxis: 'w',
        async choose(set: CandidateSet) {
          return choose(set, w);
        },
      };
    },
  };
}

export function fakeComponents(
  calls: FakeCalls,
  hook?: (sentences: PipelineSentence[], ctx: StepContext, dev?: PipelineSentence[]) => void,
): ComponentFactory {
  return {
    base: () => frequencyTagger(calls, hook),
    reranker: () => contextReranker(calls),
  };
}

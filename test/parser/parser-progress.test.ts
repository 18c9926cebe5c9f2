import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readTreesSync } from '../../lib/io/treebank.js';
import { ChartParserModel, type ParserTrainProgress, type ParserTrainSummary } from '../../lib/parser/chart-parser.js';
import { CRF_DEFAULTS } from '../../lib/options/parser.js';
import { treeWords } from '../../lib/parser/input.js';
import type { TrainProgress } from '../../lib/train-progress.js';
import { repoRoot } from '../helpers.js';

const train = readTreesSync(join(repoRoot, 'data', 'gum-open', 'train.mrg'))
  .filter((t) => treeWords(t).length >= 4 && treeWords(t).length <= 12)
  .slice(0, 60);
// 60 short dev sentences: the dev parses' tests.
const dev = readTreesSync(join(repoRoot, 'data', 'gum-open', 'dev.mrg'))
  .filter((t) => treeWords(t).length >= 4 && treeWords(t).length <= 15)
  .slice(0, 60);

describe('CRF parser training progress inside a pass', () => {
  it('reports sentences done/total rising within each pass, and the run-wide event with them', async () => {
    const own: ParserTrainProgress[] = [];
    const common: TrainProgress[] = [];
    await ChartParserModel.train(
      train,
      { crf: true, epochs: 2, batch: 5, threads: 1, progressEvery: 1, onProgress: (p) => own.push(p) },
      { onProgress: (e) => common.push(e) },
    );
    const sentences = own[0].sentencesPerEpoch;
    expect(sentences).toBe(train.length);
    for (const epoch of [1, 2]) {
      const pass = own.filter((p) => p.epoch === epoch);
      // 12 steps of 5 sentences: an event after each group of steps (chunk 1) at least.
      expect(pass.length).toBeGreaterThanOrEqual(12);
      const inside = pass.filter((p) => p.sentences > 0 && p.sentences < sentences);
      expect(inside.length).toBeGreaterThan(5);
      for (let i = 1; i < pass.length; i++) expect(pass[i].sentences).toBeGreaterThanOrEqual(pass[i - 1].sentences);
      expect(pass[pass.length - 1].sentences).toBe(sentences);
      expect(pass[pass.length - 1].step).toBe(pass[0].stepsPerEpoch);
    }
    // The common event: steps over the run, moved on inside a group by the sentences done.
    const steps = own[0].stepsPerEpoch;
    const crf = common.filter((e) => e.phase === 'step');
    expect(crf.length).toBe(own.length);
    for (const e of crf) expect(e.total).toBe(2 * steps);
    for (let i = 1; i < crf.length; i++) expect(crf[i].done).toBeGreaterThanOrEqual(crf[i - 1].done);
    expect(crf[crf.length - 1].done).toBe(2 * steps);
    expect(crf.some((e) => e.done > 0 && e.done < steps)).toBe(true);
    expect(crf[crf.length - 1].rate).toBeGreaterThan(0);
    expect(crf[crf.length - 1].loss).toBeGreaterThan(0);
  }, 60_000);

  it('reports the dev parse after each pass, and keeping its coarse passes changes no score', async () => {
    const own: ParserTrainProgress[] = [];
    const reports: number[] = [];
    const common: TrainProgress[] = [];
    const passesScored: number[] = [];
    const model = await ChartParserModel.train(
      train,
      {
        crf: true,
        epochs: 2,
        batch: 5,
        threads: 1,
        weightFloor: 0,
        // The CRF alone: the PCFG's weight has its own test below, the head model its own file.
        pcfgWeight: 0,
        headModel: false,
        dev,
        onProgress: (p) => {
          own.push(p);
          passesScored.push(reports.length);
        },
        onPass: (r) => reports.push(r.devF1 ?? Number.NaN),
      },
      { onProgress: (e) => common.push(e) },
    );
    // The run-wide event carries the dev F1 of the last pass scored before it.
    const steps = common.filter((e) => e.phase === 'step');
    expect(steps).toHaveLength(own.length);
    steps.forEach((e, i) => expect(e.devScore).toBe(passesScored[i] > 0 ? reports[passesScored[i] - 1] : undefined));
    expect(passesScored).toContain(1);
    expect(steps[steps.length - 1]).toMatchObject({ devScore: reports[0], devMetric: 'F1' });
    // In chunks of 32 sentences, each report after the pass's last training sentence.
    expect(dev.length).toBeGreaterThan(32);
    const chunks = [32, dev.length];
    for (const epoch of [1, 2]) {
      const parsing = own.filter((p) => p.epoch === epoch && p.devSentences !== undefined);
      expect(parsing.map((p) => p.devSentences)).toEqual(chunks);
      for (const p of parsing) expect([p.devTotal, p.sentences]).toEqual([dev.length, train.length]);
    }
    // The kept pass's dev F1 (the second pass's from coarse passes kept since the first)
    // equals a fresh parse's of the model (no weight floor: the kept pass's weights).
    const { scoreParses } = await import('../../lib/parser/score-parses.js');
    const score = await scoreParses((s, o) => model.parse(s, o), dev, { threads: 1 });
    expect(reports).toHaveLength(2);
    expect(score.f1).toBe(Math.max(...reports));
  }, 60_000);

  it("reports the dev parse that chooses the PCFG's weight after the last pass, and the model parses as it scored", async () => {
    const own: ParserTrainProgress[] = [];
    const common: TrainProgress[] = [];
    const summary: ParserTrainSummary = { surfaceGoldFeatures: 0, surfaceCollisionRate: 0 };
    const model = await ChartParserModel.train(
      train,
      { crf: true, epochs: 1, batch: 5, threads: 1, dev, summary, headModel: false, onProgress: (p) => own.push(p) },
      { onProgress: (e) => common.push(e) },
    );
    const first = own.findIndex((p) => p.pcfgMix === true);
    expect(first).toBeGreaterThan(0);
    // Before it, the latent PCFGs' training reports each EM step, grammar after grammar, as the
    // last pass's event.
    const latent = own.filter((p) => p.latent !== undefined);
    expect(latent.length).toBeGreaterThan(CRF_DEFAULTS.pcfgGrammars);
    expect(own.findIndex((p) => p.latent !== undefined)).toBeLessThan(first);
    expect(own[first - 1].latent).toEqual({
      grammar: CRF_DEFAULTS.pcfgGrammars,
      grammars: CRF_DEFAULTS.pcfgGrammars,
      steps: own[first - 1].latent?.totalSteps,
      totalSteps: expect.any(Number),
    });
    for (const p of latent) expect([p.epoch, p.step]).toEqual([1, own[first - 1].step]);
    const mixing = own.slice(first);
    // After every training event, in chunks of 32 sentences, as the last pass's event.
    expect(mixing.every((p) => p.pcfgMix === true)).toBe(true);
    expect(mixing.map((p) => p.devSentences)).toEqual([32, dev.length]);
    for (const p of mixing) expect([p.epoch, p.step, p.devTotal]).toEqual([1, own[first - 1].step, dev.length]);
    const steps = common.filter((e) => e.phase === 'step');
    expect(steps[steps.length - 1].done).toBe(steps[first - 1].done);
    // Dev chose among the grid; the model parses dev as it scored there.
    expect(summary.pcfgWeightsDev?.map((d) => d.weight)).toEqual([...CRF_DEFAULTS.pcfgWeights]);
    const best = Math.max(...(summary.pcfgWeightsDev ?? []).map((d) => d.f1));
    expect(summary.bestDev?.f1).toBe(best);
    expect(model.info().pcfgWeight).toBe(summary.pcfgWeight);
    const { scoreParses } = await import('../../lib/parser/score-parses.js');
    const score = await scoreParses((s, o) => model.parse(s, o), dev, { threads: 1 });
    expect(score.f1).toBe(best);
    // At weight 0 the dev F1 is the kept pass's.
    expect(summary.pcfgWeightsDev?.[0].f1).toBe(summary.bestDevF1);
  }, 60_000);

  it('L-BFGS: an iteration ends with every sentence done', async () => {
    const own: ParserTrainProgress[] = [];
    await ChartParserModel.train(train, {
      crf: true,
      optimizer: 'lbfgs',
      epochs: 2,
      threads: 1,
      progressEvery: 1,
      onProgress: (p) => own.push(p),
    });
    // (The latent PCFGs' training after the last iteration reports as its continuation.)
    const ends = own.filter((p) => p.step === p.stepsPerEpoch && p.latent === undefined);
    expect(ends.map((p) => p.sentences)).toEqual([train.length, train.length]);
    for (const p of own) expect(p.sentences).toBeLessThanOrEqual(train.length);
  }, 60_000);

  it('rejects a non-positive reporting interval', async () => {
    await expect(ChartParserModel.train(train.slice(0, 5), { crf: true, epochs: 1, progressEvery: 0 })).rejects.toThrow(
      /progressEvery/,
    );
  });
});

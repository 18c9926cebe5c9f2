import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { decodeModel, encodeModel } from '../../lib/io/model-file.js';
import { formatTree, type Tree } from '../../lib/trees/tree.js';
import { ChartParserModel, type ParsedNbest } from '../../lib/parser/chart-parser.js';
import { treeWords } from '../../lib/parser/input.js';
import { ModelFileError } from '../../lib/errors.js';
import { LATENT_MODEL_FEATURES } from '../../lib/parser/nbest-lists.js';
import { parseTree } from '../../lib/trees/bracket-parser.js';
import { tempDir } from '../helpers.js';
import { gumShortTrees } from './gum-short.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const train = gumShortTrees('train.mrg', 150);
const devTrees = gumShortTrees('dev.mrg', 40);
const sentences = devTrees.map((t) => treeWords(t));
const pipelineSentences = devTrees.map((t, i) => ({ id: String(i), tokens: sentences[i], gold: formatTree(t) }));

const shown = (r: ParsedNbest[]): string[][] =>
  r.map((s) => s.candidates.map((c) => `${c.logprob} ${formatTree(c.tree)}`));

// The same CRF (training is deterministic) with its latent PCFGs mixed in at 0.3, and alone.
const mixed = ChartParserModel.train(train, { crf: true, epochs: 1, threads: 1, pcfgWeight: 0.3 });
const alone = ChartParserModel.train(train, { crf: true, epochs: 1, threads: 1, pcfgWeight: 0 });

describe("latent PCFGs' posteriors mixed into the CRF's MBR decoding", () => {
  it('weight 0 parses as the CRF alone; the model parses with its weight; files round-trip', async () => {
    const [m, a] = [await mixed, await alone];
    expect(m.info().pcfgWeight).toBe(0.3);
    expect(m.info().pcfgGrammars).toBe(2);
    expect(a.info().pcfgWeight).toBe(0);
    expect(a.info().pcfgGrammars).toBe(0);
    const own = await m.parseNbest(sentences, 1, { threads: 1 });
    const crfOnly = await a.parseNbest(sentences, 1, { threads: 1 });
    expect(shown(await m.parseNbest(sentences, 1, { threads: 1, pcfgWeight: 0 }))).toEqual(shown(crfOnly));
    // The PCFG moves some tree; each tree keeps its log-probability under the CRF.
    expect(shown(own)).not.toEqual(shown(crfOnly));
    expect(own.every((s) => s.brackets !== undefined && s.brackets.length > 0)).toBe(true);
    // Saved with the PCFGs after the CRF (kind version 4); a CRF alone stays version 1.
    const file = tmp.file('mixed.model');
    m.save(file);
    type Mix = { weight: number; grammars: { meta: object; bytes: number }[] };
    const decoded = decodeModel<{ pcfgMix?: Mix }>(readFileSync(file));
    expect(decoded.kindVersion).toBe(4);
    expect(decoded.meta.pcfgMix?.weight).toBe(0.3);
    expect(decoded.meta.pcfgMix?.grammars.map((g) => g.bytes > 0)).toEqual([true, true]);
    const back = await ChartParserModel.load(file);
    expect(back.info()).toEqual(m.info());
    expect(shown(await back.parseNbest(sentences, 1, { threads: 1 }))).toEqual(shown(own));
    expect(shown(await back.parseNbest(sentences, 4, { threads: 1 }))).toEqual(
      shown(await m.parseNbest(sentences, 4, { threads: 1 })),
    );
    const plain = tmp.file('alone.model');
    a.save(plain);
    expect(decodeModel(readFileSync(plain)).kindVersion).toBe(1);
    // A PCFG length that does not fit the payload is refused with the file's name, and so is a
    // damaged PCFG payload.
    const mix = decoded.meta.pcfgMix as Mix;
    const bad = tmp.file('bad.model');
    const grammars = [mix.grammars[0], { ...mix.grammars[1], bytes: 1e12 }];
    writeFileSync(bad, encodeModel({ ...decoded, meta: { ...decoded.meta, pcfgMix: { ...mix, grammars } } }));
    await expect(ChartParserModel.load(bad)).rejects.toThrow(ModelFileError);
    await expect(ChartParserModel.load(bad)).rejects.toThrow(/bad\.model.*PCFGs' weight or lengths/);
    const damaged = tmp.file('damaged.model');
    const payload = Uint8Array.from(decoded.payload);
    payload[payload.length - mix.grammars[1].bytes + 1] ^= 0xff;
    writeFileSync(damaged, encodeModel({ ...decoded, payload }));
    await expect(ChartParserModel.load(damaged)).rejects.toThrow(/damaged\.model.*PCFG is damaged/);
  }, 120_000);

  it('reads files of one plain PCFG mixed in (kind version 2)', async () => {
    const a = await alone;
    // Such a file: the CRF's payload, then a parent-annotated PCFG's as it is.
    const pcfg = await ChartParserModel.train(train, { markov: 1, parent: true, threads: 1 });
    const [crfFile, pcfgFile] = [tmp.file('v2-crf.model'), tmp.file('v2-pcfg.model')];
    a.save(crfFile);
    pcfg.save(pcfgFile);
    const [crfPart, pcfgPart] = [decodeModel(readFileSync(crfFile)), decodeModel(readFileSync(pcfgFile))];
    const payload = new Uint8Array(crfPart.payload.length + pcfgPart.payload.length);
    payload.set(crfPart.payload);
    payload.set(pcfgPart.payload, crfPart.payload.length);
    const v2 = tmp.file('v2.model');
    const pcfgMix = { weight: 0.3, meta: pcfgPart.meta, bytes: pcfgPart.payload.length };
    writeFileSync(
      v2,
      encodeModel({ ...crfPart, kindVersion: 2, meta: { ...(crfPart.meta as object), pcfgMix }, payload }),
    );
    const back = await ChartParserModel.load(v2);
    expect(back.info().pcfgWeight).toBe(0.3);
    expect(back.info().pcfgGrammars).toBe(1);
    const crfOnly = shown(await a.parseNbest(sentences, 1, { threads: 1 }));
    expect(shown(await back.parseNbest(sentences, 1, { threads: 1, pcfgWeight: 0 }))).toEqual(crfOnly);
    expect(shown(await back.parseNbest(sentences, 1, { threads: 1 }))).not.toEqual(crfOnly);
    // Saved again, it lists its one PCFG (kind version 4) and parses the same.
    const again = tmp.file('v2-again.model');
    back.save(again);
    expect(decodeModel(readFileSync(again)).kindVersion).toBe(4);
    expect(shown(await (await ChartParserModel.load(again)).parseNbest(sentences, 1, { threads: 1 }))).toEqual(
      shown(await back.parseNbest(sentences, 1, { threads: 1 })),
    );
  }, 120_000);

  it("a Viterbi list stays the CRF's; its MBR tree and bracket posteriors come from the mix", async () => {
    const [m, a] = [await mixed, await alone];
    const lists = await m.parseNbest(sentences, 4, { threads: 1, mbrTree: true });
    const own = await m.parse(sentences, { threads: 1 });
    const crfLists = await a.parseNbest(sentences, 4, { threads: 1, mbrTree: true });
    expect(shown(lists)).toEqual(shown(crfLists));
    lists.forEach((l, s) => {
      expect(l.mbrTree && formatTree(l.mbrTree.tree)).toBe(formatTree(own[s].tree));
      expect(l.brackets?.length).toBeGreaterThan(0);
    });
    // An ensemble leaves the PCFG out unless given its weight: of the model with itself, the
    // CRF alone's ensemble; with the weight, the CRFs share the rest.
    const tree = (p: { tree: Tree }): string => formatTree(p.tree);
    const crfEnsemble = (await a.parse(sentences, { threads: 1, ensemble: [a] })).map(tree);
    expect((await m.parse(sentences, { threads: 1, ensemble: [m] })).map(tree)).toEqual(crfEnsemble);
    // (The same mean up to rounding: 0.35 + 0.35 of the CRF's posteriors against 0.7.)
    const doubled = (await m.parse(sentences, { threads: 1, ensemble: [m], pcfgWeight: 0.3 })).map(tree);
    expect(doubled).not.toEqual(crfEnsemble);
    expect(doubled.filter((t, s) => t === tree(own[s])).length).toBeGreaterThanOrEqual(sentences.length - 2);
  }, 120_000);

  it('scores whole trees by the latent PCFGs, and the lists carry that as features', async () => {
    const [m, a] = [await mixed, await alone];
    const lists = await m.parseNbest(sentences, 4, { threads: 1 });
    const trees = lists.flatMap((l) => l.candidates.map((c) => c.tree));
    expect(await a.mixTreeLogProbs(trees)).toHaveLength(0);
    const scores = await m.mixTreeLogProbs(trees, { threads: 2 });
    expect(scores).toHaveLength(trees.length);
    expect(Array.from(scores).every((x) => Number.isFinite(x) && x < 0)).toBe(true);
    // One tree at a time, in another order, and after a round trip: the same figures.
    const reversed = await m.mixTreeLogProbs([...trees].reverse(), { threads: 1 });
    expect(Array.from(reversed).reverse()).toEqual(Array.from(scores));
    expect((await m.mixTreeLogProbs([trees[3]]))[0]).toBe(scores[3]);
    const file = tmp.file('scored.model');
    m.save(file);
    expect(await (await ChartParserModel.load(file)).mixTreeLogProbs(trees)).toEqual(scores);
    // A label neither grammar has: no probability, the others unaffected.
    const alien: Tree = { label: 'ROOT', children: [{ label: 'NOSUCH', children: trees[0].children }] };
    expect(Array.from(await m.mixTreeLogProbs([alien, trees[1]]))).toEqual([Number.NEGATIVE_INFINITY, scores[1]]);

    const ctx = { threads: 1, seed: 1 };
    const withLatent = await m.nbest(pipelineSentences, 4, ctx, { mbr: true, latentModel: true });
    const without = await m.nbest(pipelineSentences, 4, ctx, { mbr: true });
    for (const [s, list] of withLatent.entries()) {
      const logprobs = await m.mixTreeLogProbs(list.candidates.map((c) => parseTree(c.tree!)));
      const best = Math.max(...logprobs);
      list.candidates.forEach((c, i) => {
        const f = c.features ?? {};
        const latent = Object.keys(f).filter((k) => k.startsWith('latent PCFG'));
        const expected = [
          ...(logprobs[i] === best ? [LATENT_MODEL_FEATURES.best] : []),
          ...[0.5, 1, 2, 4, 8, 16]
            .filter((g) => best - logprobs[i] >= g)
            .map((g) => `${LATENT_MODEL_FEATURES.gap} ${g}`),
        ];
        expect(latent.sort()).toEqual(expected.sort());
        // Every other feature is the lists' without the option.
        const rest = Object.fromEntries(Object.entries(f).filter(([k]) => !k.startsWith('latent PCFG')));
        expect(rest).toEqual(without[s].candidates[i].features ?? {});
      });
    }
    await expect(a.nbest(pipelineSentences.slice(0, 1), 4, ctx, { mbr: true, latentModel: true })).rejects.toThrow(
      /no latent PCFGs/,
    );
  }, 120_000);

  it('refuses what it cannot mean', async () => {
    const [m, a] = [await mixed, await alone];
    await expect(a.parse(sentences, { pcfgWeight: 0.2 })).rejects.toThrow(/no PCFG to mix in/);
    await expect(m.parse(sentences, { pcfgWeight: 1 })).rejects.toThrow(/pcfgWeight must be in \[0, 1\)/);
    await expect(m.parse(sentences, { beam: 5 })).rejects.toThrow(/beam/);
    await expect(m.parse(sentences, { pcfg: true, pcfgWeight: 0.2 })).rejects.toThrow(/pcfgWeight applies to CRF/);
    // With the PCFG left out, a beam works as before.
    expect(await m.parse(sentences.slice(0, 3), { beam: 5, pcfgWeight: 0 })).toHaveLength(3);
    await expect(ChartParserModel.train(train.slice(0, 10), { crf: true, epochs: 1, pcfgWeight: 1 })).rejects.toThrow(
      /pcfgWeight/,
    );
  }, 120_000);
});

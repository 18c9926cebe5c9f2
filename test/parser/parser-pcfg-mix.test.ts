import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { decodeModel, encodeModel } from '../../lib/io/model-file.js';
import { formatTree, type Tree } from '../../lib/trees/tree.js';
import { ChartParserModel, type ParsedNbest } from '../../lib/parser/chart-parser.js';
import { treeWords } from '../../lib/parser/input.js';
import { ModelFileError } from '../../lib/errors.js';
import { tempDir } from '../helpers.js';
import { gumShortTrees } from './gum-short.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const train = gumShortTrees('train.mrg', 150);
const sentences = gumShortTrees('dev.mrg', 40).map((t) => treeWords(t));

const shown = (r: ParsedNbest[]): string[][] =>
  r.map((s) => s.candidates.map((c) => `${c.logprob} ${formatTree(c.tree)}`));

// The same CRF (training is deterministic) with the PCFG mixed in at 0.3, and alone.
const mixed = ChartParserModel.train(train, { crf: true, epochs: 1, threads: 1, pcfgWeight: 0.3 });
const alone = ChartParserModel.train(train, { crf: true, epochs: 1, threads: 1, pcfgWeight: 0 });

describe("a PCFG's posteriors mixed into the CRF's MBR decoding", () => {
  it('weight 0 parses as the CRF alone; the model parses with its weight; files round-trip', async () => {
    const [m, a] = [await mixed, await alone];
    expect(m.info().pcfgWeight).toBe(0.3);
    expect(a.info().pcfgWeight).toBe(0);
    const own = await m.parseNbest(sentences, 1, { threads: 1 });
    const crfOnly = await a.parseNbest(sentences, 1, { threads: 1 });
    expect(shown(await m.parseNbest(sentences, 1, { threads: 1, pcfgWeight: 0 }))).toEqual(shown(crfOnly));
    // The PCFG moves some tree; each tree keeps its log-probability under the CRF.
    expect(shown(own)).not.toEqual(shown(crfOnly));
    expect(own.every((s) => s.brackets !== undefined && s.brackets.length > 0)).toBe(true);
    // Saved with the PCFG after the CRF (kind version 2); a CRF alone stays version 1.
    const file = tmp.file('mixed.model');
    m.save(file);
    const decoded = decodeModel<{ pcfgMix?: { weight: number; bytes: number } }>(readFileSync(file));
    expect(decoded.kindVersion).toBe(2);
    expect(decoded.meta.pcfgMix?.weight).toBe(0.3);
    expect(decoded.meta.pcfgMix?.bytes).toBeGreaterThan(0);
    const back = await ChartParserModel.load(file);
    expect(back.info()).toEqual(m.info());
    expect(shown(await back.parseNbest(sentences, 1, { threads: 1 }))).toEqual(shown(own));
    expect(shown(await back.parseNbest(sentences, 4, { threads: 1 }))).toEqual(
      shown(await m.parseNbest(sentences, 4, { threads: 1 })),
    );
    const plain = tmp.file('alone.model');
    a.save(plain);
    expect(decodeModel(readFileSync(plain)).kindVersion).toBe(1);
    // A PCFG length that does not fit the payload is refused with the file's name.
    const bad = tmp.file('bad.model');
    writeFileSync(
      bad,
      encodeModel({ ...decoded, meta: { ...decoded.meta, pcfgMix: { ...decoded.meta.pcfgMix, bytes: 1e12 } } }),
    );
    await expect(ChartParserModel.load(bad)).rejects.toThrow(ModelFileError);
    await expect(ChartParserModel.load(bad)).rejects.toThrow(/bad\.model.*PCFG's weight or length/);
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

import { z } from 'zod';
import { defineCommand } from './command.js';
import { option } from '../options/field.js';
import { optionalFile, requiredFile } from '../options/common.js';
import { CRF_ONLY_PARSE_FIELDS, parseFields } from '../options/parser.js';
import { shardFields } from '../options/distributed.js';
import { UsageError } from '../errors.js';
import { ChartParserModel, chartModelIsCrf } from '../parser/chart-parser.js';
import { withRootOf } from '../trees/transforms.js';
import { readParserInput } from '../parser/input.js';
import { Progress } from '../progress.js';
import { resolveThreads } from '../native.js';
import { formatTree, type Tree } from '../trees/tree.js';
import { KBEST_POOL_FACTOR, MAX_NBEST, kbestPoolSize, writeNbest, type NbestSentence } from '../io/nbest.js';
import { KBEST_TAG_MODES, selectKbest } from '../trees/kbest-modes.js';
import { writeTextAtomic } from '../io/atomic-writer.js';
import { claimOutputs } from './claim.js';
import { firstGivenFlag } from './options.js';
import { cliSignal } from './signal.js';

const command = defineCommand({
  description: `Parses a treebank's words (gold tags and brackets are ignored) or tokenized text, one
sentence per line. Writes one tree per input sentence, in order, with exactly the input's
words; with --nbest, also the K best parses of each sentence (exact k-best) as n-best JSON
Lines: {"id","tokens","candidates":[{"tree","logprob"}],"gold"?}.`,
  options: {
    model: requiredFile('model from train-parser', 'M'),
    input: requiredFile('bracketed trees (their words are parsed) or tokenized text, one sentence per line'),
    out: option(
      z.string().min(1).default('-'),
      "one tree per input sentence, in order, with exactly the input's words (- = standard output)",
      { value: 'F' },
    ),
    nbest: option(z.number().int().min(1).optional(), 'also write the K best parses of each sentence (exact k-best)', {
      value: 'K',
    }),
    outNbest: optionalFile('JSON Lines n-best file (needs --nbest)', 'F.jsonl'),
    kbestTags: option(
      z.enum(KBEST_TAG_MODES).default('all'),
      "which K-best list: 'all' (the K best trees), 'max' (K distinct bracketings, each with its best tags), 'sum' (K distinct bracketings, their tag variants summed), 'fixed' (the K best trees with the 1-best tags)",
      { value: 'all|max|sum|fixed' },
    ),
    kbestPool: option(
      z.number().int().min(1).max(MAX_NBEST).optional(),
      `trees parsed per sentence before --kbest-tags keeps K of them (default K for 'all', else ${KBEST_POOL_FACTOR} K, at most ${MAX_NBEST})`,
      { value: 'P' },
    ),
    ensemble: option(
      z.array(z.string().min(1)).min(1).optional(),
      "CRF models trained on the same treebank: each sentence's tree is the MBR tree of the mean of their posteriors and --model's; with --nbest, the K trees of most expected correct brackets under that mean",
      { value: 'M[,M...]' },
    ),
    ...parseFields,
    ...shardFields,
  },
  examples: [
    'structrank parse --model pcfg.model --input test.mrg --out test.parsed',
    'structrank parse --model crf.model --input test.mrg --out test.parsed --nbest 50 --out-nbest test.nbest.jsonl',
    'structrank parse --model crf.model --input big.txt --out big.parsed --redis redis://queue-host:6379 --store /mnt/shared/store',
    'structrank parse --model crf.model --ensemble crf-markov1.model --input test.mrg --out test.parsed',
  ],
  async run(values, { given }) {
    const ensembleFiles = Object.fromEntries((values.ensemble ?? []).map((file, i) => [`--ensemble[${i + 1}]`, file]));
    claimOutputs(
      'parse',
      { '--model': values.model, '--input': values.input, ...ensembleFiles },
      { '--out': values.out, '--out-nbest': values.outNbest },
    );
    if (values.ensemble !== undefined && values.redis !== undefined)
      throw new UsageError('parse: --ensemble parses in this process (no --redis)');
    // --redis/--store: sentence shards on a queue (lib/distributed/shards.ts, docs/scaling.md).
    const sharded = values.redis !== undefined || values.store !== undefined;
    const shards = sharded ? await import('../distributed/shards.js') : undefined;
    shards?.queueOptions('parse', values);
    if (!sharded && given.has('--shard-size')) throw new UsageError('parse: --shard-size needs --redis and --store');
    const { model: modelFile, input: inputFile, out: outFile, beam, maxLength, prune } = values;
    const k = values.nbest ?? 1;
    if (k > MAX_NBEST) throw new UsageError(`parse: --nbest is at most ${MAX_NBEST}, not ${k}`);
    if (values.nbest !== undefined && values.outNbest === undefined)
      throw new UsageError('parse: --nbest needs --out-nbest F');
    if (values.outNbest !== undefined && values.nbest === undefined)
      throw new UsageError('parse: --out-nbest needs --nbest K');
    if ((given.has('--kbest-tags') || given.has('--kbest-pool')) && values.nbest === undefined)
      throw new UsageError('parse: --kbest-tags and --kbest-pool need --nbest K');
    const signal = cliSignal(); // before the model loads: Ctrl-C from the start stops cleanly
    // The CRF's parse options, given for PCFG parsing, would be ignored: refused instead (a
    // sharded run too, before any job is queued).
    const refuseCrfOnly = (crfModel: boolean): void => {
      if (!values.pcfg && crfModel) return;
      const crfOnly = firstGivenFlag(parseFields, given, CRF_ONLY_PARSE_FIELDS);
      const why = values.pcfg ? '--pcfg parses with the PCFG' : `${modelFile} is a PCFG model`;
      if (crfOnly !== undefined) throw new UsageError(`parse: ${crfOnly} applies to CRF parsing (${why})`);
    };
    // A sharded run's coordinator reads the model's metadata only: the workers parse.
    if (shards) {
      refuseCrfOnly(await chartModelIsCrf(modelFile));
      return shards.runSharded('parse', values, signal);
    }
    const model = await ChartParserModel.load(modelFile);
    refuseCrfOnly(model.info().crf);
    const mode = values.kbestTags;
    const pool = kbestPoolSize(k, mode, values.kbestPool);
    const threads = resolveThreads(values.threads);
    const ensemble = await Promise.all((values.ensemble ?? []).map((file) => ChartParserModel.load(file)));
    // --out holds the 1-best of the model's decoding whether or not lists are asked for; an MBR
    // 1-best beside the lists comes from their chart (a PCFG's: its best tree).
    const mbrOut = values.outNbest !== undefined && (values.decode ?? model.decode) === 'mbr';
    const input = readParserInput(inputFile);
    const n = input.sentences.length;
    const progress = new Progress({ label: 'parse', total: n, unit: 'sentences' });
    const trees: string[] = new Array(n);
    const nbestOut: NbestSentence[] = [];
    const chunk = Math.max(threads * 4, 16);
    let fallbacks = 0;
    let tooLong = 0;
    for (let start = 0; start < n; start += chunk) {
      const end = Math.min(n, start + chunk);
      const sentences = input.sentences.slice(start, end);
      const options = {
        threads,
        pcfg: values.pcfg,
        beam,
        maxLength,
        signal,
        ...(prune !== undefined ? { prune } : {}),
        ...(values.decode !== undefined ? { decode: values.decode } : {}),
        ...(values.retry !== undefined ? { pruneRetry: values.retry === 'pruned' } : {}),
        ...(values.pcfgWeight !== undefined ? { pcfgWeight: values.pcfgWeight } : {}),
        ...(values.headModel === false ? { headModel: false } : {}),
        ...(ensemble.length > 0 ? { ensemble } : {}),
        ...(mbrOut ? { mbrTree: true } : {}),
      };
      // Beside lists, a model that rescores its MBR tree takes its 1-best from its own candidates:
      // the list's parse goes as deep as the rescoring's pool (a pool of 1 is already rescored).
      const depth = values.outNbest && mbrOut && pool > 1 ? model.rescoringPool(options) : 0;
      const results = await model.parseNbest(sentences, values.outNbest ? Math.max(pool, depth) : 1, options);
      results.forEach((r, off) => {
        const s = start + off;
        const shape = (t: Tree): Tree => (input.shapes ? withRootOf(t, input.shapes[s]) : t);
        const best = (depth > 0 ? model.rescoredBest(r) : (r.mbrTree ?? r.candidates[0])).tree;
        if (maxLength > 0 && sentences[off].length > maxLength) tooLong++;
        else if (r.fallback) fallbacks++;
        trees[s] = formatTree(shape(best));
        if (values.outNbest) {
          const entry: NbestSentence = {
            id: input.ids[s],
            line: 0,
            tokens: input.sentences[s],
            candidates: selectKbest(r.candidates.slice(0, pool), k, mode).map((c) => ({
              tree: formatTree(shape(c.tree)),
              logprob: c.logprob,
            })),
          };
          if (input.gold) entry.gold = formatTree(input.gold[s]);
          nbestOut.push(entry);
        }
      });
      progress.update(end);
    }
    progress.finish();
    await writeTextAtomic(
      outFile,
      trees.map((t) => t + '\n'),
    );
    if (values.outNbest) await writeNbest(values.outNbest, nbestOut);
    if (fallbacks > 0)
      console.error(
        `parse: ${fallbacks} sentence(s) not covered by the grammar got the flat fallback (X over the best tags)`,
      );
    if (tooLong > 0)
      console.error(
        `parse: ${tooLong} sentence(s) longer than --max-length ${maxLength} words got the flat fallback (X over the best tags)`,
      );
  },
});
export default command;

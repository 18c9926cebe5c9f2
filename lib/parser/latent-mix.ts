/**
 * The latent-annotation PCFGs a CRF parser mixes into its MBR decoding
 * (native/chart/latent_pcfg.h): each trained by split-merge EM from a plain PCFG of the same
 * trees, with its own seed, in steps that report progress and stop on cancellation.
 */
import { resolveThreads, withCancelFlag, type CancelFlagHandle } from '../native.js';
import { LATENT_PCFG_SETTINGS } from '../options/parser.js';

/** The native side of a plain PCFG built from training trees, as the latent training needs it. */
export interface NativeLatentBase<Parser> {
  startLatent(
    options: Record<
      'cycles' | 'iterations' | 'merge' | 'smoothing' | 'lexPrior' | 'wordMin' | 'noise' | 'seed' | 'threads',
      number
    >,
  ): number;
  latentSteps(
    steps: number,
    flag: CancelFlagHandle,
  ): Promise<{ steps: number; totalSteps: number; logLikelihood: number }>;
  latentModel(): Promise<{ parser: Parser; symbolOf: Int32Array }>;
}

/** Where the latent training is: grammar `grammar` of `grammars` (from 1), its EM steps done of `totalSteps`. */
export interface LatentProgress {
  grammar: number;
  grammars: number;
  steps: number;
  totalSteps: number;
}

/** One trained latent PCFG: its native parser and each base symbol's number of subsymbols. */
export interface LatentGrammar<Parser> {
  parser: Parser;
  subs: number[];
}

/**
 * `grammars` latent PCFGs of `cycles` split-merge cycles over `base`'s grammar, seeds 1, 2, ...;
 * `report` after every step and grammar.
 */
export async function trainLatentGrammars<Parser>(
  base: NativeLatentBase<Parser>,
  numSymbols: number,
  options: {
    grammars: number;
    cycles: number;
    threads?: number;
    signal?: AbortSignal;
    report?: (p: LatentProgress) => void;
  },
): Promise<LatentGrammar<Parser>[]> {
  const out: LatentGrammar<Parser>[] = [];
  for (let g = 1; g <= options.grammars; g++) {
    let totalSteps = base.startLatent({
      ...LATENT_PCFG_SETTINGS,
      cycles: options.cycles,
      seed: g,
      threads: resolveThreads(options.threads),
    });
    let steps = 0;
    options.report?.({ grammar: g, grammars: options.grammars, steps, totalSteps });
    while (steps < totalSteps) {
      // A grammar at its subsymbol budget ends early: the total falls to the steps done.
      ({ steps, totalSteps } = await withCancelFlag(options.signal, (flag) => base.latentSteps(1, flag)));
      options.report?.({ grammar: g, grammars: options.grammars, steps, totalSteps });
    }
    const { parser, symbolOf } = await base.latentModel();
    const subs = new Array<number>(numSymbols).fill(0);
    for (const s of symbolOf) subs[s]++;
    out.push({ parser, subs });
  }
  return out;
}

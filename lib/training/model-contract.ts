/**
 * What a trained model offers the reranking pipeline (lib/pipeline): a base model produces
 * n-best lists of sentences (`NbestProducer`: the chart parser, the tagger); a trained
 * reranker reports the settings it chose on dev and chooses one candidate per sentence
 * (`TrainedReranker`: the linear rerankers, the kernel perceptron). Declared below the model
 * families so that their classes implement them; the pipeline's own interfaces (which base
 * model or reranker a config asks for) are in lib/pipeline/components.ts.
 */
import type { NbestSentence } from '../io/nbest.js';

/** One sentence of the data: its words and its gold analysis. */
export interface PipelineSentence {
  id: string;
  /** The words the base model sees (parse: overt words, no -NONE-). */
  tokens: string[];
  /** Parse: the gold tree as a bracketed string; tag: one gold tag per token. */
  gold: string | string[];
  /** Tag: the CoNLL rows (every column, label included). */
  rows?: string[][];
}

/** What a pipeline step gives the model it trains or runs. */
export interface StepContext {
  signal?: AbortSignal;
  /** Worker threads (0 = all cores). */
  threads: number;
  seed: number;
  /** Progress: a label, items done and the total (drawn on stderr by the CLI). */
  progress?: (label: string, done: number, total: number, status?: string) => void;
  /** One line of what is going on. */
  log?: (line: string) => void;
  /**
   * Where the trainer labelled `label` keeps its training checkpoint (lib/io/checkpoint.ts),
   * and the one to resume from when it exists. A distributed job keeps them in the artifact
   * store, so a job retried after its worker died continues where that one stopped.
   */
  checkpoints?: (label: string) => { checkpoint: string; resume?: string };
}

/** A trained base model. */
export interface NbestProducer {
  /** The k best candidates of each sentence, best first, each with L(x) (the gold is copied in). */
  nbest(sentences: PipelineSentence[], k: number, ctx: StepContext): Promise<NbestSentence[]>;
  /**
   * Optional: the k-best lists together with other forms of them from the same model (e.g. the
   * parser's k-best modes), which the candidate step writes beside the main file as
   * `<file>.<name>.jsonl` for comparison. When present it is used instead of `nbest`.
   */
  nbestVariants?(
    sentences: PipelineSentence[],
    k: number,
    ctx: StepContext,
  ): Promise<{ main: NbestSentence[]; variants: Record<string, NbestSentence[]> }>;
}

/** N-best lists with Score(x) of every candidate (the per-sentence Score, docs/pipeline.md). */
export interface CandidateSet {
  sentences: NbestSentence[];
  /** scores[i][j] = Score(x_{i,j}) against the gold. */
  scores: number[][];
}

/** A dev learning curve: summed dev Score (or dev F1) against a hyper-parameter, e.g. rounds. */
export interface Curve {
  /** What the series is, e.g. `eps=0.0025`. */
  label: string;
  x: number[];
  y: number[];
}

/** A reranker trained on candidate sets, its hyper-parameters chosen on dev. */
export interface TrainedReranker {
  /** The hyper-parameters chosen on dev, e.g. {eps: 0.0025, rounds: 4000}. */
  selected: Record<string, number | string>;
  /** Dev learning curves (boosting: dev score against rounds, one per eps). */
  curves?: Curve[];
  /** Name of the x axis of the curves (e.g. 'rounds'). */
  curveAxis?: string;
  /** The candidate index chosen in every sentence. */
  choose(set: CandidateSet, ctx: StepContext): Promise<number[]>;
  /** Optional: every candidate's score, per sentence (`choose` takes each sentence's highest). */
  score?(set: CandidateSet, ctx: StepContext): Promise<number[][]>;
}

/**
 * The small interfaces the pipeline runs against. A base model is trained on sentences and
 * produces n-best lists; a reranker is trained on jackknifed candidates, picks its
 * hyper-parameters on dev candidates and then chooses one candidate per sentence. What the
 * trained models implement (NbestProducer, TrainedReranker and the data they take) is
 * declared below the model families, in lib/training/model-contract.ts; the adapters in
 * lib/pipeline/adapters/ read a config's entry, train the model and return it.
 */
import type {
  CandidateSet,
  NbestProducer,
  PipelineSentence,
  StepContext,
  TrainedReranker,
} from '../training/model-contract.js';
import type { PipelineConfig, RerankerConfig } from './config.js';

export type {
  CandidateSet,
  Curve,
  NbestProducer,
  PipelineSentence,
  StepContext,
  TrainedReranker,
} from '../training/model-contract.js';

/** Trains the base model of a config. */
export interface BaseModel {
  readonly name: string;
  /** Trains a fresh model on the sentences; `dev` may choose when its training stops. */
  train(sentences: PipelineSentence[], ctx: StepContext, dev?: PipelineSentence[]): Promise<NbestProducer>;
}

/** Trains the reranker of a config's entry. */
export interface Reranker {
  readonly name: string;
  /** Trains on the (jackknifed) training candidates, choosing hyper-parameters on dev. */
  train(train: CandidateSet, dev: CandidateSet, ctx: StepContext): Promise<TrainedReranker>;
}

/** Builds the components a config asks for (the real adapters by default). */
export interface ComponentFactory {
  base(config: PipelineConfig): BaseModel;
  reranker(config: RerankerConfig & { name: string }, pipeline: PipelineConfig): Reranker;
}

/** Raised when a component the config asks for is not part of this build yet. */
export class ComponentUnavailable extends Error {
  constructor(
    readonly component: string,
    readonly step: string,
    readonly why: string,
  ) {
    super(`${step}: ${component} is not available yet (${why})`);
    this.name = 'ComponentUnavailable';
  }
}

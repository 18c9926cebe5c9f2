// N-API layer of the chart parser: build a PCFG from encoded trees, train the CRF in
// steps (each a Promise, so TypeScript reports progress and can abort between and
// within steps), parse with k-best output as flat typed arrays, serialize / deserialize.
#include <napi.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "binding/async.h"
#include "binding/cancel_flag.h"
#include "binding/convert.h"
#include "binding/options.h"
#include "binding/registry.h"
#include "chart/chart_model.h"
#include "chart/crf_train.h"
#include "chart/ensemble.h"
#include "chart/latent_pcfg.h"
#include "chart/latent_tree_score.h"

namespace structrank::binding {

namespace {

Corpus CorpusFrom(Napi::Env env, const Napi::Value& text, const Napi::Value& offsets) {
  Expect(text.IsString(), env, "tokens as a newline-joined string");
  Expect(offsets.IsTypedArray(), env, "token offsets as an Int32Array");
  Corpus c;
  c.offsets = ToVector<int32_t>(offsets.As<Napi::Int32Array>());
  std::string all = text.As<Napi::String>().Utf8Value();
  size_t start = 0;
  if (!all.empty() || (!c.offsets.empty() && c.offsets.back() > 0)) {
    while (true) {
      size_t nl = all.find('\n', start);
      c.tokens.push_back(all.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  }
  if (c.offsets.empty() || c.offsets[0] != 0 || c.offsets.back() != static_cast<int32_t>(c.tokens.size()))
    throw Napi::TypeError::New(env, "token offsets do not match the tokens");
  for (size_t s = 1; s < c.offsets.size(); ++s)
    if (c.offsets[s] < c.offsets[s - 1]) throw Napi::TypeError::New(env, "token offsets must not decrease");
  return c;
}

class ChartParser : public ErrorMappingWrap<ChartParser> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function cls =
        DefineClass(env, "ChartParser",
                    {StaticMethod("buildPcfg", &ChartParser::BuildPcfg),
                     StaticMethod("deserialize", &ChartParser::Deserialize),
                     InstanceMethod("startCrf", &ChartParser::StartCrf),
                     InstanceMethod("startLatent", &ChartParser::StartLatent),
                     InstanceMethod("latentSteps", &ChartParser::LatentSteps),
                     InstanceMethod("latentModel", &ChartParser::LatentModel),
                     InstanceMethod("crfSteps", &ChartParser::CrfSteps),
                     InstanceMethod("crfProgress", &ChartParser::CrfProgress),
                     InstanceMethod("crfState", &ChartParser::CrfState),
                     InstanceMethod("loadCrfState", &ChartParser::LoadCrfState),
                     InstanceMethod("crfAverage", &ChartParser::CrfAverage),
                     InstanceMethod("keepCoarseMasks", &ChartParser::KeepCoarseMasks),
                     InstanceMethod("endTraining", &ChartParser::EndTraining),
                     InstanceMethod("crfWeights", &ChartParser::CrfWeights),
                     InstanceMethod("setCrfWeights", &ChartParser::SetCrfWeights),
                     InstanceMethod("crfShardGradient", &ChartParser::CrfShardGradient),
                     InstanceMethod("parse", &ChartParser::Parse),
                     InstanceMethod("parseEnsemble", &ChartParser::ParseEnsemble),
                     InstanceMethod("parseEnsembleMixes", &ChartParser::ParseEnsembleMixes),
                     InstanceMethod("parseEnsembleWithViterbi", &ChartParser::ParseEnsembleWithViterbi),
                     InstanceMethod("treeLogProbs", &ChartParser::TreeLogProbs),
                     InstanceMethod("serialize", &ChartParser::Serialize),
                     InstanceMethod("info", &ChartParser::Info)});
    SaveConstructor(env, "ChartParser", cls);
    exports.Set("ChartParser", cls);
  }

  explicit ChartParser(const Napi::CallbackInfo& info) : ErrorMappingWrap<ChartParser>(info) {}

 private:
  static Napi::Object Wrap(Napi::Env env, std::shared_ptr<ChartModel> model) {
    Napi::Object obj = GetConstructor(env, "ChartParser").New({});
    Unwrap(obj)->model_ = std::move(model);
    return obj;
  }

  static std::vector<std::string> SplitLines(const std::string& all) {
    std::vector<std::string> out;
    if (all.empty()) return out;
    size_t start = 0;
    while (true) {
      size_t nl = all.find('\n', start);
      out.push_back(all.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
    return out;
  }

  // buildPcfg({isTag, base, numBases, relaxGroup?, isVerb?}, tokens, tokenOffsets, pairs, treeOffsets,
  //   rareThreshold, {relax?, relaxWeight?, clusterWords?, clusterIds?}?)
  static Napi::Value BuildPcfg(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 6 && info[0].IsObject(), env,
           "buildPcfg(symbols, tokens, offsets, pairs, treeOffsets, rare)");
    Napi::Object sym = info[0].As<Napi::Object>();
    SymbolInfo symbols;
    Expect(
        sym.Get("isTag").IsTypedArray() && sym.Get("base").IsTypedArray() && sym.Get("numBases").IsNumber(),
        env, "symbols {isTag: Uint8Array, base: Int32Array, numBases}");
    symbols.is_tag = ToVector<uint8_t>(sym.Get("isTag").As<Napi::Uint8Array>());
    symbols.base = ToVector<int32_t>(sym.Get("base").As<Napi::Int32Array>());
    symbols.num_bases = sym.Get("numBases").As<Napi::Number>().Int32Value();
    if (sym.Get("relaxGroup").IsTypedArray())
      symbols.relax_group = ToVector<int32_t>(sym.Get("relaxGroup").As<Napi::Int32Array>());
    if (sym.Get("isVerb").IsTypedArray())
      symbols.is_verb = ToVector<uint8_t>(sym.Get("isVerb").As<Napi::Uint8Array>());
    Corpus corpus = CorpusFrom(env, info[1], info[2]);
    Expect(info[3].IsTypedArray() && info[4].IsTypedArray() && info[5].IsNumber(), env,
           "pairs, treeOffsets, rareThreshold");
    std::vector<int32_t> pairs = ToVector<int32_t>(info[3].As<Napi::Int32Array>());
    std::vector<int32_t> tree_offsets = ToVector<int32_t>(info[4].As<Napi::Int32Array>());
    PcfgOptions options;
    options.rare_threshold = info[5].As<Napi::Number>().Int32Value();
    Expect(info.Length() > 6 && info[6].IsObject(), env,
           "grammar options {relax, relaxWeight, shapeBackoff, clusterWords?, clusterIds?}");
    {
      Napi::Object o = info[6].As<Napi::Object>();
      options.relax = RequiredInt(o, "relax") != 0;
      options.relax_weight = RequiredDouble(o, "relaxWeight");
      options.shape_backoff = RequiredDouble(o, "shapeBackoff");
      if (!(options.shape_backoff >= 0)) throw InputError("chart grammar: the shape back-off must be >= 0");
      // Optional by meaning: without them the grammar has no word clusters.
      if (o.Get("clusterWords").IsString() && o.Get("clusterIds").IsString()) {
        options.cluster_words = SplitLines(o.Get("clusterWords").As<Napi::String>().Utf8Value());
        options.cluster_ids = SplitLines(o.Get("clusterIds").As<Napi::String>().Utf8Value());
      }
    }
    auto state = std::make_shared<Training>();
    std::shared_ptr<ChartModel> model =
        ChartModel::BuildPcfg(symbols, corpus, pairs, tree_offsets, options, &state->gold);
    state->corpus = std::move(corpus);
    Napi::Object obj = Wrap(env, model);
    Unwrap(obj)->training_ = state;
    return obj;
  }

  // startLatent({cycles, iterations, merge, smoothing, lexPrior, wordMin, noise, seed, threads}) -> total
  // steps: a latent-annotation PCFG of this PCFG's grammar (chart/latent_pcfg.h), to train on its trees.
  Napi::Value StartLatent(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!training_) throw Napi::Error::New(env, "this parser has no training data (build it with buildPcfg)");
    Expect(info.Length() > 0 && info[0].IsObject(), env, "latent PCFG options");
    Napi::Object o = info[0].As<Napi::Object>();
    LatentOptions opt;
    opt.cycles = RequiredInt(o, "cycles");
    opt.iterations = RequiredInt(o, "iterations");
    opt.merge = RequiredDouble(o, "merge");
    opt.smoothing = RequiredDouble(o, "smoothing");
    opt.lex_prior = RequiredDouble(o, "lexPrior");
    opt.word_min = RequiredInt(o, "wordMin");
    opt.noise = RequiredDouble(o, "noise");
    opt.seed = static_cast<uint64_t>(RequiredInt(o, "seed"));
    opt.threads = RequiredInt(o, "threads");
    training_->latent = std::make_shared<LatentPcfgTrainer>(*model_, training_->corpus, training_->gold, opt);
    return Napi::Number::New(env, training_->latent->total_steps());
  }

  // latentSteps(steps, cancelFlag?) -> Promise<{steps, totalSteps, logLikelihood}>: steps done so
  // far, of totalSteps (which falls when the subsymbol budget ends the training early).
  Napi::Value LatentSteps(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!training_ || !training_->latent) throw Napi::Error::New(env, "call startLatent first");
    Expect(info.Length() >= 1 && info[0].IsNumber(), env, "a step count");
    const int steps = info[0].As<Napi::Number>().Int32Value();
    auto cancel = CancelFlag::From(info.Length() > 1 ? info[1] : env.Undefined());
    auto trainer = training_->latent;
    auto model = model_;  // the trainer reads it while the job runs
    auto result = std::make_shared<double>(0);
    return RunAsync(
        env, [trainer, model, steps, cancel, result] { *result = trainer->Steps(steps, cancel.get()); },
        [trainer, result](Napi::Env e) -> Napi::Value {
          Napi::Object out = Napi::Object::New(e);
          out.Set("steps", Napi::Number::New(e, trainer->steps_done()));
          out.Set("totalSteps", Napi::Number::New(e, trainer->total_steps()));
          out.Set("logLikelihood", Napi::Number::New(e, *result));
          return out;
        });
  }

  // latentModel() -> Promise<{parser, symbolOf}>: the latent PCFG trained so far; symbolOf maps
  // each of its symbols to this grammar's.
  Napi::Value LatentModel(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!training_ || !training_->latent) throw Napi::Error::New(env, "call startLatent first");
    auto trainer = training_->latent;
    auto model = model_;
    auto latent = std::make_shared<std::shared_ptr<ChartModel>>();
    return RunAsync(
        env, [trainer, model, latent] { *latent = trainer->Build(); },
        [latent](Napi::Env e) -> Napi::Value {
          Napi::Object out = Napi::Object::New(e);
          const std::vector<int32_t>& symbol_of = (*latent)->latent->symbol_of;
          Napi::Int32Array ids = Napi::Int32Array::New(e, symbol_of.size());
          std::copy(symbol_of.begin(), symbol_of.end(), ids.Data());
          out.Set("symbolOf", ids);
          out.Set("parser", Wrap(e, *latent));
          return out;
        });
  }

  static Napi::Value Deserialize(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 1 && info[0].IsTypedArray(), env, "a Uint8Array");
    Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
    std::shared_ptr<ChartModel> model =
        ReadingModelPayload([&] { return ChartModel::Deserialize(bytes.Data(), bytes.ElementLength()); });
    return Wrap(env, model);
  }

  // startCrf({batch, eta0, tau, sigma2, beam, threads, seed, priorAtPcfg, featureCacheMB, prune,
  //           adagrad, average, margin, surfaceBits, verbFeatures, tagSets}): every field given
  //           (lib/options/parser.ts).
  Napi::Value StartCrf(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!training_) throw Napi::Error::New(env, "this parser has no training data (build it with buildPcfg)");
    Expect(info.Length() > 0 && info[0].IsObject(), env, "CRF training options");
    Napi::Object o = info[0].As<Napi::Object>();
    CrfTrainOptions opt;
    opt.batch = RequiredInt(o, "batch");
    opt.eta0 = RequiredDouble(o, "eta0");
    opt.tau = RequiredDouble(o, "tau");
    opt.sigma2 = RequiredDouble(o, "sigma2");
    opt.beam = RequiredDouble(o, "beam");
    opt.threads = RequiredThreads(o);
    opt.seed = static_cast<uint64_t>(RequiredInt64(o, "seed"));
    opt.prior_at_pcfg = RequiredInt(o, "priorAtPcfg") != 0;
    opt.feature_cache_mb = RequiredDouble(o, "featureCacheMB");
    opt.prune = RequiredDouble(o, "prune");
    opt.adagrad = RequiredInt(o, "adagrad") != 0;
    opt.average = RequiredInt(o, "average") != 0;
    opt.margin = RequiredDouble(o, "margin");
    if (!(opt.margin >= 0 && std::isfinite(opt.margin)))
      throw Napi::RangeError::New(env, "margin must be >= 0");
    const int verb_features = RequiredInt(o, "verbFeatures");
    const int tag_sets = RequiredInt(o, "tagSets");
    const int surface_bits = RequiredInt(o, "surfaceBits");
    if (surface_bits < 0 || surface_bits > 30)
      throw Napi::RangeError::New(env, "surfaceBits must be in 0..30");
    if (!(opt.prune >= 0 && opt.prune < 1)) throw Napi::RangeError::New(env, "prune must be in [0, 1)");
    InitCrf(*model_, training_->corpus, training_->gold, verb_features != 0, surface_bits, tag_sets != 0);
    training_->trainer = std::make_shared<CrfTrainer>(*model_, training_->corpus, training_->gold, opt);
    Napi::Object out = Napi::Object::New(env);
    out.Set("weights", Napi::Number::New(env, static_cast<double>(model_->crf.theta.size())));
    out.Set("sparseFeatures", Napi::Number::New(env, static_cast<double>(model_->crf.sparse.size())));
    out.Set("surfaceGoldFeatures",
            Napi::Number::New(env, static_cast<double>(model_->crf.surface_gold_features)));
    out.Set("surfaceCollisionRate", Napi::Number::New(env, model_->crf.surface_collision_rate));
    return out;
  }

  // crfAverage('reset' | 'swap'): iterate averaging (startCrf's `average`): restart the mean
  // of the iterates, or exchange the weights with it (swap again to continue training).
  Napi::Value CrfAverage(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!training_ || !training_->trainer) throw Napi::Error::New(env, "call startCrf first");
    Expect(info.Length() >= 1 && info[0].IsString(), env, "'reset' or 'swap'");
    const std::string op = info[0].As<Napi::String>().Utf8Value();
    if (op == "reset")
      training_->trainer->ResetAverage();
    else if (op == "swap")
      training_->trainer->SwapAverage();
    else
      throw Napi::RangeError::New(env, "crfAverage: 'reset' or 'swap'");
    return env.Undefined();
  }

  // keepCoarseMasks(maxBytes): parses keep each sentence's coarse-pass entries, up to
  // maxBytes in all, and reuse them (the PCFG must not change meanwhile); 0: off, freed.
  Napi::Value KeepCoarseMasks(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 1 && info[0].IsNumber(), env, "a byte count");
    const double bytes = info[0].As<Napi::Number>().DoubleValue();
    if (!(bytes >= 0)) throw Napi::RangeError::New(env, "keepCoarseMasks: a byte count >= 0");
    model_->KeepCoarseMasks(static_cast<size_t>(std::min(bytes, 1e15)));
    return env.Undefined();
  }

  // endTraining(): frees the training trees and trainers (the CRF's feature cache, a latent
  // PCFG's parameters) once the model is final; a job still running keeps what it uses.
  Napi::Value EndTraining(const Napi::CallbackInfo& info) {
    training_.reset();
    return info.Env().Undefined();
  }

  // crfSteps(steps, cancelFlag, lbfgs) -> Promise<{objective, keptFraction, steps}>: SGD
  // batches, or L-BFGS iterations when `lbfgs` is true.
  Napi::Value CrfSteps(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!training_ || !training_->trainer) throw Napi::Error::New(env, "call startCrf first");
    Expect(info.Length() >= 1 && info[0].IsNumber(), env, "a step count");
    const int steps = info[0].As<Napi::Number>().Int32Value();
    auto cancel = CancelFlag::From(info.Length() > 1 ? info[1] : env.Undefined());
    const bool lbfgs = info.Length() > 2 && info[2].ToBoolean().Value();
    auto trainer = training_->trainer;
    auto model = model_;  // keeps the model alive while the job runs
    auto result = std::make_shared<double>(0);
    return RunAsync(
        env,
        [trainer, model, steps, cancel, lbfgs, result] {
          *result = lbfgs ? trainer->LbfgsSteps(steps, cancel.get()) : trainer->Steps(steps, cancel.get());
        },
        [trainer, result](Napi::Env e) -> Napi::Value {
          Napi::Object out = Napi::Object::New(e);
          out.Set("objective", Napi::Number::New(e, *result));
          out.Set("keptFraction", Napi::Number::New(e, trainer->kept_fraction()));
          out.Set("cacheBytes", Napi::Number::New(e, static_cast<double>(trainer->feature_cache_bytes())));
          out.Set("cachedSentences",
                  Napi::Number::New(e, static_cast<double>(trainer->feature_cache_sentences())));
          out.Set("steps", Napi::Number::New(e, static_cast<double>(trainer->steps_done())));
          return out;
        });
  }

  // crfProgress() -> sentence objectives computed so far (all crfSteps calls): read on the
  // JS thread while a crfSteps job runs, for progress lines inside a pass.
  Napi::Value CrfProgress(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!training_ || !training_->trainer) throw Napi::Error::New(env, "call startCrf first");
    return Napi::Number::New(env, static_cast<double>(training_->trainer->sentences_evaluated()));
  }

  // crfState() -> Uint8Array: the CRF trainer's state, for a training checkpoint.
  Napi::Value CrfState(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!training_ || !training_->trainer) throw Napi::Error::New(env, "call startCrf first");
    ByteWriter w;
    training_->trainer->SaveState(w);
    return ToUint8Array(env, w.bytes());
  }

  // loadCrfState(bytes): continues training from a checkpoint (after startCrf, same options).
  Napi::Value LoadCrfState(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!training_ || !training_->trainer) throw Napi::Error::New(env, "call startCrf first");
    Expect(info.Length() >= 1 && info[0].IsTypedArray(), env, "a Uint8Array");
    Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
    ByteReader r(bytes.Data(), bytes.ByteLength());
    training_->trainer->LoadState(r);
    return env.Undefined();
  }

  // Distributed training (lib/distributed/parser-gradient.ts): the coordinator reads the
  // weights to start from and sets those its own L-BFGS arrives at; each worker computes
  // shards of the objective. crfWeights() -> Float64Array; setCrfWeights(Float64Array).
  Napi::Value CrfWeights(const Napi::CallbackInfo& info) {
    if (!model_->use_crf) throw Napi::Error::New(info.Env(), "call startCrf first");
    return ToFloat64Array(info.Env(), model_->crf.theta);
  }

  Napi::Value SetCrfWeights(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!model_->use_crf) throw Napi::Error::New(env, "call startCrf first");
    Expect(info.Length() >= 1 && info[0].IsTypedArray() &&
               info[0].As<Napi::TypedArray>().TypedArrayType() == napi_float64_array,
           env, "a Float64Array");
    Napi::Float64Array w = info[0].As<Napi::Float64Array>();
    if (w.ElementLength() != model_->crf.theta.size())
      throw Napi::RangeError::New(env, "setCrfWeights: the weights do not fit this model");
    model_->crf.theta = ToVector<double>(w);
    return env.Undefined();
  }

  // crfShardGradient(weights, first, last, cancelFlag) -> Promise<{loss, gradient}>: the CRF
  // objective of sentences [first, last) without the prior, and its gradient (startCrf's threads).
  Napi::Value CrfShardGradient(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!training_ || !training_->trainer) throw Napi::Error::New(env, "call startCrf first");
    Expect(info.Length() >= 3 && info[0].IsTypedArray() &&
               info[0].As<Napi::TypedArray>().TypedArrayType() == napi_float64_array && info[1].IsNumber() &&
               info[2].IsNumber(),
           env, "(weights: Float64Array, first, last, cancelFlag?)");
    auto w = std::make_shared<std::vector<double>>(ToVector<double>(info[0].As<Napi::Float64Array>()));
    const int32_t first = info[1].As<Napi::Number>().Int32Value();
    const int32_t last = info[2].As<Napi::Number>().Int32Value();
    auto cancel = CancelFlag::From(info.Length() > 3 ? info[3] : env.Undefined());
    auto trainer = training_->trainer;
    auto model = model_;
    auto grad = std::make_shared<std::vector<double>>();
    auto loss = std::make_shared<double>(0);
    return RunAsync(
        env,
        [trainer, model, w, first, last, cancel, grad, loss] {
          *loss = trainer->ShardObjective(*w, first, last, *grad, cancel.get());
        },
        [grad, loss](Napi::Env e) -> Napi::Value {
          Napi::Object out = Napi::Object::New(e);
          out.Set("loss", Napi::Number::New(e, *loss));
          out.Set("gradient", ToFloat64Array(e, *grad));
          return out;
        });
  }

  // parse(tokens, offsets, k, threads, cancelFlag, forcePcfg, beam, maxLength, prune, mbr, pruneRetry,
  //   withMbrTree = false) -> Promise<{nodes, candidateOffsets, sentenceOffsets, scores, fallback, ...}>
  //   (ParsesToJs); withMbrTree: a CRF's Viterbi k-best and its MBR tree from one chart.
  Napi::Value Parse(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Corpus corpus = CorpusFrom(env, info[0], info[1]);
    Expect(info.Length() >= 11 && info[2].IsNumber() && info[6].IsNumber() && info[7].IsNumber() &&
               info[8].IsNumber() && info[10].IsBoolean(),
           env, "(tokens, offsets, k, threads, flag, forcePcfg, beam, maxLength, prune, mbr, pruneRetry)");
    const int k = info[2].As<Napi::Number>().Int32Value();
    if (k < 1) throw Napi::RangeError::New(env, "k must be at least 1");
    const int threads = ThreadsArgument(info, 3);
    auto cancel = CancelFlag::From(info.Length() > 4 ? info[4] : env.Undefined());
    const bool force_pcfg = info[5].ToBoolean().Value();
    const double beam = info[6].As<Napi::Number>().DoubleValue();
    if (!(beam > 0)) throw Napi::RangeError::New(env, "beam must be positive");
    const int max_length = info[7].As<Napi::Number>().Int32Value();
    if (max_length < 0) throw Napi::RangeError::New(env, "maxLength must not be negative");
    const double prune = info[8].As<Napi::Number>().DoubleValue();
    if (!(prune >= 0 && prune < 1)) throw Napi::RangeError::New(env, "prune must be in [0, 1)");
    const bool mbr = info[9].ToBoolean().Value();
    const bool prune_retry = info[10].As<Napi::Boolean>().Value();
    const bool with_mbr_tree = info.Length() > 11 && info[11].ToBoolean().Value();
    auto model = model_;
    auto corpus_ptr = std::make_shared<Corpus>(std::move(corpus));
    auto result = std::make_shared<std::vector<SentenceParse>>();
    return RunAsync(
        env,
        [model, corpus_ptr, k, threads, cancel, force_pcfg, beam, max_length, prune, mbr, prune_retry,
         with_mbr_tree, result] {
          *result = model->ParseAll(*corpus_ptr, k, threads, cancel.get(), force_pcfg, beam, max_length,
                                    prune, mbr, prune_retry, with_mbr_tree);
        },
        [result](Napi::Env e) -> Napi::Value { return ParsesToJs(e, *result); });
  }

  // treeLogProbs(tokens, offsets, pairs, treeOffsets, threads) -> Promise<Float64Array>: a latent
  // PCFG's log P(tree, words) of tree s (pairs as buildPcfg's, over this grammar's base symbols)
  // over sentence s (chart/latent_tree_score.h); -Infinity where the grammar gives it none.
  Napi::Value TreeLogProbs(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!model_ || !model_->latent) throw Napi::Error::New(env, "treeLogProbs: not a latent PCFG");
    Corpus corpus = CorpusFrom(env, info[0], info[1]);
    Expect(info.Length() >= 5 && info[2].IsTypedArray() && info[3].IsTypedArray(), env,
           "treeLogProbs(tokens, offsets, pairs, treeOffsets, threads)");
    auto pairs = std::make_shared<std::vector<int32_t>>(ToVector<int32_t>(info[2].As<Napi::Int32Array>()));
    std::vector<int32_t> tree_offsets = ToVector<int32_t>(info[3].As<Napi::Int32Array>());
    const int32_t trees = corpus.size();
    if (tree_offsets.size() != static_cast<size_t>(trees) + 1)
      throw Napi::RangeError::New(env, "treeLogProbs: one tree per sentence");
    for (int32_t s = 0; s < trees; ++s)
      if (tree_offsets[s] < 0 || tree_offsets[s] > tree_offsets[s + 1] ||
          2 * static_cast<size_t>(tree_offsets[s + 1]) > pairs->size())
        throw Napi::RangeError::New(env, "treeLogProbs: bad tree offsets");
    const int threads = ThreadsArgument(info, 4);
    auto model = model_;
    auto corpus_ptr = std::make_shared<Corpus>(std::move(corpus));
    auto offsets = std::make_shared<std::vector<int32_t>>(std::move(tree_offsets));
    auto result = std::make_shared<std::vector<double>>(trees);
    return RunAsync(
        env,
        [model, corpus_ptr, pairs, offsets, threads, result] {
          const LatentTreeScorer scorer(*model);
          const int32_t S = model->latent->base.num_symbols;
          ParallelFor(result->size(), threads, 64, [&](size_t begin, size_t end, int) {
            for (size_t s = begin; s < end; ++s) {
              const int32_t at = (*offsets)[s], count = (*offsets)[s + 1] - at;
              const GoldItems tree = DecodeGoldTree(pairs->data() + 2 * static_cast<size_t>(at), count,
                                                    corpus_ptr->Length(static_cast<int32_t>(s)), S);
              (*result)[s] = scorer.LogProb(model->Tokens(*corpus_ptr, static_cast<int32_t>(s)), tree);
            }
          });
        },
        [result](Napi::Env e) -> Napi::Value {
          Napi::Float64Array out = Napi::Float64Array::New(e, result->size());
          std::copy(result->begin(), result->end(), out.Data());
          return out;
        });
  }

  // {nodes, candidateOffsets, sentenceOffsets, scores, fallback, bracketOffsets, brackets,
  // bracketPosteriors, mbrCandidates}: the parses as flat arrays; an MBR parse's
  // SentenceParse::brackets as (start, end, base) triples and their expected counts, sentence
  // s's at [bracketOffsets[s], bracketOffsets[s + 1]); mbrCandidates[s] the candidate index of
  // sentence s's SentenceParse::mbr_tree (stored after every sentence's list), -1 if unset.
  static Napi::Value ParsesToJs(Napi::Env e, const std::vector<SentenceParse>& parses) {
    std::vector<int32_t> nodes, cand_offsets{0}, sent_offsets{0};
    std::vector<double> scores;
    std::vector<uint8_t> fallback;
    std::vector<int32_t> bracket_offsets{0}, brackets;
    std::vector<double> bracket_posteriors;
    std::vector<int32_t> mbr_candidates(parses.size(), -1);
    const auto add_candidate = [&](const ParseCandidate& c) {
      nodes.insert(nodes.end(), c.nodes.begin(), c.nodes.end());
      cand_offsets.push_back(static_cast<int32_t>(nodes.size() / 2));
      scores.push_back(c.score);
    };
    for (const auto& p : parses) {
      for (const auto& c : p.candidates) add_candidate(c);
      sent_offsets.push_back(static_cast<int32_t>(scores.size()));
      fallback.push_back(p.fallback ? 1 : 0);
      for (const auto& b : p.brackets) {
        brackets.insert(brackets.end(), {b.start, b.end, b.base});
        bracket_posteriors.push_back(b.p);
      }
      bracket_offsets.push_back(static_cast<int32_t>(bracket_posteriors.size()));
    }
    for (size_t s = 0; s < parses.size(); ++s)
      if (parses[s].has_mbr_tree) {
        mbr_candidates[s] = static_cast<int32_t>(scores.size());
        add_candidate(parses[s].mbr_tree);
      }
    Napi::Object out = Napi::Object::New(e);
    out.Set("nodes", ToInt32Array(e, nodes));
    out.Set("candidateOffsets", ToInt32Array(e, cand_offsets));
    out.Set("sentenceOffsets", ToInt32Array(e, sent_offsets));
    out.Set("scores", ToFloat64Array(e, scores));
    out.Set("fallback", ToUint8Array(e, fallback));
    out.Set("bracketOffsets", ToInt32Array(e, bracket_offsets));
    out.Set("brackets", ToInt32Array(e, brackets));
    out.Set("bracketPosteriors", ToFloat64Array(e, bracket_posteriors));
    out.Set("mbrCandidates", ToInt32Array(e, mbr_candidates));
    return out;
  }

  // parseEnsemble(others, baseMaps, tagMaps, tokens, offsets, threads, cancelFlag, maxLength, prune,
  //   pruneRetry, k = 1, mix?)
  //   -> Promise<parse's result>: the k best trees under the mean posteriors of this CRF parser
  //   and `others`, CRFs or PCFGs (chart/ensemble.h; k = 1: the MBR tree); maps[m][id] = this
  //   parser's id of others[m]'s base category or tag `id` (-1: none); mix: a Float64Array of
  //   one weight per member, this parser's first (absent: all alike).
  Napi::Value ParseEnsemble(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    EnsembleCall call = ReadEnsembleCall(info);
    const int k = info.Length() > 10 && info[10].IsNumber() ? info[10].As<Napi::Number>().Int32Value() : 1;
    if (k < 1) throw Napi::RangeError::New(env, "k must be at least 1");
    EnsembleMix mix;
    if (info.Length() > 11 && !info[11].IsUndefined()) mix = MixArgument(env, info[11]);
    auto model = model_;
    auto result = std::make_shared<std::vector<SentenceParse>>();
    return RunAsync(
        env,
        [model, call, k, mix, result] {
          *result = structrank::ParseEnsemble(*model, *call.members, *call.corpus, call.threads,
                                              call.cancel.get(), call.prune, call.max_length,
                                              call.prune_retry, kEnsembleMemberPrune, k, mix);
        },
        [result](Napi::Env e) -> Napi::Value { return ParsesToJs(e, *result); });
  }

  // parseEnsembleWithViterbi(others, baseMaps, tagMaps, tokens, offsets, threads, cancelFlag,
  //   maxLength, prune, pruneRetry, mix, viterbiK)
  //   -> Promise<{ mbr, viterbi }>: parseEnsemble's MBR trees (k = 1) and this parser's own
  //   Viterbi viterbiK-best (parse with mbr false), from one pass over each sentence
  //   (chart/ensemble.h, ParseEnsemble's `viterbi`).
  Napi::Value ParseEnsembleWithViterbi(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    EnsembleCall call = ReadEnsembleCall(info);
    Expect(info.Length() > 11 && info[11].IsNumber(), env, "(..., mix, viterbiK)");
    const EnsembleMix mix = MixArgument(env, info[10]);
    const int viterbi_k = info[11].As<Napi::Number>().Int32Value();
    if (viterbi_k < 1) throw Napi::RangeError::New(env, "viterbiK must be at least 1");
    auto model = model_;
    auto mbr = std::make_shared<std::vector<SentenceParse>>();
    auto viterbi = std::make_shared<std::vector<SentenceParse>>();
    return RunAsync(
        env,
        [model, call, mix, viterbi_k, mbr, viterbi] {
          *mbr =
              structrank::ParseEnsemble(*model, *call.members, *call.corpus, call.threads, call.cancel.get(),
                                        call.prune, call.max_length, call.prune_retry, kEnsembleMemberPrune,
                                        1, mix, kEnsembleMemberChartBytes, viterbi_k, viterbi.get());
        },
        [mbr, viterbi](Napi::Env e) -> Napi::Value {
          Napi::Object out = Napi::Object::New(e);
          out.Set("mbr", ParsesToJs(e, *mbr));
          out.Set("viterbi", ParsesToJs(e, *viterbi));
          return out;
        });
  }

  // parseEnsembleMixes(others, baseMaps, tagMaps, tokens, offsets, threads, cancelFlag, maxLength,
  //   prune, pruneRetry, mixes: Float64Array[])
  //   -> Promise<parse's result[]>: each sentence's MBR tree under each mix, every member's
  //   posteriors computed once (chart/ensemble.h, ParseEnsembleMixes).
  Napi::Value ParseEnsembleMixes(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    EnsembleCall call = ReadEnsembleCall(info);
    Expect(info.Length() > 10 && info[10].IsArray(), env, "mixes as an array of Float64Arrays");
    Napi::Array list = info[10].As<Napi::Array>();
    std::vector<EnsembleMix> mixes;
    for (uint32_t x = 0; x < list.Length(); ++x) mixes.push_back(MixArgument(env, list.Get(x)));
    auto model = model_;
    auto result = std::make_shared<std::vector<std::vector<SentenceParse>>>();
    return RunAsync(
        env,
        [model, call, mixes, result] {
          *result = structrank::ParseEnsembleMixes(*model, *call.members, *call.corpus, call.threads,
                                                   call.cancel.get(), call.prune, call.max_length,
                                                   call.prune_retry, mixes);
        },
        [result](Napi::Env e) -> Napi::Value {
          Napi::Array out = Napi::Array::New(e, result->size());
          for (uint32_t x = 0; x < result->size(); ++x) out.Set(x, ParsesToJs(e, (*result)[x]));
          return out;
        });
  }

  // The arguments parseEnsemble and parseEnsembleMixes share (0-9), the members held alive.
  struct EnsembleCall {
    std::shared_ptr<std::vector<std::shared_ptr<ChartModel>>> held;
    std::shared_ptr<std::vector<EnsembleMember>> members;
    std::shared_ptr<Corpus> corpus;
    int threads = 1;
    std::shared_ptr<std::atomic<bool>> cancel;
    int max_length = 0;
    double prune = 0;
    bool prune_retry = false;
  };
  EnsembleCall ReadEnsembleCall(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 10 && info[0].IsArray() && info[1].IsArray() && info[2].IsArray() &&
               info[7].IsNumber() && info[8].IsNumber() && info[9].IsBoolean(),
           env, "(others, baseMaps, tagMaps, tokens, offsets, threads, flag, maxLength, prune, pruneRetry)");
    Napi::Array others = info[0].As<Napi::Array>(), base_maps = info[1].As<Napi::Array>(),
                tag_maps = info[2].As<Napi::Array>();
    if (base_maps.Length() != others.Length() || tag_maps.Length() != others.Length())
      throw Napi::TypeError::New(env, "one base map and one tag map per ensemble member");
    EnsembleCall call;
    call.held = std::make_shared<std::vector<std::shared_ptr<ChartModel>>>();
    call.members = std::make_shared<std::vector<EnsembleMember>>();
    for (uint32_t m = 0; m < others.Length(); ++m) {
      Napi::Value o = others.Get(m);
      Expect(o.IsObject() && o.As<Napi::Object>().InstanceOf(GetConstructor(env, "ChartParser").Value()), env,
             "ensemble members as ChartParser handles");
      call.held->push_back(Unwrap(o.As<Napi::Object>())->model_);
      EnsembleMember member;
      member.model = call.held->back().get();
      Napi::Value bm = base_maps.Get(m), tm = tag_maps.Get(m);
      Expect(bm.IsTypedArray() && bm.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array &&
                 tm.IsTypedArray() && tm.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array,
             env, "base and tag maps as Int32Arrays");
      member.base_map = ToVector<int32_t>(bm.As<Napi::Int32Array>());
      member.tag_map = ToVector<int32_t>(tm.As<Napi::Int32Array>());
      call.members->push_back(std::move(member));
    }
    call.corpus = std::make_shared<Corpus>(CorpusFrom(env, info[3], info[4]));
    call.threads = ThreadsArgument(info, 5);
    call.cancel = CancelFlag::From(info[6]);
    call.max_length = info[7].As<Napi::Number>().Int32Value();
    call.prune = info[8].As<Napi::Number>().DoubleValue();
    if (!(call.prune >= 0 && call.prune < 1)) throw Napi::RangeError::New(env, "prune must be in [0, 1)");
    call.prune_retry = info[9].As<Napi::Boolean>().Value();
    return call;
  }
  static EnsembleMix MixArgument(Napi::Env env, Napi::Value v) {
    Expect(v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_float64_array, env,
           "a mix as a Float64Array");
    return ToVector<double>(v.As<Napi::Float64Array>());
  }

  Napi::Value Serialize(const Napi::CallbackInfo& info) {
    return ToUint8Array(info.Env(), model_->Serialize());
  }

  Napi::Value Info(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::Object out = Napi::Object::New(env);
    const Grammar& g = model_->grammar;
    out.Set("symbols", Napi::Number::New(env, g.num_symbols));
    out.Set("binaryRules", Napi::Number::New(env, static_cast<double>(g.binary.size())));
    out.Set("unaryRules", Napi::Number::New(env, static_cast<double>(g.unary.size())));
    out.Set("rootRules", Napi::Number::New(env, static_cast<double>(g.root.size())));
    out.Set("words", Napi::Number::New(env, model_->lexicon.words.size()));
    out.Set("crf", Napi::Boolean::New(env, model_->use_crf));
    out.Set("weights", Napi::Number::New(env, static_cast<double>(model_->crf.theta.size())));
    out.Set("relaxedBinaryRules", Napi::Number::New(env, static_cast<double>(model_->relaxed_binary)));
    out.Set("relaxedUnaryRules", Napi::Number::New(env, static_cast<double>(model_->relaxed_unary)));
    out.Set("clusterWords", Napi::Number::New(env, model_->lexicon.cluster_words.size()));
    out.Set("verbFeatures", Napi::Boolean::New(env, model_->use_crf && model_->crf.verb_features));
    out.Set("surfaceBits", Napi::Number::New(env, model_->use_crf ? model_->crf.surface_bits : 0));
    out.Set("tagSets", Napi::Boolean::New(env, model_->use_crf && model_->crf.tag_sets));
    out.Set("surfaceClusters", Napi::Boolean::New(env, model_->use_crf && model_->crf.surface_clusters));
    out.Set("shapeBackoff", Napi::Number::New(env, model_->lexicon.shape_backoff));
    out.Set("rareThreshold", Napi::Number::New(env, model_->lexicon.rare_threshold));
    return out;
  }

  struct Training {
    Corpus corpus;
    std::vector<GoldItems> gold;
    std::shared_ptr<CrfTrainer> trainer;
    std::shared_ptr<LatentPcfgTrainer> latent;
  };
  std::shared_ptr<ChartModel> model_;
  std::shared_ptr<Training> training_;
};

}  // namespace

static ModuleRegistration registration("chart", &ChartParser::Init);

}  // namespace structrank::binding

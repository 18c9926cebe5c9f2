// N-API surface of the boosting / log-linear reranker (native/boost): RerankData holds an
// n-best problem as typed arrays; BoostTrainer runs ExpLoss (sparse or naive) or LogLoss
// feature selection in chunks of rounds off the JS thread, so the caller can draw a
// progress bar between chunks; free functions evaluate and train the log-linear model.
#include <napi.h>

#include <atomic>
#include <memory>

#include "binding/async.h"
#include "binding/cancel_flag.h"
#include "binding/convert.h"
#include "binding/options.h"
#include "binding/registry.h"
#include "boost/a0_search.h"
#include "boost/exp_loss_booster.h"
#include "boost/log_loss_selector.h"
#include "boost/loglinear_reranker.h"
#include "boost/pair_problem.h"
#include "boost/rerank_eval.h"
#include "boost/synthetic_problem.h"
#include "core/byte_io.h"
#include "core/errors.h"

namespace structrank::binding {

namespace {

// Offsets arrive as Int32Array, Float64Array (exact to 2^53) or BigInt64Array.
std::vector<int64_t> ToOffsets(Napi::Env env, const Napi::Value& v, const char* what) {
  Expect(v.IsTypedArray(), env, std::string(what) + " as a typed array");
  Napi::TypedArray t = v.As<Napi::TypedArray>();
  std::vector<int64_t> out(t.ElementLength());
  switch (t.TypedArrayType()) {
    case napi_int32_array: {
      auto a = v.As<Napi::Int32Array>();
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = a[i];
      break;
    }
    case napi_float64_array: {
      auto a = v.As<Napi::Float64Array>();
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int64_t>(a[i]);
      break;
    }
    case napi_bigint64_array: {
      auto a = v.As<Napi::TypedArrayOf<int64_t>>();
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = a[i];
      break;
    }
    default:
      throw Napi::TypeError::New(
          env, std::string("expected ") + what + " as Int32Array, Float64Array or BigInt64Array");
  }
  return out;
}

Napi::Value OffsetsToJs(Napi::Env env, const std::vector<int64_t>& v) {
  Napi::Float64Array out = Napi::Float64Array::New(env, v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<double>(v[i]);
  return out;
}

Napi::Object BoostModelToJs(Napi::Env env, const BoostModel& m) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("numFeatures", m.num_features);
  o.Set("a0", m.a0);
  o.Set("eps", m.eps);
  o.Set("weighting", m.weighting == 1 ? "uniform" : "score");
  o.Set("totalCost", static_cast<double>(m.total_cost));
  o.Set("initialLoss", m.initial_loss);
  o.Set("chosenRounds", static_cast<double>(m.chosen_rounds));
  o.Set("features", ToInt32Array(env, m.features));
  o.Set("deltas", ToFloat64Array(env, m.deltas));
  o.Set("losses", ToFloat64Array(env, m.losses));
  o.Set("costs", OffsetsToJs(env, m.costs));
  return o;
}

BoostModel BoostModelFromJs(Napi::Env env, const Napi::Object& o) {
  BoostModel m;
  m.num_features = RequiredInt(o, "numFeatures");
  m.a0 = RequiredDouble(o, "a0");
  m.eps = RequiredDouble(o, "eps");
  m.weighting = RequiredString(o, "weighting") == "uniform" ? 1 : 0;
  m.total_cost = RequiredInt64(o, "totalCost");
  m.initial_loss = RequiredDouble(o, "initialLoss");
  m.chosen_rounds = RequiredInt64(o, "chosenRounds");
  Napi::Value f = o.Get("features");
  Expect(f.IsTypedArray() && f.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array, env,
         "features as an Int32Array");
  m.features = ToVector<int32_t>(f.As<Napi::Int32Array>());
  m.deltas = ToDoubles(o.Get("deltas"), "deltas");
  m.losses = ToDoubles(o.Get("losses"), "losses");
  m.costs = ToOffsets(env, o.Get("costs"), "costs");
  // Validate through the byte round trip, which checks sizes and ids.
  ByteWriter wr;
  m.Serialize(wr);
  ByteReader rd(wr.bytes().data(), wr.bytes().size());
  try {
    return BoostModel::Deserialize(rd);
  } catch (const InputError&) {
    throw ErrorFromException(env, std::current_exception());
  }
}

class RerankDataWrap : public ErrorMappingWrap<RerankDataWrap> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function cls = DefineClass(
        env, "RerankData",
        {InstanceAccessor("sentences", &RerankDataWrap::Sentences, nullptr),
         InstanceAccessor("candidates", &RerankDataWrap::Candidates, nullptr),
         InstanceAccessor("nnz", &RerankDataWrap::Nnz, nullptr),
         InstanceAccessor("numFeatures", &RerankDataWrap::NumFeatures, nullptr),
         InstanceMethod("arrays", &RerankDataWrap::Arrays), StaticMethod("build", &RerankDataWrap::Build),
         StaticMethod("synthetic", &RerankDataWrap::Synthetic)});
    SaveConstructor(env, "RerankData", cls);
    exports.Set("RerankData", cls);
  }

  // Built only by the static factories below, which pass an External and fill data_.
  explicit RerankDataWrap(const Napi::CallbackInfo& info) : ErrorMappingWrap<RerankDataWrap>(info) {
    Expect(info.Length() >= 1 && info[0].IsExternal(), info.Env(),
           "RerankData.build(arrays, threads) or RerankData.synthetic(options)");
    data_ = std::make_shared<RerankData>();
  }

  static std::shared_ptr<RerankData> From(Napi::Env env, const Napi::Value& v) {
    Expect(v.IsObject() && v.As<Napi::Object>().InstanceOf(GetConstructor(env, "RerankData").Value()), env,
           "a RerankData");
    return Unwrap(v.As<Napi::Object>())->data_;
  }

 private:
  Napi::Value Sentences(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), data_->sentences());
  }
  Napi::Value Candidates(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), data_->candidates());
  }
  Napi::Value Nnz(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), data_->features.nnz());
  }
  Napi::Value NumFeatures(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), data_->num_features);
  }

  Napi::Value Arrays(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::Object o = Napi::Object::New(env);
    o.Set("sentencePtr", OffsetsToJs(env, data_->sentence_ptr));
    o.Set("logprob", ToFloat64Array(env, data_->logprob));
    o.Set("score", ToFloat64Array(env, data_->score));
    o.Set("rowPtr", OffsetsToJs(env, data_->features.row_ptr));
    o.Set("cols", ToInt32Array(env, data_->features.cols));
    o.Set("numFeatures", data_->num_features);
    return o;
  }

  // RerankData.build({sentencePtr, logprob, score?, rowPtr, cols, numFeatures}, threads)
  //   -> Promise<RerankData>
  // The arrays are copied on the JS thread (their memory belongs to JS); sorting the rows
  // and validating take seconds on large lists, so they run on a pool thread.
  static Napi::Value Build(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 1 && info[0].IsObject(), env, "a data object");
    Napi::Object o = info[0].As<Napi::Object>();
    const int threads = ThreadsArgument(info, 1);
    auto result = std::make_shared<RerankData>();
    RerankData& d = *result;
    d.sentence_ptr = ToOffsets(env, o.Get("sentencePtr"), "sentencePtr");
    d.logprob = ToDoubles(o.Get("logprob"), "logprob");
    if (o.Get("score").IsTypedArray()) d.score = ToDoubles(o.Get("score"), "score");
    d.features.row_ptr = ToOffsets(env, o.Get("rowPtr"), "rowPtr");
    Napi::Value cols = o.Get("cols");
    Expect(cols.IsTypedArray() && cols.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array, env,
           "cols as an Int32Array");
    d.features.cols = ToVector<int32_t>(cols.As<Napi::Int32Array>());
    d.num_features = RequiredInt(o, "numFeatures");
    if (d.features.row_ptr.empty() ||
        d.features.row_ptr.back() != static_cast<int64_t>(d.features.cols.size()) ||
        d.features.row_ptr[0] != 0)
      throw Napi::Error::New(env, "rowPtr does not match cols");
    for (std::size_t r = 1; r < d.features.row_ptr.size(); ++r)
      if (d.features.row_ptr[r] < d.features.row_ptr[r - 1])
        throw Napi::Error::New(env, "rowPtr is not monotone");
    return RunAsync(
        env,
        [result, threads]() {
          result->NormalizeRows(threads);
          result->Validate(!result->score.empty());
        },
        [result](Napi::Env env) {
          Napi::Object obj = GetConstructor(env, "RerankData").New({Napi::External<void>::New(env, nullptr)});
          Unwrap(obj)->data_ = result;
          return obj;
        });
  }

  // RerankData.synthetic(options, cancel?) -> Promise<RerankData>
  static Napi::Value Synthetic(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 1 && info[0].IsObject(), env, "synthetic options");
    Napi::Object o = info[0].As<Napi::Object>();
    SyntheticOptions opt;
    opt.sentences = RequiredInt64(o, "sentences");
    opt.candidates_per_sentence = RequiredInt(o, "candidatesPerSentence");
    opt.features = RequiredInt(o, "features");
    opt.shared_per_sentence = RequiredInt(o, "sharedPerSentence");
    opt.private_per_candidate = RequiredInt(o, "privatePerCandidate");
    opt.zipf_exponent = RequiredDouble(o, "zipfExponent");
    opt.seed = static_cast<uint64_t>(RequiredInt64(o, "seed"));
    opt.threads = RequiredThreads(o);
    if (opt.sentences < 0 || opt.candidates_per_sentence < 1 || opt.features < 1)
      throw Napi::RangeError::New(env,
                                  "synthetic: sentences >= 0, candidatesPerSentence >= 1, features >= 1");
    auto result = std::make_shared<RerankData>();
    return RunAsync(
        env, [opt, result]() { *result = GenerateSynthetic(opt); },
        [result](Napi::Env env) {
          Napi::Object obj = GetConstructor(env, "RerankData").New({Napi::External<void>::New(env, nullptr)});
          Unwrap(obj)->data_ = result;
          return obj;
        });
  }

  std::shared_ptr<RerankData> data_;
};

// new BoostTrainer(data, {method: 'sparse'|'naive'|'logloss', eps, weighting, threads, l2, a0?})
class BoostTrainerWrap : public ErrorMappingWrap<BoostTrainerWrap> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function cls = DefineClass(
        env, "BoostTrainer",
        {InstanceMethod("init", &BoostTrainerWrap::InitJob), InstanceMethod("run", &BoostTrainerWrap::Run),
         InstanceMethod("model", &BoostTrainerWrap::Model),
         InstanceMethod("stats", &BoostTrainerWrap::Stats)});
    SaveConstructor(env, "BoostTrainer", cls);
    exports.Set("BoostTrainer", cls);
  }

  explicit BoostTrainerWrap(const Napi::CallbackInfo& info) try : ErrorMappingWrap
    <BoostTrainerWrap>(info) {
      Napi::Env env = info.Env();
      state_ = std::make_shared<State>();
      state_->data = RerankDataWrap::From(env, info[0]);
      Expect(info.Length() >= 2 && info[1].IsObject(), env, "trainer options");
      Napi::Object o = info[1].As<Napi::Object>();
      std::string method = RequiredString(o, "method");
      if (method != "sparse" && method != "naive" && method != "logloss")
        throw Napi::RangeError::New(env, "method must be 'sparse', 'naive' or 'logloss'");
      state_->method = method;
      state_->eps = RequiredDouble(o, "eps");
      state_->l2 = RequiredDouble(o, "l2");
      state_->threads = RequiredThreads(o);
      state_->a0 = RequiredDouble(o, "a0");  // <= 0: search a_0
      const std::string weighting = RequiredString(o, "weighting");
      if (weighting != "score" && weighting != "uniform")
        throw Napi::RangeError::New(env, "weighting must be 'score' or 'uniform'");
      state_->weighting = weighting == "uniform" ? PairWeighting::kUniform : PairWeighting::kScoreDifference;
      if (state_->data->score.empty()) throw Napi::Error::New(env, "training data needs scores");
      // resume: the rounds of a checkpoint (boostModelBytes), replayed by init().
      Napi::Value resume = o.Get("resume");
      if (resume.IsTypedArray()) {
        Napi::Uint8Array a = resume.As<Napi::Uint8Array>();
        ByteReader r(a.Data(), a.ElementLength());
        state_->resume = std::make_unique<BoostModel>(BoostModel::Deserialize(r));
        if (!r.AtEnd()) throw ModelError("boosting checkpoint has trailing bytes");
      }
    }
  catch (const Napi::Error&) {
    throw;
  } catch (...) {
    throw ErrorFromException(info.Env(), std::current_exception());
  }

 private:
  struct State {
    std::shared_ptr<RerankData> data;
    std::string method;
    double eps = 0, l2 = 0, a0 = -1;
    int threads = 0;
    PairWeighting weighting = PairWeighting::kScoreDifference;
    std::unique_ptr<PairProblem> pairs;
    std::unique_ptr<ExpLossBooster> booster;
    std::unique_ptr<LogLossSelector> selector;
    std::unique_ptr<BoostModel> resume;
    std::atomic<bool> busy{false};
    const BoostModel* model() const {
      return booster ? &booster->model() : selector ? &selector->model() : nullptr;
    }
    double loss() const { return booster ? booster->loss() : selector ? selector->loss() : 0; }
  };

  void Claim(Napi::Env env) {
    if (state_->busy.exchange(true))
      throw Napi::Error::New(env, "BoostTrainer is busy (await the previous call)");
  }

  // init(cancel?) -> Promise<{pairs, totalCost, a0, loss}>: pair structures and a_0 search
  // (with options.resume: the checkpoint's a_0, and its rounds replayed).
  Napi::Value InitJob(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    auto cancel = CancelFlag::From(info.Length() >= 1 ? info[0] : env.Undefined());
    Claim(env);
    auto s = state_;
    return RunAsync(
        env,
        [s, cancel]() {
          struct Release {
            std::atomic<bool>& b;
            ~Release() { b = false; }
          } release{s->busy};
          if (s->model()) return;
          if (s->method == "logloss") {
            s->selector = std::make_unique<LogLossSelector>(s->data.get(), s->l2, s->threads);
            if (s->resume) s->selector->Replay(*s->resume, cancel.get());
            s->resume.reset();
            return;
          }
          s->pairs = std::make_unique<PairProblem>(BuildPairs(*s->data, s->weighting, s->threads));
          double a0 = s->resume ? s->resume->a0 : s->a0 > 0 ? s->a0 : SearchA0(*s->pairs, s->threads);
          s->booster = std::make_unique<ExpLossBooster>(s->pairs.get(), a0, s->eps, s->method == "naive");
          s->booster->model().weighting = static_cast<int32_t>(s->weighting);
          if (s->resume) {
            if (s->resume->weighting != static_cast<int32_t>(s->weighting))
              throw ModelError("boosting checkpoint has other pair weights");
            s->booster->Replay(*s->resume, cancel.get());
            s->resume.reset();
          }
        },
        [s](Napi::Env env) { return StatsOf(env, *s); });
  }

  // run(rounds, cancel?) -> Promise<stats>; stats.done < rounds when the loss cannot fall further.
  Napi::Value Run(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 1 && info[0].IsNumber(), env, "a number of rounds");
    if (!state_->model()) throw Napi::Error::New(env, "call init() first");
    int64_t n = static_cast<int64_t>(info[0].As<Napi::Number>().DoubleValue());
    auto cancel = CancelFlag::From(info.Length() >= 2 ? info[1] : env.Undefined());
    Claim(env);
    auto s = state_;
    auto ran = std::make_shared<int64_t>(0);
    return RunAsync(
        env,
        [s, n, cancel, ran]() {
          struct Release {
            std::atomic<bool>& b;
            ~Release() { b = false; }
          } release{s->busy};
          *ran = s->booster ? s->booster->Run(n, cancel.get()) : s->selector->Run(n, cancel.get());
        },
        [s, ran](Napi::Env env) {
          Napi::Object o = StatsOf(env, *s);
          o.Set("done", static_cast<double>(*ran));
          return o;
        });
  }

  static Napi::Object StatsOf(Napi::Env env, const State& s) {
    Napi::Object o = Napi::Object::New(env);
    const BoostModel* m = s.model();
    o.Set("rounds", m ? static_cast<double>(m->rounds()) : 0.0);
    o.Set("loss", s.loss());
    o.Set("a0", m ? m->a0 : 0.0);
    o.Set("pairs", s.pairs ? static_cast<double>(s.pairs->pairs()) : 0.0);
    o.Set("totalCost", m ? static_cast<double>(m->total_cost) : 0.0);
    o.Set("work", m ? m->Work(m->rounds()) : 0.0);
    o.Set("savings", m ? m->Savings(m->rounds()) : 0.0);
    return o;
  }

  Napi::Value Stats(const Napi::CallbackInfo& info) { return StatsOf(info.Env(), *state_); }

  Napi::Value Model(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (state_->busy) throw Napi::Error::New(env, "BoostTrainer is busy (await the previous call)");
    const BoostModel* m = state_->model();
    if (!m) throw Napi::Error::New(env, "call init() first");
    return BoostModelToJs(env, *m);
  }

  std::shared_ptr<State> state_;
};

// boostPrefixCurve(dev, model, checkpoints: Float64Array, threads) -> Float64Array
Napi::Value BoostPrefixCurveJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto dev = RerankDataWrap::From(env, info[0]);
  Expect(info.Length() >= 3 && info[1].IsObject(), env, "a boosting model");
  BoostModel m = BoostModelFromJs(env, info[1].As<Napi::Object>());
  std::vector<int64_t> checkpoints = ToOffsets(env, info[2], "checkpoints");
  for (std::size_t i = 1; i < checkpoints.size(); ++i)
    if (checkpoints[i] < checkpoints[i - 1]) throw Napi::RangeError::New(env, "checkpoints must ascend");
  int threads = ThreadsArgument(info, 3);
  if (dev->score.empty()) throw Napi::Error::New(env, "dev data needs scores");
  return ToFloat64Array(env, BoostPrefixCurve(*dev, m, checkpoints, threads));
}

// boostModelBytes(model) -> Uint8Array ; boostModelFromBytes(bytes) -> model
Napi::Value BoostModelBytes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Expect(info.Length() >= 1 && info[0].IsObject(), env, "a boosting model");
  BoostModel m = BoostModelFromJs(env, info[0].As<Napi::Object>());
  ByteWriter w;
  m.Serialize(w);
  return ToUint8Array(env, w.bytes());
}

Napi::Value BoostModelFromBytes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Expect(info.Length() >= 1 && info[0].IsTypedArray(), env, "model bytes as a Uint8Array");
  Napi::Uint8Array a = info[0].As<Napi::Uint8Array>();
  ByteReader r(a.Data(), a.ElementLength());
  BoostModel m = ReadingModelPayload([&] { return BoostModel::Deserialize(r); });
  if (!r.AtEnd()) throw ModelError("boosting model payload has trailing bytes");
  return BoostModelToJs(env, m);
}

// rerankScores(data, a0, weights: Float64Array, threads) -> {scores: Float64Array, chosen: Float64Array}
// chosen[i] is the index of sentence i's argmax candidate within the sentence (-1 if none).
Napi::Value RerankScores(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto data = RerankDataWrap::From(env, info[0]);
  Expect(info.Length() >= 3 && info[1].IsNumber(), env, "a0 as a number");
  double a0 = info[1].As<Napi::Number>().DoubleValue();
  std::vector<double> w = ToDoubles(info[2], "weights");
  int threads = ThreadsArgument(info, 3);
  std::vector<double> F = CandidateScores(*data, a0, w, threads);
  std::vector<int64_t> chosen = ChooseCandidates(*data, F);
  for (int64_t i = 0; i < data->sentences(); ++i)
    if (chosen[i] >= 0) chosen[i] -= data->sentence_ptr[i];
  Napi::Object o = Napi::Object::New(env);
  o.Set("scores", ToFloat64Array(env, F));
  o.Set("chosen", OffsetsToJs(env, chosen));
  return o;
}

// trainLoglinear(data, {l2, maxIterations, threads}, cancel?, progress?) -> Promise<{a0, weights, objective,
// iterations}>
Napi::Value TrainLoglinearJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto data = RerankDataWrap::From(env, info[0]);
  Expect(info.Length() >= 2 && info[1].IsObject(), env, "options");
  Napi::Object o = info[1].As<Napi::Object>();
  double l2 = RequiredDouble(o, "l2");
  int threads = RequiredThreads(o);
  const int max_iterations = RequiredInt(o, "maxIterations");
  if (data->score.empty()) throw Napi::Error::New(env, "training data needs scores");
  // resume: an L-BFGS state from a previous call's result.state (a checkpoint); with
  // saveState the result carries the state to resume from.
  std::vector<uint8_t> resume;
  Napi::Value rs = o.Get("resume");
  if (rs.IsTypedArray()) resume = ToVector<uint8_t>(rs.As<Napi::Uint8Array>());
  const bool save_state = o.Has("saveState") && o.Get("saveState").ToBoolean();
  auto cancel = CancelFlag::From(info.Length() >= 3 ? info[2] : env.Undefined());
  // Optional Float64Array of 2 that the worker fills with [iteration, objective] after every
  // L-BFGS iteration; the JS side polls it for its progress line. The reference keeps the
  // array alive until the promise settles (it is released on the JS thread).
  double* progress = nullptr;
  std::shared_ptr<Napi::Reference<Napi::Float64Array>> progress_ref;
  if (info.Length() >= 4 && info[3].IsTypedArray() &&
      info[3].As<Napi::TypedArray>().TypedArrayType() == napi_float64_array) {
    Napi::Float64Array slots = info[3].As<Napi::Float64Array>();
    Expect(slots.ElementLength() >= 2, env, "a Float64Array of 2 for progress");
    progress = slots.Data();
    progress_ref = std::make_shared<Napi::Reference<Napi::Float64Array>>(Napi::Persistent(slots));
  }
  auto result = std::make_shared<LoglinearResult>();
  return RunAsync(
      env,
      [data, l2, threads, max_iterations, cancel, result, progress, progress_ref, resume, save_state]() {
        IterationCallback report = nullptr;
        if (progress != nullptr) {
          report = [progress](int iteration, double objective) {
            progress[1] = objective;
            progress[0] = iteration;
            return true;
          };
        }
        *result = TrainLoglinear(*data, l2, max_iterations, threads, resume, report, cancel.get());
        if (!save_state) result->state.clear();
      },
      [result, progress_ref](Napi::Env env) {
        Napi::Object out = Napi::Object::New(env);
        out.Set("a0", result->a0);
        out.Set("weights", ToFloat64Array(env, result->weights));
        out.Set("objective", result->objective);
        out.Set("iterations", result->iterations);
        out.Set("converged", result->converged);
        if (!result->state.empty()) out.Set("state", ToUint8Array(env, result->state));
        return out;
      });
}

void Init(Napi::Env env, Napi::Object exports) {
  RerankDataWrap::Init(env, exports);
  BoostTrainerWrap::Init(env, exports);
  exports.Set("boostPrefixCurve", MappedFunction<BoostPrefixCurveJs>(env, "boostPrefixCurve"));
  exports.Set("boostModelBytes", MappedFunction<BoostModelBytes>(env, "boostModelBytes"));
  exports.Set("boostModelFromBytes", MappedFunction<BoostModelFromBytes>(env, "boostModelFromBytes"));
  exports.Set("rerankScores", MappedFunction<RerankScores>(env, "rerankScores"));
  exports.Set("trainLoglinear", MappedFunction<TrainLoglinearJs>(env, "trainLoglinear"));
}

static ModuleRegistration registration("boost", &Init);

}  // namespace
}  // namespace structrank::binding

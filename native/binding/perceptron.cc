// N-API surface of the perceptron rerankers: perceptronTrain(...) -> Promise<PerceptronModel>;
// model.choose(...) -> Promise<{chosen, scores}>; save()/load() as bytes.
#include <napi.h>

#include <array>
#include <cmath>
#include <memory>
#include <string>

#include "binding/async.h"
#include "binding/cancel_flag.h"
#include "binding/convert.h"
#include "binding/options.h"
#include "binding/registry.h"
#include "core/errors.h"
#include "perceptron/candidate_bank.h"
#include "binding/perceptron_banks.h"
#include "perceptron/linear_sum_bank.h"
#include "perceptron/reranker_model.h"

namespace structrank::binding {

namespace {

// Sentence offsets, log-probabilities and (training) scores of a candidate set.
RankingSet RankingSetFrom(const Napi::Object& spec, bool need_scores) {
  Napi::Env env = spec.Env();
  Napi::Value ptr = spec.Get("sentencePtr");
  Napi::Value lp = spec.Get("logprobs");
  Expect(ptr.IsTypedArray() && ptr.As<Napi::TypedArray>().TypedArrayType() == napi_float64_array, env,
         "sentencePtr: Float64Array");
  Expect(lp.IsTypedArray() && lp.As<Napi::TypedArray>().TypedArrayType() == napi_float64_array, env,
         "logprobs: Float64Array");
  RankingSet set;
  set.sentence_ptr.clear();
  for (double v : ToVector<double>(ptr.As<Napi::Float64Array>()))
    set.sentence_ptr.push_back(static_cast<int64_t>(v));
  set.logprob = ToVector<double>(lp.As<Napi::Float64Array>());
  if (need_scores) {
    Napi::Value sc = spec.Get("scores");
    Expect(sc.IsTypedArray() && sc.As<Napi::TypedArray>().TypedArrayType() == napi_float64_array, env,
           "scores: Float64Array");
    set.score = ToVector<double>(sc.As<Napi::Float64Array>());
  }
  set.Validate(need_scores);
  return set;
}

class PerceptronModel : public ErrorMappingWrap<PerceptronModel> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function cls = DefineClass(
        env, "PerceptronModel",
        {InstanceMethod("choose", &PerceptronModel::Choose), InstanceMethod("save", &PerceptronModel::Save),
         InstanceMethod("info", &PerceptronModel::Info),
         InstanceMethod("supportIds", &PerceptronModel::SupportIds),
         InstanceMethod("coefficients", &PerceptronModel::Coefficients),
         InstanceMethod("compactFeatures", &PerceptronModel::CompactFeatures),
         InstanceMethod("runBytes", &PerceptronModel::RunBytes),
         StaticMethod("load", &PerceptronModel::Load)});
    SaveConstructor(env, "PerceptronModel", cls);
    exports.Set("PerceptronModel", cls);
  }

  explicit PerceptronModel(const Napi::CallbackInfo& info) : ErrorMappingWrap<PerceptronModel>(info) {}

  static Napi::Object Wrap(Napi::Env env, std::shared_ptr<RerankerModel> model) {
    Napi::Object obj = GetConstructor(env, "PerceptronModel").New({});
    Unwrap(obj)->model_ = std::move(model);
    return obj;
  }

 private:
  RerankerModel& model(Napi::Env env) {
    if (!model_) throw Napi::Error::New(env, "PerceptronModel: empty model (use perceptronTrain or load)");
    return *model_;
  }

  // choose(query, mode, threads, compressed, cancelFlag)
  Napi::Value Choose(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    model(env);
    Expect(info[0].IsObject(), env, "query candidates object");
    Napi::Object spec = info[0].As<Napi::Object>();
    auto set = std::make_shared<RankingSet>(RankingSetFrom(spec, false));
    std::shared_ptr<CandidateBank> bank = MakeCandidateBank(spec);
    Expect(info[1].IsNumber() && info[3].IsBoolean(), env, "(query, mode, threads, compressed, cancelFlag)");
    const int mode = info[1].As<Napi::Number>().Int32Value();
    Expect(mode >= 0 && mode <= 2, env, "mode 0 (last), 1 (averaged) or 2 (voted)");
    const int threads = ThreadsArgument(info, 2);
    const bool compressed = info[3].As<Napi::Boolean>().Value();
    auto cancel = CancelFlag::From(info[4]);
    auto model = model_;
    auto chosen = std::make_shared<std::vector<int32_t>>();
    auto scores = std::make_shared<std::vector<double>>();
    return RunAsync(
        env,
        [=]() {
          *chosen = model->Choose(*bank, *set, static_cast<PredictMode>(mode), threads, cancel.get(),
                                  scores.get(), compressed);
        },
        [=](Napi::Env env) -> Napi::Value {
          Napi::Object out = Napi::Object::New(env);
          out.Set("chosen", ToInt32Array(env, *chosen));
          out.Set("scores", ToFloat64Array(env, *scores));
          return out;
        });
  }

  // runBytes() -> Uint8Array: the training run alone (support ids, mistakes), the state a
  // checkpoint keeps to continue training (perceptronTrain's options.resume).
  Napi::Value RunBytes(const Napi::CallbackInfo& info) {
    ByteWriter w;
    model(info.Env()).run().Save(w);
    return ToUint8Array(info.Env(), w.bytes());
  }

  Napi::Value Save(const Napi::CallbackInfo& info) {
    ByteWriter w;
    model(info.Env()).Save(w);
    return ToUint8Array(info.Env(), w.bytes());
  }

  Napi::Value Info(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const RerankerModel& m = model(env);
    Napi::Object out = Napi::Object::New(env);
    static const char* kinds[] = {"linear", "tree", "tags"};
    const CandidateBank* bank = &m.support();
    if (bank->kind() == KernelKind::kLinearSum) {
      const auto& sum = static_cast<const LinearSumBank&>(*bank);
      out.Set("featureWeight", Napi::Number::New(env, sum.weight()));
      bank = &sum.inner();
    }
    out.Set("kernel", Napi::String::New(env, kinds[static_cast<int>(bank->kind())]));
    out.Set("support", Napi::Number::New(env, static_cast<double>(m.run().support.size())));
    out.Set("steps", Napi::Number::New(env, static_cast<double>(m.run().TotalSteps())));
    out.Set("mistakes", Napi::Number::New(env, static_cast<double>(m.run().TotalMistakes())));
    out.Set("chunks", Napi::Number::New(env, static_cast<double>(m.run().chunks.size())));
    out.Set("beta", Napi::Number::New(env, m.beta()));
    out.Set("baseWeight", Napi::Number::New(env, m.base_weight()));
    return out;
  }

  Napi::Value SupportIds(const Napi::CallbackInfo& info) {
    return ToInt32Array(info.Env(), model(info.Env()).run().support);
  }

  Napi::Value Coefficients(const Napi::CallbackInfo& info) {
    const int mode = info[0].IsNumber() ? info[0].As<Napi::Number>().Int32Value() : 0;
    return ToFloat64Array(info.Env(), model(info.Env()).Coefficients(static_cast<PredictMode>(mode)));
  }

  Napi::Value CompactFeatures(const Napi::CallbackInfo& info) {
    return ToInt32Array(info.Env(), model(info.Env()).CompactLinearFeatures());
  }

  static Napi::Value Load(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info[0].IsTypedArray() && info[0].As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array, env,
           "model bytes: Uint8Array");
    Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
    ByteReader reader(bytes.Data(), bytes.ElementLength());
    auto model =
        std::make_shared<RerankerModel>(ReadingModelPayload([&] { return RerankerModel::Load(reader); }));
    return Wrap(env, std::move(model));
  }

  std::shared_ptr<RerankerModel> model_;
};

// The options shaping training: a mixing epoch's {seed, threads, cacheMB, shuffle, baseWeight},
// and with `whole_run` (perceptronTrain) also {epochs, chunks, compressed}. Every field given
// (lib/options/rerank.ts perceptronFields).
PerceptronOptions TrainOptionsFrom(const Napi::Object& opts, bool whole_run) {
  PerceptronOptions options;
  if (whole_run) {
    options.epochs = RequiredInt(opts, "epochs");
    options.chunks = RequiredInt(opts, "chunks");
    options.compressed = RequiredBool(opts, "compressed");
  }
  options.seed = static_cast<uint64_t>(RequiredInt64(opts, "seed"));
  options.threads = RequiredThreads(opts);
  options.cache_bytes = static_cast<int64_t>(RequiredDouble(opts, "cacheMB") * 1048576.0);
  options.shuffle = RequiredBool(opts, "shuffle");
  options.base_weight = RequiredDouble(opts, "baseWeight");
  if (!std::isfinite(options.base_weight)) throw InputError("perceptron: baseWeight must be a finite number");
  return options;
}

// What perceptronTrain and a mixing epoch both read from their first two arguments: the
// training candidates and the options shaping training. Plain data, so the jobs copy it.
struct TrainingInput {
  std::shared_ptr<RankingSet> set;
  std::shared_ptr<CandidateBank> bank;
  PerceptronOptions options;
  double beta = 0;
  bool primal = false;
};

TrainingInput TrainingInputFrom(const Napi::Value& candidates, const Napi::Object& opts, bool whole_run) {
  Expect(candidates.IsObject(), candidates.Env(), "training candidates object");
  Napi::Object spec = candidates.As<Napi::Object>();
  TrainingInput in;
  in.set = std::make_shared<RankingSet>(RankingSetFrom(spec, true));
  in.bank = MakeCandidateBank(spec);
  in.options = TrainOptionsFrom(opts, whole_run);
  in.beta = RequiredDouble(opts, "beta");
  in.primal = RequiredBool(opts, "primal");
  return in;
}

// perceptronMixingEpoch(train, options, start, first, last, cancelFlag) -> Promise<{last,
// averaged, mistakes, steps}>: one parameter-mixing epoch over sentences [first, last).
Napi::Value MixingEpoch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Expect(info[1].IsObject(), env, "mixing epoch options");
  const TrainingInput in = TrainingInputFrom(info[0], info[1].As<Napi::Object>(), false);
  auto start = std::make_shared<std::vector<double>>(ToDoubles(info[2], "start coefficients"));
  Expect(info[3].IsNumber() && info[4].IsNumber(), env, "first, last: sentence numbers");
  const int64_t first = info[3].As<Napi::Number>().Int64Value(),
                last = info[4].As<Napi::Number>().Int64Value();
  auto cancel = CancelFlag::From(info[5]);
  auto result = std::make_shared<MixingEpochResult>();
  return RunAsync(
      env,
      [=]() {
        PerceptronOptions job = in.options;
        job.cancel = cancel.get();
        *result = RerankerModel::MixingEpoch(*in.bank, *in.set, in.beta, in.primal, job, *start, first, last);
      },
      [=](Napi::Env env) -> Napi::Value {
        Napi::Object out = Napi::Object::New(env);
        out.Set("last", ToFloat64Array(env, result->last));
        out.Set("averaged", ToFloat64Array(env, result->averaged));
        out.Set("mistakes", Napi::Number::New(env, static_cast<double>(result->mistakes)));
        out.Set("steps", Napi::Number::New(env, static_cast<double>(result->steps)));
        return out;
      });
}

// perceptronFromCoefficients(train, options, last, averaged) -> PerceptronModel of explicit
// coefficients (dense over the training candidates).
Napi::Value FromCoefficients(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Expect(info[0].IsObject(), env, "training candidates object");
  Napi::Object spec = info[0].As<Napi::Object>();
  RankingSet set = RankingSetFrom(spec, false);
  std::shared_ptr<CandidateBank> bank = MakeCandidateBank(spec);
  Expect(info[1].IsObject(), env, "options {beta, baseWeight}");
  Napi::Object opts = info[1].As<Napi::Object>();
  const double beta = RequiredDouble(opts, "beta");
  const double base_weight = RequiredDouble(opts, "baseWeight");
  auto model = std::make_shared<RerankerModel>(RerankerModel::FromCoefficients(
      *bank, set, beta, base_weight, ToDoubles(info[2], "last"), ToDoubles(info[3], "averaged")));
  return PerceptronModel::Wrap(env, std::move(model));
}

// perceptronTrain(train, options, cancelFlag, onProgress?)
Napi::Value Train(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Expect(info[1].IsObject(), env, "perceptron training options");
  Napi::Object opts = info[1].As<Napi::Object>();
  TrainingInput in = TrainingInputFrom(info[0], opts, true);
  auto cancel = CancelFlag::From(info[2]);
  in.options.cancel = cancel.get();
  // resume: runBytes() of the first resumeEpochs epochs (a checkpoint), continued here.
  std::shared_ptr<PerceptronRun> resume;
  Napi::Value resume_value = opts.Get("resume");
  if (resume_value.IsTypedArray()) {
    Napi::Uint8Array a = resume_value.As<Napi::Uint8Array>();
    ByteReader r(a.Data(), a.ElementLength());
    resume = std::make_shared<PerceptronRun>(PerceptronRun::Load(r));
    if (!r.AtEnd()) throw ModelError("perceptron checkpoint has trailing bytes");
    in.options.resume = resume.get();
    in.options.resume_epochs = RequiredInt(opts, "resumeEpochs");
  }

  std::shared_ptr<Napi::ThreadSafeFunction> progress;
  if (info[3].IsFunction()) {
    progress = std::make_shared<Napi::ThreadSafeFunction>(
        Napi::ThreadSafeFunction::New(env, info[3].As<Napi::Function>(), "perceptron-progress", 0, 1));
    in.options.progress = [progress](int64_t done, int64_t total, int64_t mistakes) {
      auto* data = new std::array<double, 3>{static_cast<double>(done), static_cast<double>(total),
                                             static_cast<double>(mistakes)};
      auto call = [](Napi::Env env, Napi::Function cb, std::array<double, 3>* d) {
        if (env != nullptr && cb != nullptr) {
          cb.Call({Napi::Number::New(env, (*d)[0]), Napi::Number::New(env, (*d)[1]),
                   Napi::Number::New(env, (*d)[2])});
        }
        delete d;
      };
      if (progress->NonBlockingCall(data, call) != napi_ok) delete data;
    };
  }
  auto result = std::make_shared<std::shared_ptr<RerankerModel>>();
  auto stats = std::make_shared<TrainStats>();
  return RunAsync(
      env,
      [=]() {
        struct Release {
          std::shared_ptr<Napi::ThreadSafeFunction> tsfn;
          ~Release() {
            if (tsfn) tsfn->Release();
          }
        } release{progress};
        PerceptronOptions job = in.options;
        job.resume = resume.get();  // also keeps the resumed run alive until the job ends
        *result = std::make_shared<RerankerModel>(
            RerankerModel::Train(*in.bank, *in.set, in.beta, in.primal, job, stats.get()));
      },
      [=](Napi::Env env) -> Napi::Value {
        Napi::Object model = PerceptronModel::Wrap(env, *result);
        Napi::Object s = Napi::Object::New(env);
        s.Set("kernelCalls", Napi::Number::New(env, static_cast<double>(stats->kernel_calls)));
        s.Set("cacheHits", Napi::Number::New(env, static_cast<double>(stats->cache_hits)));
        model.Set("stats", s);
        return model;
      });
}

void Init(Napi::Env env, Napi::Object exports) {
  PerceptronModel::Init(env, exports);
  exports.Set("perceptronTrain", MappedFunction<Train>(env, "perceptronTrain"));
  exports.Set("perceptronMixingEpoch", MappedFunction<MixingEpoch>(env, "perceptronMixingEpoch"));
  exports.Set("perceptronFromCoefficients",
              MappedFunction<FromCoefficients>(env, "perceptronFromCoefficients"));
}

static ModuleRegistration registration("perceptron", &Init);

}  // namespace

}  // namespace structrank::binding

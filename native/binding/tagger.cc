// N-API surface of the taggers: a NativeTagger wraps one TaggerModel, its training corpus
// and trainer while training, and decodes text for tagging. Sentences cross as one UTF-8
// string (tab-separated input columns, one token per line, blank line after a sentence);
// results come back as typed arrays of label ids.
#include <napi.h>

#include <memory>
#include <string>
#include <vector>

#include "binding/async.h"
#include "binding/cancel_flag.h"
#include "binding/convert.h"
#include "binding/registry.h"
#include "core/errors.h"
#include "core/thread_pool.h"
#include "tagger/trainer.h"

namespace structrank::binding {

namespace {

class NativeTagger : public Napi::ObjectWrap<NativeTagger> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function cls = DefineClass(
        env, "NativeTagger",
        {InstanceMethod("buildTraining", &NativeTagger::BuildTraining),
         InstanceMethod("createTrainer", &NativeTagger::CreateTrainer),
         InstanceMethod("trainSteps", &NativeTagger::TrainSteps),
         InstanceMethod("snapshot", &NativeTagger::Snapshot),
         InstanceMethod("restore", &NativeTagger::Restore),
         InstanceMethod("trainerState", &NativeTagger::TrainerState),
         InstanceMethod("loadTrainerState", &NativeTagger::LoadTrainerState),
         InstanceMethod("releaseTraining", &NativeTagger::ReleaseTraining),
         InstanceMethod("tag", &NativeTagger::Tag),
         InstanceMethod("tagAsync", &NativeTagger::TagAsync),
         InstanceMethod("tagNbest", &NativeTagger::TagNbest),
         InstanceMethod("tagNbestAsync", &NativeTagger::TagNbestAsync),
         InstanceMethod("labels", &NativeTagger::Labels),
         InstanceMethod("info", &NativeTagger::Info),
         InstanceMethod("serialize", &NativeTagger::Serialize),
         StaticMethod("deserialize", &NativeTagger::Deserialize)});
    SaveConstructor(env, "NativeTagger", cls);
    exports.Set("NativeTagger", cls);
  }

  // new NativeTagger({algorithm, order, beam, numColumns, templates: Int32Array, clusters?: string})
  // or new NativeTagger() (filled by deserialize).
  explicit NativeTagger(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NativeTagger>(info) {
    Napi::Env env = info.Env();
    model_ = std::make_shared<TaggerModel>();
    if (info.Length() == 0 || !info[0].IsObject()) return;
    Napi::Object o = info[0].As<Napi::Object>();
    int algo = OptionalInt(o, "algorithm", 1);
    if (algo < 0 || algo > 2) throw InputError("unknown tagger algorithm");
    model_->algorithm = static_cast<TaggerAlgorithm>(algo);
    model_->order = OptionalInt(o, "order", 1);
    if (model_->order != 1 && model_->order != 2) throw InputError("order must be 1 or 2");
    model_->beam = OptionalInt(o, "beam", 8);
    if (model_->beam < 1) throw InputError("beam must be at least 1");
    int columns = OptionalInt(o, "numColumns", 1);
    if (columns < 1) throw InputError("numColumns must be at least 1");
    Napi::Value t = o.Get("templates");
    Expect(t.IsTypedArray() && t.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array, env,
           "templates to be an Int32Array");
    Napi::Int32Array ints = t.As<Napi::Int32Array>();
    model_->config = FeatureConfig::FromInts(ints.Data(), ints.ElementLength(), columns);
    Napi::Value clusters = o.Get("clusters");
    if (clusters.IsString()) {
      std::string text = clusters.As<Napi::String>().Utf8Value();
      std::size_t pos = 0;
      while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(pos, end - pos);
        std::size_t tab = line.find('\t');
        if (tab != std::string::npos) model_->config.clusters[line.substr(0, tab)] = line.substr(tab + 1);
        pos = end + 1;
      }
    }
  }

 private:
  void RequireTrained() const {
    if (model_->weights.empty() && model_->num_labels() == 0) throw InputError("the tagger has no trained model");
  }

  // buildTraining(text, labels) -> {sentences, tokens, attributes, features}
  Napi::Value BuildTraining(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 2 && info[0].IsString() && info[1].IsString(), env, "(text, labels) strings");
    std::string text = info[0].As<Napi::String>().Utf8Value();
    std::string labels = info[1].As<Napi::String>().Utf8Value();
    corpus_ = std::make_shared<TaggerCorpus>(model_->BuildCorpus(text, labels, true));
    model_->BuildFeatures(*corpus_);
    Napi::Object out = Napi::Object::New(env);
    out.Set("sentences", Napi::Number::New(env, static_cast<double>(corpus_->sentences())));
    out.Set("tokens", Napi::Number::New(env, static_cast<double>(corpus_->tokens())));
    out.Set("attributes", Napi::Number::New(env, model_->attributes.size()));
    out.Set("features", Napi::Number::New(env, static_cast<double>(model_->num_features())));
    return out;
  }

  // createTrainer({optimizer: 0 lbfgs | 1 sgd, c2, eta0, threads, seed})
  Napi::Value CreateTrainer(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!corpus_) throw InputError("buildTraining must come before createTrainer");
    Napi::Object o = info.Length() > 0 && info[0].IsObject() ? info[0].As<Napi::Object>() : Napi::Object::New(env);
    TrainOptions opt;
    opt.optimizer = static_cast<CrfOptimizer>(OptionalInt(o, "optimizer", 0) == 1 ? 1 : 0);
    opt.c2 = OptionalDouble(o, "c2", 1.0);
    opt.eta0 = OptionalDouble(o, "eta0", 0.1);
    opt.threads = OptionalInt(o, "threads", 0);
    opt.seed = static_cast<uint64_t>(OptionalInt(o, "seed", 1));
    opt.lbfgs_memory = OptionalInt(o, "memory", 6);
    opt.sgd_warmup = OptionalInt(o, "sgdWarmup", 0);
    if (o.Has("startWeights")) opt.start_weights = o.Get("startWeights").ToBoolean();
    if (!(opt.c2 >= 0) || !(opt.eta0 > 0) || opt.lbfgs_memory < 1 || opt.sgd_warmup < 0) throw InputError("bad training options");
    trainer_ = std::make_shared<TaggerTrainer>(*model_, *corpus_, opt);
    return env.Undefined();
  }

  // trainSteps(n, cancelFlag) -> Promise<{loss, steps, converged}>; exports weights after.
  Napi::Value TrainSteps(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!trainer_) throw InputError("createTrainer must come before trainSteps");
    int n = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().Int32Value() : 1;
    auto cancel = CancelFlag::From(info.Length() > 1 ? info[1] : env.Undefined());
    auto trainer = trainer_;
    auto model = model_;
    auto corpus = corpus_;
    auto converged = std::make_shared<bool>(false);
    return RunAsync(
        env,
        [trainer, model, corpus, cancel, n, converged]() {
          for (int k = 0; k < n; ++k) {
            if (cancel->load()) throw Cancelled();
            if (!trainer->Step(cancel.get())) {
              *converged = true;
              break;
            }
          }
          trainer->ExportWeights();
        },
        [trainer, converged](Napi::Env env) -> Napi::Value {
          Napi::Object out = Napi::Object::New(env);
          out.Set("loss", Napi::Number::New(env, trainer->loss()));
          out.Set("steps", Napi::Number::New(env, trainer->steps()));
          out.Set("converged", Napi::Boolean::New(env, *converged));
          return out;
        });
  }

  Napi::Value Snapshot(const Napi::CallbackInfo& info) {
    best_ = model_->weights;
    return info.Env().Undefined();
  }
  Napi::Value Restore(const Napi::CallbackInfo& info) {
    if (!best_.empty()) model_->weights = best_;
    return info.Env().Undefined();
  }
  // trainerState() -> Uint8Array: the kept best weights (snapshot) and the trainer's state,
  // the payload of a training checkpoint (lib/io/checkpoint.ts).
  Napi::Value TrainerState(const Napi::CallbackInfo& info) {
    if (!trainer_) throw InputError("createTrainer must come before trainerState");
    ByteWriter w;
    w.PutVector(best_);
    trainer_->SaveState(w);
    return ToUint8Array(info.Env(), w.bytes());
  }
  // loadTrainerState(bytes): continues from a checkpoint; the model holds its weights after.
  Napi::Value LoadTrainerState(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!trainer_) throw InputError("createTrainer must come before loadTrainerState");
    Expect(info.Length() >= 1 && info[0].IsTypedArray(), env, "a Uint8Array");
    Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
    ByteReader r(bytes.Data(), bytes.ByteLength());
    std::vector<double> best = r.GetVector<double>();
    if (!best.empty() && best.size() != static_cast<std::size_t>(model_->num_weights())) {
      throw ModelError("checkpoint: the kept weights do not fit this model");
    }
    trainer_->LoadState(r);
    best_ = std::move(best);
    trainer_->ExportWeights();
    return env.Undefined();
  }
  Napi::Value ReleaseTraining(const Napi::CallbackInfo& info) {
    trainer_.reset();
    corpus_.reset();
    best_.clear();
    best_.shrink_to_fit();
    return info.Env().Undefined();
  }

  // Decodes every sentence of `text` with up to `threads` threads; labels per token.
  static std::vector<int32_t> TagText(const TaggerModel& model, const std::string& text, int threads,
                                      const std::atomic<bool>* cancel) {
    int nthreads = ResolveThreads(threads);
    TaggerCorpus corpus = model.LookupCorpus(text, nthreads, cancel);
    std::vector<int32_t> out(corpus.tokens(), 0);
    std::vector<std::unique_ptr<SentenceTagger>> taggers(nthreads);
    ParallelFor(
        static_cast<std::size_t>(corpus.sentences()), nthreads, 256,
        [&](std::size_t first, std::size_t last, int thread) {
          if (!taggers[thread]) taggers[thread] = std::make_unique<SentenceTagger>(model);
          for (std::size_t s = first; s < last; ++s) {
            taggers[thread]->Best(corpus, s, &out[corpus.sentence_start[s]]);
          }
        },
        cancel);
    return out;
  }

  // tag(text, threads) -> Int32Array of label ids, one per token line (synchronous).
  Napi::Value Tag(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    RequireTrained();
    Expect(info.Length() >= 1 && info[0].IsString(), env, "text string");
    int threads = info.Length() > 1 && info[1].IsNumber() ? info[1].As<Napi::Number>().Int32Value() : 1;
    return ToInt32Array(env, TagText(*model_, info[0].As<Napi::String>().Utf8Value(), threads, nullptr));
  }

  // tagAsync(text, threads, cancelFlag) -> Promise<Int32Array>
  Napi::Value TagAsync(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    RequireTrained();
    Expect(info.Length() >= 1 && info[0].IsString(), env, "text string");
    int threads = info.Length() > 1 && info[1].IsNumber() ? info[1].As<Napi::Number>().Int32Value() : 0;
    auto cancel = CancelFlag::From(info.Length() > 2 ? info[2] : env.Undefined());
    auto text = std::make_shared<std::string>(info[0].As<Napi::String>().Utf8Value());
    auto model = model_;
    auto out = std::make_shared<std::vector<int32_t>>();
    return RunAsync(
        env, [model, text, threads, cancel, out]() { *out = TagText(*model, *text, threads, cancel.get()); },
        [out](Napi::Env env) -> Napi::Value { return ToInt32Array(env, *out); });
  }

  // tagNbest(text, k) -> {counts: Int32Array (per sentence), labels: Int32Array, scores: Float64Array}
  Napi::Value TagNbest(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    RequireTrained();
    Expect(info.Length() >= 2 && info[0].IsString() && info[1].IsNumber(), env, "(text, k)");
    int k = info[1].As<Napi::Number>().Int32Value();
    if (k < 1) throw InputError("k must be at least 1");
    TaggerCorpus corpus = model_->LookupCorpus(info[0].As<Napi::String>().Utf8Value(), 1);
    SentenceTagger tagger(*model_);
    std::vector<std::vector<Candidate>> lists(corpus.sentences());
    for (int64_t s = 0; s < corpus.sentences(); ++s) lists[s] = tagger.Decode(corpus, s, k);
    return NbestArrays(env, lists);
  }

  // tagNbestAsync(text, k, threads, cancelFlag) -> Promise<same as tagNbest>, on all cores.
  Napi::Value TagNbestAsync(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    RequireTrained();
    Expect(info.Length() >= 2 && info[0].IsString() && info[1].IsNumber(), env, "(text, k, threads?, flag?)");
    int k = info[1].As<Napi::Number>().Int32Value();
    if (k < 1) throw InputError("k must be at least 1");
    int threads = info.Length() > 2 && info[2].IsNumber() ? info[2].As<Napi::Number>().Int32Value() : 0;
    auto cancel = CancelFlag::From(info.Length() > 3 ? info[3] : env.Undefined());
    auto text = std::make_shared<std::string>(info[0].As<Napi::String>().Utf8Value());
    auto model = model_;
    auto lists = std::make_shared<std::vector<std::vector<Candidate>>>();
    return RunAsync(
        env,
        [model, text, k, threads, cancel, lists]() {
          int nthreads = ResolveThreads(threads);
          TaggerCorpus corpus = model->LookupCorpus(*text, nthreads, cancel.get());
          lists->resize(corpus.sentences());
          std::vector<std::unique_ptr<SentenceTagger>> taggers(nthreads);
          ParallelFor(
              static_cast<std::size_t>(corpus.sentences()), nthreads, 16,
              [&](std::size_t first, std::size_t last, int thread) {
                if (!taggers[thread]) taggers[thread] = std::make_unique<SentenceTagger>(*model);
                for (std::size_t s = first; s < last; ++s) (*lists)[s] = taggers[thread]->Decode(corpus, s, k);
              },
              cancel.get());
        },
        [lists](Napi::Env env) -> Napi::Value { return NbestArrays(env, *lists); });
  }

  // k-best lists as flat typed arrays: counts[s] candidates for sentence s, their labels
  // concatenated, and one score each.
  static Napi::Object NbestArrays(Napi::Env env, const std::vector<std::vector<Candidate>>& lists) {
    std::vector<int32_t> counts, labels;
    std::vector<double> scores;
    for (const auto& cands : lists) {
      counts.push_back(static_cast<int32_t>(cands.size()));
      for (const auto& c : cands) {
        labels.insert(labels.end(), c.labels.begin(), c.labels.end());
        scores.push_back(c.score);
      }
    }
    Napi::Object out = Napi::Object::New(env);
    out.Set("counts", ToInt32Array(env, counts));
    out.Set("labels", ToInt32Array(env, labels));
    out.Set("scores", ToFloat64Array(env, scores));
    return out;
  }

  Napi::Value Labels(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::Array out = Napi::Array::New(env);
    for (int32_t y = 0; y < model_->num_labels(); ++y) out.Set(y, Napi::String::New(env, model_->labels.Name(y)));
    return out;
  }

  Napi::Value Info(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::Object out = Napi::Object::New(env);
    out.Set("algorithm", Napi::Number::New(env, static_cast<int>(model_->algorithm)));
    out.Set("order", Napi::Number::New(env, model_->order));
    out.Set("labels", Napi::Number::New(env, model_->num_labels()));
    out.Set("attributes", Napi::Number::New(env, model_->attributes.size()));
    out.Set("features", Napi::Number::New(env, static_cast<double>(model_->num_features())));
    out.Set("weights", Napi::Number::New(env, static_cast<double>(model_->weights.size())));
    out.Set("numColumns", Napi::Number::New(env, model_->config.num_columns));
    return out;
  }

  Napi::Value Serialize(const Napi::CallbackInfo& info) {
    ByteWriter w;
    model_->Serialize(w);
    return ToUint8Array(info.Env(), w.bytes());
  }

  static Napi::Value Deserialize(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 1 && info[0].IsTypedArray(), env, "a Uint8Array");
    Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
    ByteReader r(bytes.Data(), bytes.ByteLength());
    auto model = std::make_shared<TaggerModel>(TaggerModel::Deserialize(r));
    Napi::Object obj = GetConstructor(env, "NativeTagger").New({});
    NativeTagger::Unwrap(obj)->model_ = model;
    return obj;
  }

  std::shared_ptr<TaggerModel> model_;
  std::shared_ptr<TaggerCorpus> corpus_;
  std::shared_ptr<TaggerTrainer> trainer_;
  std::vector<double> best_;
};

}  // namespace

static ModuleRegistration registration("tagger", &NativeTagger::Init);

}  // namespace structrank::binding

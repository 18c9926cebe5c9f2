// N-API surface of the taggers: a NativeTagger wraps one TaggerModel, its training corpus
// and trainer while training, and decodes text for tagging. Sentences cross as one UTF-8
// string (tab-separated input columns, one token per line, blank line after a sentence);
// results come back as typed arrays of label ids.
#include <napi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "binding/async.h"
#include "binding/cancel_flag.h"
#include "binding/convert.h"
#include "binding/options.h"
#include "binding/registry.h"
#include "core/errors.h"
#include "core/thread_pool.h"
#include "tagger/column_tagging.h"
#include "tagger/sentence_tagger.h"
#include "tagger/trainer.h"
#include "tagger/training_columns.h"

namespace structrank::binding {

namespace {

// Bytes in native memory that JavaScript fills (a model file read straight into them) and a
// loaded model then uses in place: the model keeps them alive after JavaScript drops its
// Buffer. deserialize() finds the block a payload lies in through this registry.
class SharedBytes {
 public:
  // Blocks of a few MB are 2 MB aligned and, on Linux, asked to be backed by huge pages: a
  // model file is read into them once, and 2 MB pages take a few hundred times fewer page
  // faults than 4 KB ones (those faults were most of the time spent reading a model).
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  explicit SharedBytes(std::size_t size)
      : size_(size),
        align_(size >= kHugePage ? kHugePage : 64),
        data_(static_cast<uint8_t*>(::operator new (size == 0 ? 1 : size, std::align_val_t{align_}))) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (align_ == kHugePage) madvise(data_, size, MADV_HUGEPAGE);  // a hint: ignored where unsupported
#endif
  }
  ~SharedBytes() {
    {
      std::lock_guard<std::mutex> lock(Mutex());
      Live().erase(reinterpret_cast<std::uintptr_t>(data_));
    }
    ::operator delete (data_, std::align_val_t{align_});
  }
  SharedBytes(const SharedBytes&) = delete;
  SharedBytes& operator=(const SharedBytes&) = delete;

  static std::shared_ptr<SharedBytes> Create(std::size_t size) {
    auto bytes = std::make_shared<SharedBytes>(size);
    std::lock_guard<std::mutex> lock(Mutex());
    Live()[reinterpret_cast<std::uintptr_t>(bytes->data_)] = bytes;
    return bytes;
  }
  // The live block holding [p, p + n), or null.
  static std::shared_ptr<SharedBytes> Holding(const uint8_t* p, std::size_t n) {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    std::lock_guard<std::mutex> lock(Mutex());
    auto it = Live().upper_bound(at);
    if (it == Live().begin()) return nullptr;
    --it;
    std::shared_ptr<SharedBytes> bytes = it->second.lock();
    if (!bytes || at + n > it->first + bytes->size_) return nullptr;
    return bytes;
  }
  uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  static std::mutex& Mutex() {
    static std::mutex m;
    return m;
  }
  static std::map<std::uintptr_t, std::weak_ptr<SharedBytes>>& Live() {
    static std::map<std::uintptr_t, std::weak_ptr<SharedBytes>> live;
    return live;
  }
  std::size_t size_;
  std::size_t align_;
  uint8_t* data_;
};

class NativeTagger : public ErrorMappingWrap<NativeTagger> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function cls =
        DefineClass(env, "NativeTagger",
                    {InstanceMethod("buildTraining", &NativeTagger::BuildTraining),
                     InstanceMethod("buildTrainingRows", &NativeTagger::BuildTrainingRows),
                     InstanceMethod("createTrainer", &NativeTagger::CreateTrainer),
                     InstanceMethod("trainSteps", &NativeTagger::TrainSteps),
                     InstanceMethod("snapshot", &NativeTagger::Snapshot),
                     InstanceMethod("restore", &NativeTagger::Restore),
                     InstanceMethod("trainerState", &NativeTagger::TrainerState),
                     InstanceMethod("loadTrainerState", &NativeTagger::LoadTrainerState),
                     InstanceMethod("releaseTraining", &NativeTagger::ReleaseTraining),
                     InstanceMethod("weights", &NativeTagger::Weights),
                     InstanceMethod("setWeights", &NativeTagger::SetWeights),
                     InstanceMethod("shardGradient", &NativeTagger::ShardGradient),
                     InstanceMethod("shardPerceptronEpoch", &NativeTagger::ShardPerceptronEpoch),
                     InstanceMethod("tag", &NativeTagger::Tag),
                     InstanceMethod("tagAsync", &NativeTagger::TagAsync),
                     InstanceMethod("tagColumns", &NativeTagger::TagColumnsSync),
                     InstanceMethod("tagNbest", &NativeTagger::TagNbest),
                     InstanceMethod("tagNbestAsync", &NativeTagger::TagNbestAsync),
                     InstanceMethod("labels", &NativeTagger::Labels),
                     InstanceMethod("info", &NativeTagger::Info),
                     InstanceMethod("serialize", &NativeTagger::Serialize),
                     StaticMethod("deserialize", &NativeTagger::Deserialize),
                     StaticMethod("sharedBytes", &NativeTagger::NewSharedBytes),
                     StaticMethod("readTrainingColumns", &NativeTagger::ReadColumns)});
    SaveConstructor(env, "NativeTagger", cls);
    exports.Set("NativeTagger", cls);
  }

  // new NativeTagger({algorithm, order, beam, numColumns, templates: Int32Array, clusters?: string})
  // or new NativeTagger() (filled by deserialize).
  explicit NativeTagger(const Napi::CallbackInfo& info) try : ErrorMappingWrap
    <NativeTagger>(info) {
      Napi::Env env = info.Env();
      model_ = std::make_shared<TaggerModel>();
      if (info.Length() == 0 || !info[0].IsObject()) return;
      Napi::Object o = info[0].As<Napi::Object>();
      int algo = RequiredInt(o, "algorithm");
      if (algo < 0 || algo > 2) throw InputError("unknown tagger algorithm");
      model_->algorithm = static_cast<TaggerAlgorithm>(algo);
      model_->order = RequiredInt(o, "order");
      if (model_->order != 1 && model_->order != 2) throw InputError("order must be 1 or 2");
      model_->beam = RequiredInt(o, "beam");
      if (model_->beam < 1) throw InputError("beam must be at least 1");
      int columns = RequiredInt(o, "numColumns");
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
  catch (const Napi::Error&) {
    throw;
  } catch (...) {
    throw ErrorFromException(info.Env(), std::current_exception());
  }

 private:
  void RequireTrained() const {
    if (model_->weights.empty() && model_->num_labels() == 0)
      throw InputError("the tagger has no trained model");
  }

  // buildTraining(text, labels) -> {sentences, tokens, attributes, features}
  Napi::Value BuildTraining(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 2 && ((info[0].IsString() && info[1].IsString()) ||
                                  (info[0].IsTypedArray() && info[1].IsTypedArray())),
           env, "(text, labels) as strings or as UTF-8 bytes");
    if (info[0].IsString())
      return Build(env, info[0].As<Napi::String>().Utf8Value(), info[1].As<Napi::String>().Utf8Value());
    return Build(env, BytesOf(info[0]), BytesOf(info[1]));
  }

  static std::string BytesOf(const Napi::Value& v) {
    Napi::Uint8Array a = v.As<Napi::Uint8Array>();
    return std::string(reinterpret_cast<const char*>(a.Data()), a.ElementLength());
  }

  // readTrainingColumns(bytes, width, tab, inputIdx, labelIndex) -> {text, labels (UTF-8
  // bytes for buildTraining), sentences, tokens, lines, labelNames, labelCounts, errorLine,
  // errorFound}: a CoNLL file read without a JS string per token (training_columns.h).
  static Napi::Value ReadColumns(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 5 && info[0].IsTypedArray() && info[1].IsNumber() && info[3].IsTypedArray() &&
               info[4].IsNumber(),
           env, "(bytes, width, tab, inputIdx, labelIndex)");
    Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
    const int32_t width = info[1].As<Napi::Number>().Int32Value();
    std::vector<int32_t> input_index = ToVector<int32_t>(info[3].As<Napi::Int32Array>());
    const int32_t label_index = info[4].As<Napi::Number>().Int32Value();
    const auto in_row = [width](int32_t c) { return c >= 0 && c < width; };
    if (width < 1 || !in_row(label_index) || input_index.empty())
      throw InputError("readTrainingColumns: bad column layout");
    for (int32_t c : input_index)
      if (!in_row(c)) throw InputError("readTrainingColumns: bad column layout");
    TrainingColumns r = ReadTrainingColumns(
        std::string_view(reinterpret_cast<const char*>(bytes.Data()), bytes.ElementLength()), width,
        info[2].ToBoolean(), input_index, label_index);
    Napi::Object out = Napi::Object::New(env);
    out.Set("text", Napi::Buffer<char>::Copy(env, r.text.data(), r.text.size()));
    out.Set("labels", Napi::Buffer<char>::Copy(env, r.labels.data(), r.labels.size()));
    out.Set("sentences", Napi::Number::New(env, static_cast<double>(r.sentences)));
    out.Set("tokens", Napi::Number::New(env, static_cast<double>(r.tokens)));
    out.Set("lines", Napi::Number::New(env, static_cast<double>(r.lines)));
    Napi::Array names = Napi::Array::New(env, r.label_counts.size());
    Napi::Float64Array counts = Napi::Float64Array::New(env, r.label_counts.size());
    for (std::size_t i = 0; i < r.label_counts.size(); ++i) {
      names.Set(static_cast<uint32_t>(i), Napi::String::New(env, r.label_counts[i].first));
      counts[i] = static_cast<double>(r.label_counts[i].second);
    }
    out.Set("labelNames", names);
    out.Set("labelCounts", counts);
    out.Set("errorLine", Napi::Number::New(env, static_cast<double>(r.error_line)));
    out.Set("errorFound", Napi::Number::New(env, r.error_found));
    return out;
  }

  // buildTrainingRows(sentences, inputIdx, labelIndex): buildTraining from the rows
  // themselves (string[][][], fields already checked by the caller), the text layout built
  // here, so that no JS copy of the corpus is left for the garbage collector.
  Napi::Value BuildTrainingRows(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 3 && info[0].IsArray() && info[1].IsTypedArray() && info[2].IsNumber(), env,
           "(sentences, inputIdx, labelIndex)");
    Napi::Array sentences = info[0].As<Napi::Array>();
    Napi::Int32Array idx = info[1].As<Napi::Int32Array>();
    const uint32_t label = info[2].As<Napi::Number>().Uint32Value();
    std::string text, labels;
    for (uint32_t s = 0; s < sentences.Length(); ++s) {
      Napi::HandleScope scope(env);  // one sentence's handles at a time
      Napi::Array rows = sentences.Get(s).As<Napi::Array>();
      if (rows.Length() == 0) continue;
      for (uint32_t t = 0; t < rows.Length(); ++t) {
        Napi::Array row = rows.Get(t).As<Napi::Array>();
        for (std::size_t c = 0; c < idx.ElementLength(); ++c) {
          if (c > 0) text += '\t';
          text += row.Get(static_cast<uint32_t>(idx[c])).As<Napi::String>().Utf8Value();
        }
        text += '\n';
        labels += row.Get(label).As<Napi::String>().Utf8Value();
        labels += '\n';
      }
      text += '\n';
      labels += '\n';
    }
    return Build(env, text, labels);
  }

  Napi::Value Build(Napi::Env env, const std::string& text, const std::string& labels) {
    corpus_ = std::make_shared<TaggerCorpus>(model_->BuildCorpus(text, labels, true));
    model_->BuildFeatures(*corpus_);
    // From here on the attribute table is only looked up (dev sets, tagging): re-sized to a
    // lookup table's 2/3 fill from the growing table's 1/2 (8 MB less for conll2000). Same ids.
    model_->attributes.Rebuild(model_->attributes.keys());
    Napi::Object out = Napi::Object::New(env);
    out.Set("sentences", Napi::Number::New(env, static_cast<double>(corpus_->sentences())));
    out.Set("tokens", Napi::Number::New(env, static_cast<double>(corpus_->tokens())));
    out.Set("attributes", Napi::Number::New(env, model_->attributes.size()));
    out.Set("features", Napi::Number::New(env, static_cast<double>(model_->num_features())));
    return out;
  }

  // createTrainer({optimizer: 0 lbfgs | 1 sgd, c2, eta0, threads, seed, memory, sgdWarmup, startWeights})
  Napi::Value CreateTrainer(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!corpus_) throw InputError("buildTraining must come before createTrainer");
    Expect(info.Length() > 0 && info[0].IsObject(), env, "trainer options");
    Napi::Object o = info[0].As<Napi::Object>();
    TrainOptions opt;
    opt.optimizer = static_cast<CrfOptimizer>(RequiredInt(o, "optimizer") == 1 ? 1 : 0);
    opt.c2 = RequiredDouble(o, "c2");
    opt.eta0 = RequiredDouble(o, "eta0");
    opt.threads = RequiredThreads(o);
    opt.seed = static_cast<uint64_t>(RequiredInt64(o, "seed"));
    opt.lbfgs_memory = RequiredInt(o, "memory");
    opt.sgd_warmup = RequiredInt(o, "sgdWarmup");
    opt.start_weights = RequiredBool(o, "startWeights");
    if (!(opt.c2 >= 0) || !(opt.eta0 > 0) || opt.lbfgs_memory < 1 || opt.sgd_warmup < 0)
      throw InputError("bad training options");
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
    best_ = model_->weights.ToVector();
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
    shards_.clear();
    best_.clear();
    best_.shrink_to_fit();
    return info.Env().Undefined();
  }

  // ---- distributed training (lib/distributed/gradient.ts, mixing.ts) ----
  // A worker builds the same training corpus as the coordinator (buildTraining on the same
  // text: the features are the whole corpus's) and works on sentences [first, last) of it.

  // weights() -> Float64Array: the model's weights, zeros before any training step.
  Napi::Value Weights(const Napi::CallbackInfo& info) {
    std::vector<double> w = model_->weights.ToVector();
    w.resize(static_cast<std::size_t>(model_->num_weights()), 0.0);
    return ToFloat64Array(info.Env(), w);
  }

  // setWeights(Float64Array): weights computed elsewhere (mixed, or stepped by the coordinator).
  Napi::Value SetWeights(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 1 && info[0].IsTypedArray() &&
               info[0].As<Napi::TypedArray>().TypedArrayType() == napi_float64_array,
           env, "a Float64Array");
    Napi::Float64Array a = info[0].As<Napi::Float64Array>();
    if (static_cast<int64_t>(a.ElementLength()) != model_->num_weights())
      throw InputError("weight vector of the wrong length");
    model_->weights = std::vector<double>(a.Data(), a.Data() + a.ElementLength());
    return env.Undefined();
  }

  // A shard of the training corpus: sentences [first, last) as a corpus of their own, and,
  // once a CRF gradient asks for it, the feature index ordered by the shard's own counts (the
  // local trainer's layout). Kept per range: a worker sees the same shards every iteration,
  // and with more shards than workers it gets a different one from one iteration to the next.
  struct Shard {
    std::shared_ptr<TaggerCorpus> corpus;
    std::shared_ptr<const FeatureIndex> index;
  };
  static constexpr std::size_t kKeptShards = 16;

  Shard& ShardOf(int64_t first, int64_t last) {
    if (!corpus_) throw InputError("buildTraining must come before a shard computation");
    if (first < 0 || last > corpus_->sentences() || first >= last)
      throw InputError("sentence range outside the training corpus");
    auto found = shards_.find({first, last});
    if (found != shards_.end()) return found->second;
    if (shards_.size() >= kKeptShards) shards_.clear();  // another shard layout: start over
    auto out = std::make_shared<TaggerCorpus>();
    const TaggerCorpus& c = *corpus_;
    for (int64_t t = c.sentence_start[first]; t < c.sentence_start[last]; ++t) {
      out->attributes.AddRow(&c.attributes.cols[c.attributes.RowBegin(t)], nullptr,
                             c.attributes.RowEnd(t) - c.attributes.RowBegin(t));
      if (c.edge_attributes.rows() > 0) {
        out->edge_attributes.AddRow(&c.edge_attributes.cols[c.edge_attributes.RowBegin(t)], nullptr,
                                    c.edge_attributes.RowEnd(t) - c.edge_attributes.RowBegin(t));
      }
      out->labels.push_back(c.labels[t]);
    }
    for (int64_t s = first; s < last; ++s)
      out->sentence_start.push_back(c.sentence_start[s + 1] - c.sentence_start[first]);
    return shards_[{first, last}] = Shard{out, nullptr};
  }

  std::shared_ptr<TaggerCorpus> Slice(int64_t first, int64_t last) { return ShardOf(first, last).corpus; }

  // The shard's feature index for CrfObjective; null when the model does not fit one.
  std::shared_ptr<const FeatureIndex> ShardIndex(int64_t first, int64_t last) {
    Shard& shard = ShardOf(first, last);
    if (!shard.index && FeatureIndex::Fits(*model_)) {
      shard.index = std::make_shared<const FeatureIndex>(FeatureIndex::For(*model_, *shard.corpus));
    }
    return shard.index;
  }

  static std::vector<double> WeightsArg(const Napi::CallbackInfo& info, int64_t size) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 1 && info[0].IsTypedArray() &&
               info[0].As<Napi::TypedArray>().TypedArrayType() == napi_float64_array,
           env, "weights as a Float64Array");
    Napi::Float64Array a = info[0].As<Napi::Float64Array>();
    if (static_cast<int64_t>(a.ElementLength()) != size)
      throw InputError("weight vector of the wrong length");
    return std::vector<double>(a.Data(), a.Data() + a.ElementLength());
  }

  // shardGradient(weights, first, last, threads, startWeights, flag) -> Promise<{loss, gradient}>:
  // the CRF objective's data term sum_s (log Z_s - score(gold_s)) over sentences [first, last)
  // and its gradient, without the prior (the coordinator adds c2 |w|^2 once).
  Napi::Value ShardGradient(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (model_->algorithm != TaggerAlgorithm::kCrf)
      throw InputError("shard gradients are for the CRF tagger");
    Expect(info.Length() >= 5 && info[1].IsNumber() && info[2].IsNumber() && info[3].IsNumber(), env,
           "(weights, first, last, threads, startWeights, flag?)");
    auto w = std::make_shared<std::vector<double>>(WeightsArg(info, model_->num_weights()));
    const int64_t first = info[1].As<Napi::Number>().Int64Value(),
                  last = info[2].As<Napi::Number>().Int64Value();
    auto corpus = Slice(first, last);
    auto index = ShardIndex(first, last);
    int threads = ThreadsArgument(info, 3);
    bool start_weights = info[4].ToBoolean();
    auto cancel = CancelFlag::From(info.Length() > 5 ? info[5] : env.Undefined());
    auto model = model_;
    auto grad = std::make_shared<std::vector<double>>(w->size());
    auto loss = std::make_shared<double>(0);
    return RunAsync(
        env,
        [model, corpus, index, w, grad, loss, threads, start_weights, cancel]() {
          ChainLattice lat = ChainLattice::For(*model);
          *loss = CrfObjective(*model, lat, *corpus, *w, *grad, 0.0, threads, cancel.get(), start_weights,
                               index.get());
        },
        [grad, loss](Napi::Env env) -> Napi::Value {
          Napi::Object out = Napi::Object::New(env);
          out.Set("loss", Napi::Number::New(env, *loss));
          out.Set("gradient", ToFloat64Array(env, *grad));
          return out;
        });
  }

  // shardPerceptronEpoch(weights, first, last, seed, startWeights, flag) ->
  //   Promise<{mistakes, weights, averaged}>: one perceptron epoch over sentences [first, last)
  // from `weights` (iterative parameter mixing): the weights at its end and their average over it.
  Napi::Value ShardPerceptronEpoch(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (model_->algorithm != TaggerAlgorithm::kPerceptron)
      throw InputError("parameter mixing is for the perceptron tagger");
    Expect(info.Length() >= 5 && info[1].IsNumber() && info[2].IsNumber() && info[3].IsNumber(), env,
           "(weights, first, last, seed, startWeights, flag?)");
    auto w = WeightsArg(info, model_->num_weights());
    auto corpus = Slice(info[1].As<Napi::Number>().Int64Value(), info[2].As<Napi::Number>().Int64Value());
    TrainOptions opt;
    opt.seed = static_cast<uint64_t>(info[3].As<Napi::Number>().Int64Value());
    opt.start_weights = info[4].ToBoolean();
    auto cancel = CancelFlag::From(info.Length() > 5 ? info[5] : env.Undefined());
    // A model of its own (sharing nothing mutable with this one), so concurrent calls are safe.
    auto model = std::make_shared<TaggerModel>(*model_);
    model->weights = std::move(w);
    auto raw = std::make_shared<std::vector<double>>();
    auto mistakes = std::make_shared<double>(0);
    return RunAsync(
        env,
        [model, corpus, opt, cancel, raw, mistakes]() {
          TaggerTrainer trainer(*model, *corpus, opt);
          trainer.Step(cancel.get());
          *mistakes = trainer.loss();
          *raw = trainer.raw_weights();
          trainer.ExportWeights();
        },
        [model, raw, mistakes](Napi::Env env) -> Napi::Value {
          Napi::Object out = Napi::Object::New(env);
          out.Set("mistakes", Napi::Number::New(env, *mistakes));
          out.Set("weights", ToFloat64Array(env, *raw));
          out.Set("averaged", ToFloat64Array(env, model->weights.ToVector()));
          return out;
        });
  }

  // Decodes every sentence of `text` with up to `threads` threads; labels per token.
  static std::vector<int32_t> TagText(const TaggerModel& model, const std::string& text, int nthreads,
                                      const std::atomic<bool>* cancel) {
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
    int threads = ThreadsArgument(info, 1);
    return ToInt32Array(env, TagText(*model_, info[0].As<Napi::String>().Utf8Value(), threads, nullptr));
  }

  // tagAsync(text, threads, cancelFlag) -> Promise<Int32Array>
  Napi::Value TagAsync(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    RequireTrained();
    Expect(info.Length() >= 1 && info[0].IsString(), env, "text string");
    int threads = ThreadsArgument(info, 1);
    auto cancel = CancelFlag::From(info.Length() > 2 ? info[2] : env.Undefined());
    auto text = std::make_shared<std::string>(info[0].As<Napi::String>().Utf8Value());
    auto model = model_;
    auto out = std::make_shared<std::vector<int32_t>>();
    return RunAsync(
        env, [model, text, threads, cancel, out]() { *out = TagText(*model, *text, threads, cancel.get()); },
        [out](Napi::Env env) -> Napi::Value { return ToInt32Array(env, *out); });
  }

  // tagColumns(block: Uint8Array, final, width, {inputColumns, allColumns, fullIndex: Int32Array, tab},
  //            threads, into?: Uint8Array) -> {output: Uint8Array, consumed, lines, width, errorLine,
  //            errorFound, errorKind}: column text tagged as the tag command writes it
  //            (tagger/column_tagging.h). The output is a view of the start of `into` when it
  //            fits there, else a new array: a stream reusing one buffer leaves no garbage per block.
  // Synchronous on purpose: blocks are small (lib/tagger/tag-stream.ts), and work done on the
  // JS thread reuses one allocator arena instead of growing one per pool thread.
  Napi::Value TagColumnsSync(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    RequireTrained();
    Expect(info.Length() >= 4 && info[0].IsTypedArray() && info[1].IsBoolean() && info[2].IsNumber() &&
               info[3].IsObject(),
           env, "(block, final, width, layout, threads)");
    Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
    std::string_view block(reinterpret_cast<const char*>(bytes.Data()), bytes.ByteLength());
    bool final = info[1].As<Napi::Boolean>().Value();
    int32_t width = info[2].As<Napi::Number>().Int32Value();
    Napi::Object o = info[3].As<Napi::Object>();
    ColumnLayout layout;
    layout.input_columns = RequiredInt(o, "inputColumns");
    layout.all_columns = RequiredInt(o, "allColumns");
    layout.tab = RequiredBool(o, "tab");
    Napi::Value idx = o.Get("fullIndex");
    Expect(idx.IsTypedArray() && idx.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array, env,
           "layout.fullIndex to be an Int32Array");
    layout.full_index = ToVector<int32_t>(idx.As<Napi::Int32Array>());
    for (int32_t c : layout.full_index) {
      if (c < 0 || c >= layout.all_columns) throw InputError("layout.fullIndex out of range");
    }
    int threads = ThreadsArgument(info, 4);
    ColumnTagResult result =
        TagColumns(*model_, block, final, width, layout, threads, nullptr, &column_scratch_);
    // A block far larger than the stream's (64 KiB, about 100,000 attribute ids) is not kept.
    if (column_scratch_.corpus.attributes.cols.capacity() > (std::size_t{1} << 22)) {
      column_scratch_ = ColumnTagScratch();
    }
    Napi::Object out = Napi::Object::New(env);
    Napi::Uint8Array text;
    if (info.Length() > 5 && info[5].IsTypedArray() &&
        info[5].As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array &&
        info[5].As<Napi::Uint8Array>().ByteLength() >= result.output.size()) {
      Napi::Uint8Array into = info[5].As<Napi::Uint8Array>();
      text = Napi::Uint8Array::New(env, result.output.size(), into.ArrayBuffer(), into.ByteOffset());
    } else {
      text = Napi::Uint8Array::New(env, result.output.size());
    }
    std::copy(result.output.begin(), result.output.end(), text.Data());
    out.Set("output", text);
    out.Set("consumed", Napi::Number::New(env, static_cast<double>(result.consumed)));
    out.Set("lines", Napi::Number::New(env, static_cast<double>(result.lines)));
    out.Set("width", Napi::Number::New(env, result.width));
    out.Set("errorLine", Napi::Number::New(env, static_cast<double>(result.error_line)));
    out.Set("errorFound", Napi::Number::New(env, result.error_found));
    out.Set("errorKind", Napi::Number::New(env, result.error_kind));
    return out;
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

  // tagNbestAsync(text, k, threads, cancelFlag) -> Promise<same as tagNbest>, on `threads` threads.
  Napi::Value TagNbestAsync(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    RequireTrained();
    Expect(info.Length() >= 2 && info[0].IsString() && info[1].IsNumber(), env, "(text, k, threads, flag?)");
    int k = info[1].As<Napi::Number>().Int32Value();
    if (k < 1) throw InputError("k must be at least 1");
    int threads = ThreadsArgument(info, 2);
    auto cancel = CancelFlag::From(info.Length() > 3 ? info[3] : env.Undefined());
    auto text = std::make_shared<std::string>(info[0].As<Napi::String>().Utf8Value());
    auto model = model_;
    auto lists = std::make_shared<std::vector<std::vector<Candidate>>>();
    return RunAsync(
        env,
        [model, text, k, nthreads = threads, cancel, lists]() {
          TaggerCorpus corpus = model->LookupCorpus(*text, nthreads, cancel.get());
          lists->resize(corpus.sentences());
          std::vector<std::unique_ptr<SentenceTagger>> taggers(nthreads);
          ParallelFor(
              static_cast<std::size_t>(corpus.sentences()), nthreads, 16,
              [&](std::size_t first, std::size_t last, int thread) {
                if (!taggers[thread]) taggers[thread] = std::make_unique<SentenceTagger>(*model);
                for (std::size_t s = first; s < last; ++s)
                  (*lists)[s] = taggers[thread]->Decode(corpus, s, k);
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
    for (int32_t y = 0; y < model_->num_labels(); ++y)
      out.Set(y, Napi::String::New(env, model_->labels.Name(y)));
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
    // Bytes from sharedBytes() are used in place; any others are copied.
    std::shared_ptr<const void> keep = SharedBytes::Holding(bytes.Data(), bytes.ByteLength());
    auto model =
        std::make_shared<TaggerModel>(ReadingModelPayload([&] { return TaggerModel::Deserialize(r, keep); }));
    Napi::Object obj = GetConstructor(env, "NativeTagger").New({});
    NativeTagger::Unwrap(obj)->model_ = model;
    return obj;
  }

  // sharedBytes(size) -> Buffer of `size` bytes in native memory, for a model file to be
  // read into and then deserialized in place.
  static Napi::Value NewSharedBytes(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 1 && info[0].IsNumber(), env, "a byte count");
    const double size = info[0].As<Napi::Number>().DoubleValue();
    if (!(size >= 0 && size <= 9007199254740991.0)) throw InputError("bad byte count");
    auto* bytes = new std::shared_ptr<SharedBytes>(SharedBytes::Create(static_cast<std::size_t>(size)));
    return Napi::Buffer<uint8_t>::New(
        env, (*bytes)->data(), (*bytes)->size(),
        [](Napi::Env, uint8_t*, std::shared_ptr<SharedBytes>* held) { delete held; }, bytes);
  }

  std::shared_ptr<TaggerModel> model_;
  // tagColumns' buffers, kept from block to block (it runs on the JavaScript thread only).
  ColumnTagScratch column_scratch_;
  std::shared_ptr<TaggerCorpus> corpus_;
  std::shared_ptr<TaggerTrainer> trainer_;
  std::vector<double> best_;
  std::map<std::pair<int64_t, int64_t>, Shard> shards_;
};

}  // namespace

static ModuleRegistration registration("tagger", &NativeTagger::Init);

}  // namespace structrank::binding

// N-API classes TreeBank and SequenceBank: banks of trees / tagged sequences in their
// compact native form, with kernel values, rows and Gram matrices (sync and async).
#include <napi.h>

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "binding/async.h"
#include "binding/cancel_flag.h"
#include "binding/kernels.h"
#include "binding/convert.h"
#include "binding/options.h"
#include "binding/registry.h"
#include "core/errors.h"
#include "kernels/bracket_reader.h"
#include "kernels/gram.h"
#include "kernels/matrix_text.h"
#include "kernels/sequence_bank.h"
#include "kernels/tag_kernel.h"
#include "kernels/tree_bank.h"
#include "kernels/tree_kernel.h"

namespace structrank::binding {

namespace {

std::vector<int32_t> IntArray(const Napi::Value& v, const char* what) {
  Expect(v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array, v.Env(),
         std::string(what) + " (Int32Array)");
  return ToVector<int32_t>(v.As<Napi::Int32Array>());
}

// Options shared by both bank kinds, read once on the JS thread.
struct CommonOptions {
  double lambda = 0.4;
  bool normalize = false;
  double beta = 0;
  bool plain = false;
  std::vector<double> logprob_a, logprob_b;
};

std::vector<double> DoubleArray(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (v.IsUndefined() || v.IsNull()) return {};
  Expect(v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_float64_array, o.Env(),
         std::string(key) + " to be a Float64Array");
  return ToVector<double>(v.As<Napi::Float64Array>());
}

CommonOptions ReadCommon(const Napi::Value& value, std::size_t rows, std::size_t cols) {
  CommonOptions c;
  Expect(value.IsObject(), value.Env(), "kernel options {lambda, normalize, plain, beta, ...}");
  Napi::Object o = value.As<Napi::Object>();
  c.lambda = RequiredDouble(o, "lambda");
  if (!(c.lambda > 0 && c.lambda <= 1))
    throw InputError("lambda must be in (0, 1], got " + std::to_string(c.lambda));
  c.normalize = RequiredBool(o, "normalize");
  c.plain = RequiredBool(o, "plain");
  c.beta = RequiredDouble(o, "beta");
  c.logprob_a = DoubleArray(o, "logprobA");
  c.logprob_b = DoubleArray(o, "logprobB");
  if (c.beta != 0) {
    if (c.logprob_a.size() != rows || c.logprob_b.size() != cols)
      throw InputError("beta != 0 needs one log-probability per item of each bank");
  }
  return c;
}

void Apply(const CommonOptions& c, PairwiseKernel& k) {
  k.normalize = c.normalize;
  k.beta = c.beta;
  k.logprob_a = c.logprob_a.empty() ? nullptr : c.logprob_a.data();
  k.logprob_b = c.logprob_b.empty() ? nullptr : c.logprob_b.data();
}

struct Job : KernelJob {
  CommonOptions options;
};

// sqrt(K(x,x)) per item, one cache per kernel setting, kept by the bank's JS object so that
// repeated normalized calls (rows, single values) compute each self kernel once.
class NormRegistry {
 public:
  std::shared_ptr<NormCache> For(const std::string& setting, std::size_t items) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& cache = caches_[setting];
    if (!cache) cache = std::make_shared<NormCache>(items);
    return cache;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<NormCache>> caches_;
};

std::string Setting(const char* kind, double lambda, double a, double b, bool plain) {
  char key[128];
  std::snprintf(key, sizeof key, "%s %a %a %a %d", kind, lambda, a, b, plain ? 1 : 0);
  return key;
}

// ---- shared method bodies over a bank type and its job builder ----
template <typename Wrap>
Napi::Value KernelMethod(Wrap* self, const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Expect(info.Length() >= 3 && info[0].IsNumber() && info[2].IsNumber(), env, "kernel(i, other, j, options)");
  Wrap* other = Wrap::FromValue(info[1]);
  double i = info[0].As<Napi::Number>().DoubleValue(), j = info[2].As<Napi::Number>().DoubleValue();
  if (i < 0 || j < 0) throw InputError("index must be a non-negative integer");
  auto job = self->MakeJob(other, info[3]);
  return Napi::Number::New(
      env, KernelValue(job->kernel, static_cast<std::size_t>(i), static_cast<std::size_t>(j)));
}

template <typename Wrap>
Napi::Value RowMethod(Wrap* self, const Napi::CallbackInfo& info, bool async) {
  Napi::Env env = info.Env();
  Expect(info.Length() >= 2 && info[0].IsNumber(), env, "row(i, other, options, threads)");
  double i = info[0].As<Napi::Number>().DoubleValue();
  if (i < 0) throw InputError("index must be a non-negative integer");
  auto job = self->MakeJob(Wrap::FromValue(info[1]), info[2]);
  int threads = ThreadsArgument(info, 3);
  if (!async) return ToFloat64Array(env, KernelRow(job->kernel, static_cast<std::size_t>(i), threads));
  auto cancel = CancelFlag::From(info[4]);
  auto out = std::make_shared<std::vector<double>>();
  return RunAsync(
      env,
      [job, cancel, out, i, threads] {
        *out = KernelRow(job->kernel, static_cast<std::size_t>(i), threads, cancel.get());
      },
      [out](Napi::Env e) -> Napi::Value { return ToFloat64Array(e, *out); });
}

template <typename Wrap>
Napi::Value GramMethod(Wrap* self, const Napi::CallbackInfo& info, bool async) {
  Napi::Env env = info.Env();
  bool same = info.Length() < 1 || info[0].IsNull() || info[0].IsUndefined();
  auto job = self->MakeJob(same ? self : Wrap::FromValue(info[0]), info[1]);
  job->kernel.same_bank = same;
  int threads = ThreadsArgument(info, 2);
  if (!async) return ToFloat64Array(env, GramMatrix(job->kernel, threads));
  auto cancel = CancelFlag::From(info[3]);
  auto out = std::make_shared<std::vector<double>>();
  return RunAsync(
      env, [job, cancel, out, threads] { *out = GramMatrix(job->kernel, threads, cancel.get()); },
      [out](Napi::Env e) -> Napi::Value { return ToFloat64Array(e, *out); });
}

// ---- TreeBank ----
class TreeBankWrap : public ErrorMappingWrap<TreeBankWrap> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function cls = DefineClass(
        env, "TreeBank",
        {InstanceMethod("size", &TreeBankWrap::Size), InstanceMethod("bytes", &TreeBankWrap::Bytes),
         InstanceMethod("totalNodes", &TreeBankWrap::TotalNodes),
         InstanceMethod("kernel", &TreeBankWrap::Kernel), InstanceMethod("row", &TreeBankWrap::Row),
         InstanceMethod("rowAsync", &TreeBankWrap::RowAsync), InstanceMethod("gram", &TreeBankWrap::Gram),
         InstanceMethod("gramAsync", &TreeBankWrap::GramAsync)});
    SaveConstructor(env, "TreeBank", cls);
    exports.Set("TreeBank", cls);
  }

  // new TreeBank(symbols, label, word, arity, treeSize), or new TreeBank(bytes, unwrap) to
  // read bracketed trees from a file's bytes: the bank is then empty if they are malformed
  // (the caller re-reads them with the JS parser for a precise message).
  explicit TreeBankWrap(const Napi::CallbackInfo& info) try : ErrorMappingWrap
    <TreeBankWrap>(info) {
      auto bank = std::make_shared<TreeBank>();
      bank_ = bank;
      if (info.Length() == 2) {
        Expect(info[0].IsTypedArray() && info[0].As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array,
               info.Env(), "TreeBank(bytes: Uint8Array, unwrap)");
        Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
        PreorderTrees in;
        const std::string_view text(reinterpret_cast<const char*>(bytes.Data()), bytes.ElementLength());
        if (ReadBracketedTrees(text, info[1].ToBoolean(), &in)) bank->Add(in);
        return;
      }
      Expect(info.Length() == 5, info.Env(), "TreeBank(symbols, label, word, arity, treeSize)");
      PreorderTrees in;
      in.symbols = StringArray(info[0], "symbols");
      in.label = IntArray(info[1], "label");
      in.word = IntArray(info[2], "word");
      in.arity = IntArray(info[3], "arity");
      in.tree_size = IntArray(info[4], "treeSize");
      bank->Add(in);
    }
  catch (const Napi::Error&) {
    throw;
  } catch (...) {
    throw ErrorFromException(info.Env(), std::current_exception());
  }

  static TreeBankWrap* FromValue(const Napi::Value& v) {
    if (!v.IsObject() || !v.As<Napi::Object>().InstanceOf(GetConstructor(v.Env(), "TreeBank").Value()))
      throw InputError("mismatched handles: expected a TreeBank");
    return Unwrap(v.As<Napi::Object>());
  }

  std::shared_ptr<Job> MakeJob(TreeBankWrap* other_wrap, const Napi::Value& options) {
    std::shared_ptr<const TreeBank> other = other_wrap->bank_;
    if (other->vocabulary() != bank_->vocabulary())
      throw InputError("mismatched handles: tree banks use different vocabularies");
    auto job = std::make_shared<Job>();
    job->options = ReadCommon(options, bank_->size(), other->size());
    // Optional by meaning: without `depth` fragments of every depth count (0 inside the core).
    int depth = 0;
    if (!options.As<Napi::Object>().Get("depth").IsUndefined())
      depth = RequiredInt(options.As<Napi::Object>(), "depth");
    if (depth < 0) throw InputError("depth must be a positive integer");
    const TreeBank* a = bank_.get();
    const TreeBank* b = other.get();
    job->keep_a = bank_;
    job->keep_b = other;
    const double lambda = job->options.lambda;
    PairwiseKernel& k = job->kernel;
    k.rows = a->size();
    k.cols = b->size();
    if (job->options.plain) {
      k.raw = [a, b, lambda, depth](std::size_t i, std::size_t j) {
        return SubsetTreeKernelPlain(a->Tree(i), b->Tree(j), lambda, depth);
      };
      k.self_a = [a, lambda, depth](std::size_t i) {
        return SubsetTreeKernelPlain(a->Tree(i), a->Tree(i), lambda, depth);
      };
      k.self_b = [b, lambda, depth](std::size_t j) {
        return SubsetTreeKernelPlain(b->Tree(j), b->Tree(j), lambda, depth);
      };
    } else {
      k.raw = [a, b, lambda, depth](std::size_t i, std::size_t j) {
        return SubsetTreeKernel(a->Tree(i), b->Tree(j), lambda, depth);
      };
      k.self_a = [a, lambda, depth](std::size_t i) {
        return SubsetTreeKernel(a->Tree(i), a->Tree(i), lambda, depth);
      };
      k.self_b = [b, lambda, depth](std::size_t j) {
        return SubsetTreeKernel(b->Tree(j), b->Tree(j), lambda, depth);
      };
    }
    Apply(job->options, k);
    if (k.normalize) {
      const std::string setting = Setting("tree", lambda, depth, 0, job->options.plain);
      k.norms_a = norms_.For(setting, k.rows);
      k.norms_b = other_wrap->norms_.For(setting, k.cols);
    }
    return job;
  }

 private:
  Napi::Value Size(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), bank_->size()); }
  Napi::Value Bytes(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), bank_->StorageBytes());
  }
  Napi::Value TotalNodes(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), bank_->total_nodes());
  }
  Napi::Value Kernel(const Napi::CallbackInfo& info) { return KernelMethod(this, info); }
  Napi::Value Row(const Napi::CallbackInfo& info) { return RowMethod(this, info, false); }
  Napi::Value RowAsync(const Napi::CallbackInfo& info) { return RowMethod(this, info, true); }
  Napi::Value Gram(const Napi::CallbackInfo& info) { return GramMethod(this, info, false); }
  Napi::Value GramAsync(const Napi::CallbackInfo& info) { return GramMethod(this, info, true); }

  std::shared_ptr<const TreeBank> bank_;
  NormRegistry norms_;
};

// ---- SequenceBank ----
class SequenceBankWrap : public ErrorMappingWrap<SequenceBankWrap> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function cls = DefineClass(
        env, "SequenceBank",
        {InstanceMethod("size", &SequenceBankWrap::Size), InstanceMethod("bytes", &SequenceBankWrap::Bytes),
         InstanceMethod("totalTokens", &SequenceBankWrap::TotalTokens),
         InstanceMethod("kernel", &SequenceBankWrap::Kernel), InstanceMethod("row", &SequenceBankWrap::Row),
         InstanceMethod("rowAsync", &SequenceBankWrap::RowAsync),
         InstanceMethod("gram", &SequenceBankWrap::Gram),
         InstanceMethod("gramAsync", &SequenceBankWrap::GramAsync)});
    SaveConstructor(env, "SequenceBank", cls);
    exports.Set("SequenceBank", cls);
  }

  // new SequenceBank(symbols, label, word, length, feature, wordClass?)
  // feature: a built-in name ("caps", ...), "none", or the name of a caller-supplied
  // function whose classes come as wordClass (indices into symbols, -1 = no class).
  explicit SequenceBankWrap(const Napi::CallbackInfo& info) try : ErrorMappingWrap
    <SequenceBankWrap>(info) {
      Expect(info.Length() >= 5 && info[4].IsString(), info.Env(),
             "SequenceBank(symbols, label, word, length, feature, wordClass?)");
      TaggedSequences in;
      in.symbols = StringArray(info[0], "symbols");
      in.label = IntArray(info[1], "label");
      in.word = IntArray(info[2], "word");
      in.length = IntArray(info[3], "length");
      std::string feature = info[4].As<Napi::String>().Utf8Value();
      WordFeature f = WordFeature::kNone;
      if (info.Length() >= 6 && !info[5].IsUndefined() && !info[5].IsNull())
        in.word_class = IntArray(info[5], "wordClass");
      else if (feature != "none")
        f = WordFeatureByName(feature);
      auto bank = std::make_shared<SequenceBank>(f, feature);
      bank->Add(in);
      bank_ = bank;
    }
  catch (const Napi::Error&) {
    throw;
  } catch (...) {
    throw ErrorFromException(info.Env(), std::current_exception());
  }

  static SequenceBankWrap* FromValue(const Napi::Value& v) {
    if (!v.IsObject() || !v.As<Napi::Object>().InstanceOf(GetConstructor(v.Env(), "SequenceBank").Value()))
      throw InputError("mismatched handles: expected a SequenceBank");
    return Unwrap(v.As<Napi::Object>());
  }

  std::shared_ptr<Job> MakeJob(SequenceBankWrap* other_wrap, const Napi::Value& options) {
    std::shared_ptr<const SequenceBank> other = other_wrap->bank_;
    if (other->vocabulary() != bank_->vocabulary())
      throw InputError("mismatched handles: sequence banks use different vocabularies");
    auto job = std::make_shared<Job>();
    job->options = ReadCommon(options, bank_->size(), other->size());
    TagKernelWeights w;
    w.lambda = job->options.lambda;
    bool sim2 = RequiredBool(options.As<Napi::Object>(), "sim2");
    if (sim2) {
      if (bank_->feature_name() == "none" || other->feature_name() != bank_->feature_name())
        throw InputError(
            "mismatched handles: sim2 needs both banks built with the same word feature (have '" +
            bank_->feature_name() + "' and '" + other->feature_name() + "')");
      w.sim1 = 0.5;
      w.sim2 = 0.5;
    }
    const SequenceBank* a = bank_.get();
    const SequenceBank* b = other.get();
    job->keep_a = bank_;
    job->keep_b = other;
    using TagKernelFn = double (*)(const SequenceView&, const SequenceView&, const TagKernelWeights&);
    TagKernelFn fn = job->options.plain ? TagKernelFn{&TagKernelPlain} : TagKernelFn{&TagKernel};
    PairwiseKernel& k = job->kernel;
    k.rows = a->size();
    k.cols = b->size();
    k.raw = [a, b, w, fn](std::size_t i, std::size_t j) { return fn(a->Sequence(i), b->Sequence(j), w); };
    k.self_a = [a, w, fn](std::size_t i) { return fn(a->Sequence(i), a->Sequence(i), w); };
    k.self_b = [b, w, fn](std::size_t j) { return fn(b->Sequence(j), b->Sequence(j), w); };
    Apply(job->options, k);
    if (k.normalize) {
      // Each bank's own word classes define its Sim2 self kernels; sim2 banks share a feature.
      const std::string setting = Setting("tags", w.lambda, w.sim1, w.sim2, job->options.plain);
      k.norms_a = norms_.For(setting, k.rows);
      k.norms_b = other_wrap->norms_.For(setting, k.cols);
    }
    return job;
  }

 private:
  Napi::Value Size(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), bank_->size()); }
  Napi::Value Bytes(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), bank_->StorageBytes());
  }
  Napi::Value TotalTokens(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), bank_->total_tokens());
  }
  Napi::Value Kernel(const Napi::CallbackInfo& info) { return KernelMethod(this, info); }
  Napi::Value Row(const Napi::CallbackInfo& info) { return RowMethod(this, info, false); }
  Napi::Value RowAsync(const Napi::CallbackInfo& info) { return RowMethod(this, info, true); }
  Napi::Value Gram(const Napi::CallbackInfo& info) { return GramMethod(this, info, false); }
  Napi::Value GramAsync(const Napi::CallbackInfo& info) { return GramMethod(this, info, true); }

  std::shared_ptr<const SequenceBank> bank_;
  NormRegistry norms_;
};

// formatRows(matrix, cols, first, end, json): rows [first, end) as the bytes of their text
// (kernels/matrix_text.h), numbers written as JavaScript writes them.
Napi::Value FormatRows(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Expect(info.Length() == 5 && info[0].IsTypedArray() &&
             info[0].As<Napi::TypedArray>().TypedArrayType() == napi_float64_array && info[1].IsNumber() &&
             info[2].IsNumber() && info[3].IsNumber(),
         env, "formatRows(matrix: Float64Array, cols, first, end, json)");
  Napi::Float64Array m = info[0].As<Napi::Float64Array>();
  const int64_t cols = info[1].As<Napi::Number>().Int64Value();
  const int64_t first = info[2].As<Napi::Number>().Int64Value();
  const int64_t end = info[3].As<Napi::Number>().Int64Value();
  if (cols <= 0 || first < 0 || end < first || static_cast<std::size_t>(end * cols) > m.ElementLength())
    throw InputError("formatRows: rows out of range");
  std::string text;
  AppendMatrixRows(m.Data(), static_cast<std::size_t>(cols), static_cast<std::size_t>(first),
                   static_cast<std::size_t>(end), info[4].ToBoolean(), &text);
  return Napi::Buffer<char>::Copy(env, text.data(), text.size());
}

void Init(Napi::Env env, Napi::Object exports) {
  TreeBankWrap::Init(env, exports);
  SequenceBankWrap::Init(env, exports);
  exports.Set("formatRows", Napi::Function::New(env, FormatRows, "formatRows"));
}

}  // namespace

std::shared_ptr<KernelJob> MakeKernelJob(const Napi::Value& a, const Napi::Value& b,
                                         const Napi::Value& options) {
  Napi::Env env = a.Env();
  auto is = [&](const Napi::Value& v, const char* cls) {
    return v.IsObject() && v.As<Napi::Object>().InstanceOf(GetConstructor(env, cls).Value());
  };
  if (is(a, "TreeBank"))
    return TreeBankWrap::Unwrap(a.As<Napi::Object>())->MakeJob(TreeBankWrap::FromValue(b), options);
  if (is(a, "SequenceBank"))
    return SequenceBankWrap::Unwrap(a.As<Napi::Object>())->MakeJob(SequenceBankWrap::FromValue(b), options);
  throw InputError("mismatched handles: expected a TreeBank or a SequenceBank");
}

static ModuleRegistration registration("kernels", &Init);

}  // namespace structrank::binding

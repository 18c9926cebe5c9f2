// N-API functions for the ranking perceptrons: dual training and prediction over the items
// of a TreeBank / SequenceBank with any of their kernels, and the primal form over sparse
// feature rows. Heavy calls are async (RunAsync) and take a CancelFlag.
#include <napi.h>

#include <memory>
#include <string>
#include <vector>

#include "binding/async.h"
#include "binding/cancel_flag.h"
#include "binding/convert.h"
#include "binding/kernels.h"
#include "binding/registry.h"
#include "core/csr.h"
#include "core/errors.h"
#include "core/thread_pool.h"
#include "perceptron/dual_perceptron.h"
#include "perceptron/primal_perceptron.h"

namespace structrank::binding {

namespace {

std::vector<int32_t> Int32Vector(const Napi::Value& v, const char* what) {
  Expect(v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array, v.Env(),
         std::string(what) + " (Int32Array)");
  return ToVector<int32_t>(v.As<Napi::Int32Array>());
}

std::vector<double> Float64Vector(const Napi::Value& v, const char* what) {
  Expect(v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_float64_array, v.Env(),
         std::string(what) + " (Float64Array)");
  return ToVector<double>(v.As<Napi::Float64Array>());
}

RankingProblem Problem(const std::vector<int32_t>& sizes, std::size_t items) {
  RankingProblem p;
  for (int32_t n : sizes) p.AddSentence(n);
  if (static_cast<std::size_t>(p.num_candidates()) != items)
    throw InputError("sentence sizes add up to " + std::to_string(p.num_candidates()) + " candidates, the bank has " +
                     std::to_string(items));
  return p;
}

PerceptronOptions ReadPerceptronOptions(const Napi::Value& v) {
  PerceptronOptions o;
  if (!v.IsObject()) return o;
  Napi::Object obj = v.As<Napi::Object>();
  o.epochs = OptionalInt(obj, "epochs", 1);
  o.seed = static_cast<uint64_t>(OptionalDouble(obj, "seed", 1));
  Napi::Value shuffle = obj.Get("shuffle");
  if (shuffle.IsBoolean()) o.shuffle = shuffle.As<Napi::Boolean>().Value();
  return o;
}

Napi::Float64Array MistakesArray(Napi::Env env, const std::vector<Mistake>& mistakes) {
  Napi::Float64Array out = Napi::Float64Array::New(env, mistakes.size() * 3);
  for (std::size_t k = 0; k < mistakes.size(); ++k) {
    out[3 * k] = static_cast<double>(mistakes[k].step);
    out[3 * k + 1] = static_cast<double>(mistakes[k].best);
    out[3 * k + 2] = static_cast<double>(mistakes[k].other);
  }
  return out;
}

DualModel ReadDualModel(const Napi::Value& mistakes, const Napi::Value& steps, std::size_t train_items) {
  std::vector<double> flat = Float64Vector(mistakes, "mistakes");
  if (flat.size() % 3 != 0) throw InputError("mistakes: expected (step, best, other) triples");
  DualModel m;
  Expect(steps.IsNumber(), steps.Env(), "steps (number)");
  m.steps = static_cast<int64_t>(steps.As<Napi::Number>().DoubleValue());
  int64_t previous = 0;
  for (std::size_t k = 0; k < flat.size(); k += 3) {
    Mistake x{static_cast<int64_t>(flat[k]), static_cast<int64_t>(flat[k + 1]), static_cast<int64_t>(flat[k + 2])};
    if (x.step <= previous || x.step > m.steps) throw InputError("mistakes: steps must increase and be <= steps");
    if (x.best < 0 || x.other < 0 || static_cast<std::size_t>(x.best) >= train_items ||
        static_cast<std::size_t>(x.other) >= train_items)
      throw InputError("mistakes: candidate index out of range of the training bank");
    previous = x.step;
    m.mistakes.push_back(x);
  }
  return m;
}

Voting ReadVoting(const Napi::Value& v) {
  std::string s = v.IsString() ? v.As<Napi::String>().Utf8Value() : "voted";
  if (s == "last") return Voting::kLast;
  if (s == "averaged") return Voting::kAveraged;
  if (s == "voted") return Voting::kVoted;
  throw InputError("voting must be 'last', 'averaged' or 'voted'");
}

// trainDualPerceptron(bank, sentenceSizes, kernelOptions, perceptronOptions, cancel)
Napi::Value TrainDual(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto job = MakeKernelJob(info[0], info[0], info[2]);
  if (job->kernel.normalize) job->kernel.norms_a = job->kernel.norms_b = std::make_shared<NormCache>(job->kernel.rows);
  auto problem = std::make_shared<RankingProblem>(Problem(Int32Vector(info[1], "sentenceSizes"), job->kernel.rows));
  PerceptronOptions options = ReadPerceptronOptions(info[3]);
  std::size_t cache = 1 << 22;
  if (info[3].IsObject()) cache = static_cast<std::size_t>(OptionalDouble(info[3].As<Napi::Object>(), "cacheSize", cache));
  auto cancel = CancelFlag::From(info[4]);
  auto model = std::make_shared<DualModel>();
  return RunAsync(
      env,
      [job, problem, options, cache, cancel, model] {
        const PairwiseKernel& k = job->kernel;
        *model = TrainDualPerceptron(
            *problem, [&k](int64_t a, int64_t b) { return KernelValue(k, a, b); }, options, cache, cancel.get());
      },
      [model](Napi::Env e) -> Napi::Value {
        Napi::Object out = Napi::Object::New(e);
        out.Set("steps", Napi::Number::New(e, static_cast<double>(model->steps)));
        out.Set("mistakes", MistakesArray(e, model->mistakes));
        return out;
      });
}

// predictDual(trainBank, mistakes, steps, testBank, testSizes, kernelOptions, voting, threads, cancel)
//   -> Int32Array: the chosen candidate (index within its sentence) per test sentence.
// scoreDual(...same, voting 'last' | 'averaged') -> Float64Array: a score per test candidate.
Napi::Value PredictOrScore(const Napi::CallbackInfo& info, bool scores) {
  Napi::Env env = info.Env();
  auto job = MakeKernelJob(info[0], info[3], info[5]);
  if (job->kernel.normalize) {
    job->kernel.norms_a = std::make_shared<NormCache>(job->kernel.rows);
    job->kernel.norms_b = std::make_shared<NormCache>(job->kernel.cols);
  }
  auto model = std::make_shared<DualModel>(ReadDualModel(info[1], info[2], job->kernel.rows));
  auto problem = std::make_shared<RankingProblem>(Problem(Int32Vector(info[4], "testSizes"), job->kernel.cols));
  const Voting voting = ReadVoting(info[6]);
  if (scores && voting == Voting::kVoted) throw InputError("voted prediction has no scores: use predict");
  const int threads = info[7].IsNumber() ? info[7].As<Napi::Number>().Int32Value() : 0;
  auto cancel = CancelFlag::From(info[8]);
  auto chosen = std::make_shared<std::vector<int32_t>>(problem->num_sentences());
  auto values = std::make_shared<std::vector<double>>(scores ? problem->num_candidates() : 0);
  return RunAsync(
      env,
      [job, model, problem, voting, threads, cancel, chosen, values, scores] {
        const PairwiseKernel& k = job->kernel;
        ParallelFor(problem->num_sentences(), threads, 1, [&](std::size_t b, std::size_t e, int) {
          for (std::size_t s = b; s < e; ++s) {
            const int64_t begin = problem->Begin(s);
            const int32_t m = static_cast<int32_t>(problem->End(s) - begin);
            auto kernel = [&](int64_t c, int32_t y) { return KernelValue(k, c, begin + y); };
            if (scores) {
              std::vector<double> v = ScoreDual(*model, m, kernel, voting);
              std::copy(v.begin(), v.end(), values->begin() + begin);
            } else {
              (*chosen)[s] = PredictDual(*model, m, kernel, voting);
            }
          }
        }, cancel.get());
      },
      [chosen, values, scores](Napi::Env e) -> Napi::Value {
        return scores ? Napi::Value(ToFloat64Array(e, *values)) : Napi::Value(ToInt32Array(e, *chosen));
      });
}

Napi::Value PredictDualFn(const Napi::CallbackInfo& info) { return PredictOrScore(info, false); }
Napi::Value ScoreDualFn(const Napi::CallbackInfo& info) { return PredictOrScore(info, true); }

// trainPrimalPerceptron(rowPtr: Float64Array, cols: Int32Array, values: Float32Array | null,
//   numFeatures, sentenceSizes, perceptronOptions, cancel)
//   -> Promise<{steps, mistakes, weights, summedWeights}>
Napi::Value TrainPrimal(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto features = std::make_shared<CsrMatrix>();
  std::vector<double> row_ptr = Float64Vector(info[0], "rowPtr");
  features->row_ptr.assign(row_ptr.begin(), row_ptr.end());
  features->cols = Int32Vector(info[1], "cols");
  if (info[2].IsTypedArray()) {
    Expect(info[2].As<Napi::TypedArray>().TypedArrayType() == napi_float32_array, env, "values (Float32Array)");
    features->values = ToVector<float>(info[2].As<Napi::Float32Array>());
    if (features->values.size() != features->cols.size()) throw InputError("values and cols differ in length");
  }
  if (features->row_ptr.empty() || features->row_ptr.back() != static_cast<int64_t>(features->cols.size()))
    throw InputError("rowPtr does not match cols");
  Expect(info[3].IsNumber(), env, "numFeatures (number)");
  const int32_t num_features = info[3].As<Napi::Number>().Int32Value();
  auto problem = std::make_shared<RankingProblem>(Problem(Int32Vector(info[4], "sentenceSizes"), features->rows()));
  PerceptronOptions options = ReadPerceptronOptions(info[5]);
  auto cancel = CancelFlag::From(info[6]);
  auto model = std::make_shared<PrimalModel>();
  return RunAsync(
      env,
      [features, num_features, problem, options, cancel, model] {
        *model = TrainPrimalPerceptron(*problem, *features, num_features, options, cancel.get());
      },
      [model](Napi::Env e) -> Napi::Value {
        Napi::Object out = Napi::Object::New(e);
        out.Set("steps", Napi::Number::New(e, static_cast<double>(model->steps)));
        out.Set("mistakes", MistakesArray(e, model->mistakes));
        out.Set("weights", ToFloat64Array(e, model->weights));
        out.Set("summedWeights", ToFloat64Array(e, model->summed_weights));
        return out;
      });
}

void Init(Napi::Env env, Napi::Object exports) {
  exports.Set("trainDualPerceptron", Napi::Function::New(env, TrainDual, "trainDualPerceptron"));
  exports.Set("predictDual", Napi::Function::New(env, PredictDualFn, "predictDual"));
  exports.Set("scoreDual", Napi::Function::New(env, ScoreDualFn, "scoreDual"));
  exports.Set("trainPrimalPerceptron", Napi::Function::New(env, TrainPrimal, "trainPrimalPerceptron"));
}

}  // namespace

static ModuleRegistration registration("perceptron", &Init);

}  // namespace structrank::binding

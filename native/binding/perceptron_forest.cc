// perceptronForestScores(support, coef, query, compressed, threads, cancel): the scoring
// function of a dual tree-kernel model, sum_s coef_s K(T_s, x), for any weighted forest,
// either per support tree or through the shared-subtree DAG (Collins & Duffy 2002b, section 5).
#include <napi.h>

#include <chrono>
#include <memory>

#include "binding/async.h"
#include "binding/cancel_flag.h"
#include "binding/convert.h"
#include "binding/options.h"
#include "binding/perceptron_banks.h"
#include "binding/registry.h"
#include "core/errors.h"
#include "perceptron/perceptron_predict.h"
#include "perceptron/structured_banks.h"
#include "perceptron/tree_dag.h"

namespace structrank::binding {

namespace {

Napi::Value ForestScores(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Expect(info[0].IsObject() && info[2].IsObject(), env, "support and query candidate objects");
  std::shared_ptr<CandidateBank> support = MakeCandidateBank(info[0].As<Napi::Object>());
  std::shared_ptr<CandidateBank> query = MakeCandidateBank(info[2].As<Napi::Object>());
  Expect(support->kind() == KernelKind::kTree && query->kind() == KernelKind::kTree, env, "tree candidates");
  Expect(info[1].IsTypedArray() && info[1].As<Napi::TypedArray>().TypedArrayType() == napi_float64_array, env,
         "coefficients: Float64Array");
  auto coef = std::make_shared<std::vector<double>>(ToVector<double>(info[1].As<Napi::Float64Array>()));
  if (static_cast<int64_t>(coef->size()) != support->size())
    throw InputError("one coefficient per support tree expected");
  const bool compressed = info[3].ToBoolean();
  const int threads = ThreadsArgument(info, 4);
  auto cancel = CancelFlag::From(info[5]);
  struct Result {
    std::vector<double> scores;
    double build_seconds = 0, score_seconds = 0;
    int64_t forest_nodes = 0, dag_nodes = 0;
  };
  auto result = std::make_shared<Result>();
  return RunAsync(
      env,
      [=]() {
        using Clock = std::chrono::steady_clock;
        auto t0 = Clock::now();
        std::unique_ptr<CandidateKernel> kernel;
        std::unique_ptr<CandidateScorer> scorer;
        if (compressed) {
          scorer = support->CompressedScorer(*coef, *query);
          const TreeDag& dag = static_cast<const TreeDagScorer&>(*scorer).dag();
          result->forest_nodes = dag.forest_nodes();
          result->dag_nodes = dag.size();
        } else {
          kernel = support->KernelWith(*query);
          scorer = std::make_unique<DualCandidateScorer>(*coef, kernel.get());
        }
        auto t1 = Clock::now();
        // One "sentence" per query candidate, so ParallelFor spreads them evenly.
        RankingSet set;
        set.sentence_ptr.clear();
        for (int64_t c = 0; c <= query->size(); ++c) set.sentence_ptr.push_back(c);
        set.logprob.assign(query->size(), 0.0);
        ChooseBest(set, *scorer, threads, cancel.get(), &result->scores);
        auto t2 = Clock::now();
        result->build_seconds = std::chrono::duration<double>(t1 - t0).count();
        result->score_seconds = std::chrono::duration<double>(t2 - t1).count();
      },
      [=](Napi::Env env) -> Napi::Value {
        Napi::Object out = Napi::Object::New(env);
        out.Set("scores", ToFloat64Array(env, result->scores));
        out.Set("buildSeconds", Napi::Number::New(env, result->build_seconds));
        out.Set("scoreSeconds", Napi::Number::New(env, result->score_seconds));
        out.Set("forestNodes", Napi::Number::New(env, static_cast<double>(result->forest_nodes)));
        out.Set("dagNodes", Napi::Number::New(env, static_cast<double>(result->dag_nodes)));
        return out;
      });
}

void Init(Napi::Env env, Napi::Object exports) {
  exports.Set("perceptronForestScores", MappedFunction<ForestScores>(env, "perceptronForestScores"));
}

static ModuleRegistration registration("perceptron-forest", &Init);

}  // namespace

}  // namespace structrank::binding

// N-API class NativeLbfgs: native/optim's L-BFGS for an objective evaluated in JS (the
// distributed trainers sum gradients from queue jobs), driven one trial point at a time, so
// a distributed run takes the local optimizer's steps with the local optimizer's code.
#include <napi.h>

#include <optional>

#include "binding/convert.h"
#include "binding/options.h"
#include "binding/errors.h"
#include "binding/registry.h"
#include "core/errors.h"
#include "optim/lbfgs.h"

namespace structrank::binding {

namespace {

LbfgsOptions ReadOptions(const Napi::Value& v) {
  // Every setting given (lib/options/lbfgs.ts LBFGS_DEFAULTS): no second set of defaults here.
  Expect(v.IsObject(), v.Env(),
         "L-BFGS settings {memory, gradientTolerance, delta, past, maxLinesearch, armijo}");
  Napi::Object obj = v.As<Napi::Object>();
  LbfgsOptions o;
  o.memory = RequiredInt(obj, "memory");
  o.gradient_tolerance = RequiredDouble(obj, "gradientTolerance");
  o.delta = RequiredDouble(obj, "delta");
  o.past = RequiredInt(obj, "past");
  o.max_linesearch = RequiredInt(obj, "maxLinesearch");
  o.armijo = RequiredDouble(obj, "armijo");
  if (o.memory < 1 || o.max_linesearch < 1 || o.past < 0) throw InputError("L-BFGS: bad settings");
  return o;
}

std::vector<std::vector<double>> VectorList(const Napi::Value& v, const char* what) {
  Expect(v.IsArray(), v.Env(), std::string(what) + " as an array");
  Napi::Array a = v.As<Napi::Array>();
  std::vector<std::vector<double>> out(a.Length());
  for (uint32_t i = 0; i < a.Length(); ++i) out[i] = ToDoubles(a.Get(i), what);
  return out;
}

Napi::Array ToVectorList(Napi::Env env, const std::vector<std::vector<double>>& v) {
  Napi::Array out = Napi::Array::New(env, v.size());
  for (uint32_t i = 0; i < v.size(); ++i) out.Set(i, ToFloat64Array(env, v[i]));
  return out;
}

}  // namespace

class NativeLbfgs : public ErrorMappingWrap<NativeLbfgs> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function cls = DefineClass(
        env, "NativeLbfgs",
        {InstanceMethod("beginIteration", &NativeLbfgs::BeginIteration),
         InstanceMethod("trialPoint", &NativeLbfgs::TrialPoint),
         InstanceMethod("endTrial", &NativeLbfgs::EndTrial), InstanceMethod("point", &NativeLbfgs::Point),
         InstanceMethod("value", &NativeLbfgs::PointValue),
         InstanceMethod("converged", &NativeLbfgs::Converged), InstanceMethod("state", &NativeLbfgs::State)});
    SaveConstructor(env, "NativeLbfgs", cls);
    exports.Set("NativeLbfgs", cls);
  }

  // new NativeLbfgs({x, f, g}, settings): starts at x, where the caller found f and g;
  // new NativeLbfgs({state}, settings): continues from state() (a checkpoint).
  explicit NativeLbfgs(const Napi::CallbackInfo& info) try : ErrorMappingWrap
    <NativeLbfgs>(info) {
      Napi::Env env = info.Env();
      Expect(info.Length() >= 1 && info[0].IsObject(), env, "({x, f, g} or {state}, settings)");
      Napi::Object o = info[0].As<Napi::Object>();
      const LbfgsOptions options = ReadOptions(info.Length() > 1 ? info[1] : env.Undefined());
      if (o.Has("state")) {
        Expect(o.Get("state").IsObject(), env, "state as an object");
        Napi::Object s = o.Get("state").As<Napi::Object>();
        LbfgsState st;
        st.x = ToDoubles(s.Get("x"), "state.x");
        st.g = ToDoubles(s.Get("g"), "state.g");
        st.f = s.Get("f").ToNumber().DoubleValue();
        st.s = VectorList(s.Get("s"), "state.s");
        st.y = VectorList(s.Get("y"), "state.y");
        st.rho = ToDoubles(s.Get("rho"), "state.rho");
        st.stored = s.Get("stored").ToNumber().Int32Value();
        st.next = s.Get("next").ToNumber().Int32Value();
        st.iterations = s.Get("iterations").ToNumber().Int32Value();
        st.evaluations = s.Get("evaluations").ToNumber().Int32Value();
        st.converged = s.Get("converged").ToBoolean();
        st.history = ToDoubles(s.Get("history"), "state.history");
        lbfgs_.emplace(Objective(), std::move(st), options);
      } else {
        Expect(o.Get("f").IsNumber(), env, "f as a number");
        lbfgs_.emplace(ToDoubles(o.Get("x"), "x"), o.Get("f").As<Napi::Number>().DoubleValue(),
                       ToDoubles(o.Get("g"), "g"), options);
      }
    }
  catch (const Napi::Error&) {
    throw;
  } catch (...) {
    throw ErrorFromException(info.Env(), std::current_exception());
  }

 private:
  // beginIteration() -> false when converged; else trialPoint() is the point to evaluate.
  Napi::Value BeginIteration(const Napi::CallbackInfo& info) {
    return Napi::Boolean::New(info.Env(), lbfgs_->BeginIteration());
  }

  // trialPoint(into?) -> the point, copied into `into` when it is a Float64Array of the right
  // size (one buffer reused for every trial: a fresh one costs its page faults each time).
  Napi::Value TrialPoint(const Napi::CallbackInfo& info) {
    const std::vector<double>& x = lbfgs_->trial_point();
    if (info.Length() >= 1 && info[0].IsTypedArray() &&
        info[0].As<Napi::TypedArray>().TypedArrayType() == napi_float64_array) {
      Napi::Float64Array into = info[0].As<Napi::Float64Array>();
      if (into.ElementLength() == x.size()) {
        std::copy(x.begin(), x.end(), into.Data());
        return into;
      }
    }
    return ToFloat64Array(info.Env(), x);
  }

  // endTrial(f, gradient) -> 0 retry (trialPoint() moved), 1 accepted, 2 failed (no decrease).
  Napi::Value EndTrial(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Expect(info.Length() >= 2 && info[0].IsNumber(), env, "(f, gradient)");
    Expect(info[1].IsTypedArray() && info[1].As<Napi::TypedArray>().TypedArrayType() == napi_float64_array,
           env, "gradient as a Float64Array");
    Napi::Float64Array g = info[1].As<Napi::Float64Array>();
    std::vector<double>& into = lbfgs_->trial_gradient();
    if (g.ElementLength() != into.size()) throw InputError("L-BFGS: the gradient has the wrong size");
    std::copy(g.Data(), g.Data() + g.ElementLength(), into.begin());
    switch (lbfgs_->EndTrial(info[0].As<Napi::Number>().DoubleValue())) {
      case Lbfgs::Trial::kRetry:
        return Napi::Number::New(env, 0);
      case Lbfgs::Trial::kAccepted:
        return Napi::Number::New(env, 1);
      case Lbfgs::Trial::kFailed:
        break;
    }
    return Napi::Number::New(env, 2);
  }

  Napi::Value Point(const Napi::CallbackInfo& info) { return ToFloat64Array(info.Env(), lbfgs_->x()); }
  Napi::Value PointValue(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), lbfgs_->value());
  }
  Napi::Value Converged(const Napi::CallbackInfo& info) {
    return Napi::Boolean::New(info.Env(), lbfgs_->converged());
  }

  // state() -> everything the next iteration depends on (new NativeLbfgs({state}) continues).
  Napi::Value State(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const LbfgsState& st = lbfgs_->state();
    Napi::Object o = Napi::Object::New(env);
    o.Set("x", ToFloat64Array(env, st.x));
    o.Set("g", ToFloat64Array(env, st.g));
    o.Set("f", st.f);
    o.Set("s", ToVectorList(env, st.s));
    o.Set("y", ToVectorList(env, st.y));
    o.Set("rho", ToFloat64Array(env, st.rho));
    o.Set("stored", st.stored);
    o.Set("next", st.next);
    o.Set("iterations", st.iterations);
    o.Set("evaluations", st.evaluations);
    o.Set("converged", st.converged);
    o.Set("history", ToFloat64Array(env, st.history));
    return o;
  }

  std::optional<Lbfgs> lbfgs_;
};

static ModuleRegistration registration("lbfgs", &NativeLbfgs::Init);

}  // namespace structrank::binding

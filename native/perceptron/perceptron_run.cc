#include "perceptron/perceptron_run.h"

#include <string>

#include "core/errors.h"

namespace structrank {

int64_t PerceptronRun::TotalSteps() const {
  int64_t n = 0;
  for (const auto& c : chunks) n += c.steps;
  return n;
}

int64_t PerceptronRun::TotalMistakes() const {
  int64_t n = 0;
  for (const auto& c : chunks) n += static_cast<int64_t>(c.mistakes.size());
  return n;
}

std::vector<double> PerceptronRun::LastCoefficients() const {
  std::vector<double> coef(support.size(), 0.0);
  for (const auto& chunk : chunks) {
    for (const auto& m : chunk.mistakes) {
      coef[m.plus] += 1;
      coef[m.minus] -= 1;
    }
  }
  return coef;
}

std::vector<double> PerceptronRun::AveragedCoefficients() const {
  std::vector<double> coef(support.size(), 0.0);
  const int64_t total = TotalSteps();
  if (total == 0) return coef;
  for (const auto& chunk : chunks) {
    for (const auto& m : chunk.mistakes) {
      // The mistake is part of hypotheses G_step .. G_steps of its chunk.
      const double survived = static_cast<double>(chunk.steps - m.step + 1);
      coef[m.plus] += survived;
      coef[m.minus] -= survived;
    }
  }
  for (double& c : coef) c /= static_cast<double>(total);
  return coef;
}

std::vector<double> PerceptronRun::Coefficients(PredictMode mode) const {
  return mode == PredictMode::kAveraged ? AveragedCoefficients() : LastCoefficients();
}

static constexpr uint32_t kRunMagic = 0x50524b31;  // "PRK1"

void PerceptronRun::Save(ByteWriter& out) const {
  out.Put<uint32_t>(kRunMagic);
  out.PutVector(support);
  out.Put<uint64_t>(chunks.size());
  for (const auto& c : chunks) {
    out.Put<int64_t>(c.steps);
    out.Put<uint64_t>(c.mistakes.size());
    for (const auto& m : c.mistakes) {
      out.Put<int64_t>(m.step);
      out.Put<int32_t>(m.plus);
      out.Put<int32_t>(m.minus);
    }
  }
}

PerceptronRun PerceptronRun::Load(ByteReader& in) {
  if (in.Get<uint32_t>() != kRunMagic) throw InputError("perceptron model: bad payload header");
  PerceptronRun run;
  run.support = in.GetVector<int32_t>();
  const auto support_size = static_cast<int64_t>(run.support.size());
  const uint64_t nchunks = in.Get<uint64_t>();
  if (nchunks > (1u << 20)) throw InputError("perceptron model: implausible chunk count");
  for (uint64_t c = 0; c < nchunks; ++c) {
    PerceptronChunk chunk;
    chunk.steps = in.Get<int64_t>();
    const uint64_t n = in.Get<uint64_t>();
    if (n > static_cast<uint64_t>(chunk.steps < 0 ? 0 : chunk.steps)) {
      throw InputError("perceptron model: more mistakes than training steps");
    }
    chunk.mistakes.reserve(n);
    int64_t previous = 0;
    for (uint64_t k = 0; k < n; ++k) {
      Mistake m{in.Get<int64_t>(), in.Get<int32_t>(), in.Get<int32_t>()};
      if (m.step <= previous || m.step > chunk.steps || m.plus < 0 || m.minus < 0 || m.plus >= support_size ||
          m.minus >= support_size) {
        throw InputError("perceptron model: inconsistent mistake record " + std::to_string(k));
      }
      previous = m.step;
      chunk.mistakes.push_back(m);
    }
    run.chunks.push_back(std::move(chunk));
  }
  return run;
}

bool SameDecisions(const PerceptronRun& a, const PerceptronRun& b) {
  if (a.support != b.support || a.chunks.size() != b.chunks.size()) return false;
  for (std::size_t c = 0; c < a.chunks.size(); ++c) {
    if (a.chunks[c].steps != b.chunks[c].steps) return false;
    if (a.chunks[c].mistakes.size() != b.chunks[c].mistakes.size()) return false;
    for (std::size_t k = 0; k < a.chunks[c].mistakes.size(); ++k) {
      const Mistake &x = a.chunks[c].mistakes[k], &y = b.chunks[c].mistakes[k];
      if (x.step != y.step || x.plus != y.plus || x.minus != y.minus) return false;
    }
  }
  return true;
}

}  // namespace structrank

// What perceptron training produces, in the dual view shared by the primal and kernel
// forms: the support candidates and, per chunk, the ordered mistakes. Every hypothesis
// G_t (t = 1..steps, one after each training example) is a prefix of the mistakes, so
// last, averaged and voted predictions all derive from this one record.
#pragma once
#include <cstdint>
#include <vector>

#include "core/byte_io.h"

namespace structrank {

// At training step `step` (1-based within its chunk) the perceptron chose candidate
// `minus` over the best candidate `plus`: G += K(plus, .) - K(minus, .).
// `plus` and `minus` index PerceptronRun::support.
struct Mistake {
  int64_t step;
  int32_t plus;
  int32_t minus;
};

struct PerceptronChunk {
  int64_t steps = 0;  // training examples visited (all epochs): the number of hypotheses
  std::vector<Mistake> mistakes;
};

enum class PredictMode : int32_t { kLast = 0, kAveraged = 1, kVoted = 2 };

struct PerceptronRun {
  // Each support entry's candidate id in the training set (a saved model renumbers its
  // support bank 0..S-1 and keeps these only for reference).
  std::vector<int32_t> support;
  std::vector<PerceptronChunk> chunks;

  int64_t TotalSteps() const;
  int64_t TotalMistakes() const;
  // Sum over chunks of each chunk's final hypothesis.
  std::vector<double> LastCoefficients() const;
  // The mean of all hypotheses G_t of all chunks.
  std::vector<double> AveragedCoefficients() const;
  std::vector<double> Coefficients(PredictMode mode) const;

  void Save(ByteWriter& out) const;
  // Throws InputError on truncated or inconsistent bytes.
  static PerceptronRun Load(ByteReader& in);
};

// Whether two runs made the same decisions: the same support list, steps and mistakes
// (what different scorers of one training must agree on).
bool SameDecisions(const PerceptronRun& a, const PerceptronRun& b);

}  // namespace structrank

#include "tagger/train_sgd.h"

#include <algorithm>

#include "core/errors.h"

namespace structrank {

double SgdEpoch(const ChainEncoder& encoder, const std::vector<int64_t>& order, double eta0, double c2,
                std::vector<double>& w, SgdState& state, const std::atomic<bool>* cancel) {
  const TaggerCorpus& corpus = encoder.corpus();
  const double N = static_cast<double>(std::max<int64_t>(1, corpus.sentences()));
  const double lambda = 2 * c2 / N;
  ChainEncoder::StepScratch scratch(encoder.lattice());
  double loss = 0;
  for (std::size_t q = 0; q < order.size(); ++q) {
    if (cancel && (q & 255) == 0 && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    int64_t s = order[q];
    if (SentenceLength(corpus, s) == 0) continue;
    double eta = eta0 / (1.0 + lambda * eta0 * static_cast<double>(state.t++));
    state.scale *= (1.0 - eta * lambda);
    if (state.scale < 1e-9) {  // fold the scale into the weights before it underflows
      for (double& v : w) v *= state.scale;
      state.scale = 1.0;
    }
    const double gain = eta / state.scale;
    loss += encoder.SentenceStep(s, state.scale, gain, w.data(), scratch);
  }
  double norm = 0;
  for (double v : w) norm += v * v;
  return loss + c2 * norm * state.scale * state.scale;
}

}  // namespace structrank

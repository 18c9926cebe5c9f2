// Training a latent-annotation PCFG (chart/latent_grammar.h) by split-merge EM (Petrov,
// Barrett, Thibaux & Klein 2006): the gold trees fix the base symbols, EM learns how each
// splits. Each cycle doubles every subsymbol (its parameters copied with a little noise),
// runs EM, merges back the fraction of the new splits whose merging loses the least
// training likelihood, and runs EM again; rule probabilities are smoothed towards the mean of
// their parent's subsymbols.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "chart/gold_tree.h"
#include "chart/grammar.h"

namespace structrank {

class ChartModel;
struct Corpus;

struct LatentOptions {
  int cycles = 4;           // split cycles
  int iterations = 50;      // EM iterations after each split (half as many after each merge)
  double merge = 0.5;       // fraction of each cycle's splits merged back (0: none)
  double smoothing = 0.01;  // rule probabilities pulled this far towards their siblings' mean
  double lex_prior = 1.0;   // pseudo-count of P(x | tag) in P(x | tag, word class)
  int word_min = 3;         // words seen fewer times share their signature's split
  double noise = 0.01;      // relative noise that breaks each split's symmetry
  uint64_t seed = 1;
  int threads = 1;
  // A cycle starts only while the doubled subsymbols stay within this many: a grammar above
  // it parses without the chart's (left, right) pair index, and its charts and rule blocks
  // grow with the square and cube of the subsymbols (a treebank of hundreds of labels stops
  // after fewer cycles than one of tens).
  int max_subsymbols = Grammar::kMaxPairIndexSymbols;
};

// Trains on `gold` (the trees of `corpus`, in the symbols of `base`, a PCFG built from them:
// its grammar, lexicon and relative frequencies start the training) in steps a caller can
// report between. `base` must outlive the trainer.
class LatentPcfgTrainer {
 public:
  LatentPcfgTrainer(const ChartModel& base, const Corpus& corpus, const std::vector<GoldItems>& gold,
                    const LatentOptions& options);
  ~LatentPcfgTrainer();
  // Up to `steps` more steps (a split, an EM iteration, the pass that scores merges and
  // merges); returns the trees' log-likelihood after the last EM iteration (words scored by
  // their splits only). A split that max_subsymbols refuses ends the training: total_steps()
  // falls to the steps done.
  double Steps(int steps, const std::atomic<bool>* cancel = nullptr);
  int steps_done() const;
  int total_steps() const;
  bool Done() const;
  // The parser the parameters give now (chart/latent_grammar.h).
  std::unique_ptr<ChartModel> Build() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// All steps at once.
std::unique_ptr<ChartModel> TrainLatentPcfg(const ChartModel& base, const Corpus& corpus,
                                            const std::vector<GoldItems>& gold, const LatentOptions& options,
                                            const std::atomic<bool>* cancel = nullptr);

}  // namespace structrank

// Dynamic programming over a linear chain of order 1 or 2, shared by all taggers.
// A second-order chain is run as a first-order chain over states (t-1, t): state
// p * L + c, with p == L standing for "before the sentence". Edges into each state are
// stored contiguously, so every algorithm is one loop over (position, state, in-edge).
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "tagger/model.h"

namespace structrank {

struct ChainLattice {
  int32_t L = 0, order = 1, S = 0;        // labels, order, states
  std::vector<int32_t> state_label;       // S
  std::vector<int32_t> start_state;       // states allowed at position 0
  std::vector<int64_t> start_weight;      // weight index of each start state
  std::vector<int32_t> in_begin;          // S + 1: edges into s are [in_begin[s], in_begin[s+1])
  std::vector<int32_t> edge_from;         // E
  std::vector<int64_t> edge_w1, edge_w2;  // weight indices (w2 = -1 for order 1)

  static ChainLattice For(const TaggerModel& model);
  int32_t num_edges() const { return static_cast<int32_t>(edge_from.size()); }
  // State sequence of a label sequence, and the edge between two consecutive states.
  void States(const int32_t* labels, int32_t n, int32_t* states) const;
  int32_t Edge(int32_t from, int32_t to) const { return in_begin[to] + (order == 1 ? from : from / L); }
  int32_t StartIndex(int32_t state) const { return order == 1 ? state : state % L; }
};

// Dense first-order rows are padded to a multiple of 8 doubles (one AVX-512 register,
// two AVX2 ones): the inner loops then have no remainder, and pads hold 0.
inline int32_t PadLanes(int32_t L) { return (L + 7) / 8 * 8; }
// T (L x L, [to][from]) into `pad` ([to][from]) and `from_pad` ([from][to]), W = PadLanes(L).
void PadTransitions(const std::vector<double>& T, int32_t L, std::vector<double>& pad,
                    std::vector<double>& from_pad);

// Row i of `out` (stride W >= L) = row i of the n x L emissions minus its maximum, with
// -inf in the W - L pads; returns the sum of the maxima. The exp of these rows keeps every
// factor <= 1 so nothing overflows, and the pads' exp is 0.
double ShiftedRows(int32_t n, int32_t L, int32_t W, const double* emissions, double* out);

// Transition scores for one weight vector: start_score[k] and edge_score[e].
struct ChainScores {
  std::vector<double> start, edge;
  std::vector<double> start_exp, edge_exp;  // exp of the above, when computed with_exp
  // Order 1: edge_exp padded to W = PadLanes(L) columns (pads 0), as [to][from] and [from][to].
  std::vector<double> edge_pad, edge_from_pad;
  void Compute(const ChainLattice& lat, const double* w, double scale = 1.0, bool with_exp = false);
};

struct Candidate {
  std::vector<int32_t> labels;
  double score = 0;  // sequence score (perceptron), or log-probability (CRF, maxent)
};

// Scratch buffers reused across sentences by one thread.
class ChainDecoder {
 public:
  explicit ChainDecoder(const ChainLattice& lat) : lat_(lat) {}

  // Best label sequence; returns its score. emissions: n x L.
  double Viterbi(int32_t n, const double* emissions, const ChainScores& sc, int32_t* labels);

  // The k best label sequences, best first, with their scores (exact).
  std::vector<Candidate> KBest(int32_t n, const double* emissions, const ChainScores& sc, int32_t k);

  // Scaled forward-backward. Returns log Z. When `label_marginals` is non-null it receives
  // n x L node marginals; edge and start marginals are *added* into `edge_expect` (E) and
  // `start_expect` (starts) when non-null.
  double ForwardBackward(int32_t n, const double* emissions, const ChainScores& sc, double* label_marginals,
                         double* edge_expect, double* start_expect);

  // Score of a given label sequence.
  double PathScore(int32_t n, const double* emissions, const ChainScores& sc, const int32_t* labels);

  // Position-dependent scores of (previous label, label) pairs from edge features:
  // delta[i * P + p * L + c] (p == L at the start), or null. Applies to the calls that
  // follow; with it, ForwardBackward also fills pair_marginals() (n x P).
  void SetPairScores(const double* delta) { delta_ = delta; }
  const std::vector<double>& pair_marginals() const { return pair_marg_; }

 private:
  const ChainLattice& lat_;
  // First order without pair scores: rows padded to PadLanes(L) (chain_dense.cc).
  double ForwardBackward1(int32_t n, const double* emissions, const ChainScores& sc, double* label_marginals,
                          double* edge_expect, double* start_expect);
  std::vector<double> a_, b_, z_, e_, start_exp_, edge_exp_, edge_pad_, edge_from_pad_, pair_sum_, u_;
  std::vector<double> from_to_;  // Viterbi, order 1: the edge scores as [from][to], rows padded (chain.cc)
  std::vector<int32_t> back_, states_;
  const double* delta_ = nullptr;
  std::vector<double> pair_marg_, pair_exp_;
};

}  // namespace structrank

#include "perceptron/perceptron_predict.h"

#include <algorithm>

#include "core/errors.h"
#include "core/thread_pool.h"

namespace structrank {

DualCandidateScorer::DualCandidateScorer(std::vector<double> coef, const CandidateKernel* kernel)
    : coef_(std::move(coef)), kernel_(kernel) {
  for (std::size_t s = 0; s < coef_.size(); ++s) {
    if (coef_[s] != 0) nonzero_.push_back(static_cast<int32_t>(s));
  }
}

double DualCandidateScorer::Score(int32_t candidate) const {
  double g = 0;
  for (int32_t s : nonzero_) g += coef_[s] * (*kernel_)(s, candidate);
  return g;
}

LinearCandidateScorer::LinearCandidateScorer(const std::vector<double>& coef, const CsrMatrix& support_rows,
                                             const std::vector<double>& support_logprob, double beta,
                                             const CsrMatrix* query_rows, const double* query_logprob)
    : beta_(beta), query_(query_rows), query_logprob_(query_logprob) {
  if (support_rows.rows() != static_cast<int64_t>(coef.size())) {
    throw InputError("perceptron: one support row per coefficient expected");
  }
  for (std::size_t s = 0; s < coef.size(); ++s) {
    if (coef[s] == 0) continue;
    for (int64_t k = support_rows.RowBegin(s); k < support_rows.RowEnd(s); ++k) {
      const int32_t f = support_rows.cols[k];
      if (f >= static_cast<int32_t>(weights_.size())) weights_.resize(f + 1, 0.0);
      weights_[f] += coef[s] * static_cast<double>(support_rows.Value(k));
    }
    if (!support_logprob.empty()) logprob_weight_ += coef[s] * support_logprob[s];
  }
}

double LinearCandidateScorer::Score(int32_t candidate) const {
  double g = 0;
  const auto size = static_cast<int32_t>(weights_.size());
  for (int64_t k = query_->RowBegin(candidate); k < query_->RowEnd(candidate); ++k) {
    const int32_t f = query_->cols[k];
    if (f < size) g += weights_[f] * static_cast<double>(query_->Value(k));
  }
  if (beta_ != 0) g += beta_ * query_logprob_[candidate] * logprob_weight_;
  return g;
}

LogprobPlusScorer::LogprobPlusScorer(std::unique_ptr<CandidateScorer> inner, const std::vector<double>& coef,
                                     const std::vector<double>& support_logprob, double beta,
                                     const double* query_logprob)
    : inner_(std::move(inner)), beta_(beta), query_logprob_(query_logprob) {
  for (std::size_t s = 0; s < coef.size(); ++s) logprob_weight_ += coef[s] * support_logprob[s];
}

double LogprobPlusScorer::Score(int32_t candidate) const {
  const double g = inner_->Score(candidate);
  return beta_ == 0 ? g : g + beta_ * query_logprob_[candidate] * logprob_weight_;
}

void LogprobPlusScorer::ScoreSentence(int32_t begin, int32_t end, double* out) const {
  inner_->ScoreSentence(begin, end, out);
  if (beta_ == 0) return;
  for (int32_t c = begin; c < end; ++c) out[c - begin] += beta_ * query_logprob_[c] * logprob_weight_;
}

std::vector<int32_t> ChooseBest(const RankingSet& query, const CandidateScorer& scorer, int threads,
                                const std::atomic<bool>* cancel, std::vector<double>* scores,
                                double base_weight) {
  const int64_t n = query.sentences();
  std::vector<int32_t> chosen(n, -1);
  std::vector<double> local;
  std::vector<double>& out = scores ? *scores : local;
  out.assign(query.candidates(), 0.0);
  ParallelFor(
      n, threads, 4,
      [&](std::size_t lo, std::size_t hi, int) {
        for (std::size_t s = lo; s < hi; ++s) {
          const int64_t b = query.sentence_ptr[s], e = query.sentence_ptr[s + 1];
          scorer.ScoreSentence(static_cast<int32_t>(b), static_cast<int32_t>(e), out.data() + b);
          if (base_weight != 0) {
            for (int64_t c = b; c < e; ++c) out[c] += base_weight * query.logprob[c];
          }
          if (e > b) {
            int64_t best = b;
            for (int64_t c = b + 1; c < e; ++c) {
              if (ScoreAbove(out[c], out[best])) best = c;
            }
            chosen[s] = static_cast<int32_t>(best - b);
          }
        }
      },
      cancel);
  return chosen;
}

void KernelColumns::Column(int32_t candidate, double* out) const {
  for (std::size_t s = 0; s < used_.size(); ++s) {
    out[s] = used_[s] ? (*kernel_)(static_cast<int32_t>(s), candidate) : 0.0;
  }
}

void LogprobPlusColumns::AddLogprob(int32_t candidate, double* out) const {
  if (beta_ == 0) return;
  const double lx = beta_ * query_logprob_[candidate];
  for (int64_t s = 0; s < support_; ++s) out[s] += lx * support_logprob_[s];
}

void LogprobPlusColumns::Column(int32_t candidate, double* out) const {
  inner_->Column(candidate, out);
  AddLogprob(candidate, out);
}

void LogprobPlusColumns::SentenceColumns(int32_t begin, int32_t end, int64_t stride, double* out) const {
  inner_->SentenceColumns(begin, end, stride, out);
  for (int32_t c = begin; c < end; ++c) AddLogprob(c, out + (c - begin) * stride);
}

std::vector<char> UsedSupport(const PerceptronRun& run) {
  std::vector<char> used(run.support.size(), 0);
  for (const auto& chunk : run.chunks) {
    for (const auto& m : chunk.mistakes) used[m.plus] = used[m.minus] = 1;
  }
  return used;
}

std::vector<int32_t> ChooseVoted(const PerceptronRun& run, const RankingSet& query,
                                 const SupportColumns& columns, int threads, const std::atomic<bool>* cancel,
                                 std::vector<double>* votes_out, double base_weight) {
  const int64_t n = query.sentences();
  const auto support = static_cast<int64_t>(run.support.size());
  const double total_steps = static_cast<double>(std::max<int64_t>(1, run.TotalSteps()));
  std::vector<int32_t> chosen(n, -1);
  if (votes_out) votes_out->assign(query.candidates(), 0.0);
  ParallelFor(
      n, threads, 1,
      [&](std::size_t lo, std::size_t hi, int) {
        std::vector<double> k;  // k[c * support + s] = K'(support s, candidate c)
        std::vector<double> g, votes;
        std::vector<int64_t> last_vote;
        for (std::size_t s = lo; s < hi; ++s) {
          const int64_t b = query.sentence_ptr[s], e = query.sentence_ptr[s + 1];
          const int64_t m = e - b;
          if (m == 0) continue;
          k.assign(support * m, 0.0);
          columns.SentenceColumns(static_cast<int32_t>(b), static_cast<int32_t>(e), support, k.data());
          votes.assign(m, 0.0);
          last_vote.assign(m, -1);
          int64_t position = 0;  // global index of the first hypothesis of the current chunk
          auto vote = [&](int64_t count, int64_t last_position) {
            if (count <= 0) return;
            int64_t best = 0;
            for (int64_t c = 1; c < m; ++c) {
              if (ScoreAbove(g[c], g[best])) best = c;
            }
            votes[best] += static_cast<double>(count);
            last_vote[best] = last_position;
          };
          for (const auto& chunk : run.chunks) {
            g.assign(m, 0.0);
            if (base_weight != 0) {
              for (int64_t c = 0; c < m; ++c) g[c] = base_weight * query.logprob[b + c];
            }
            int64_t start = 1;  // the current hypothesis holds from step `start`
            for (const auto& mk : chunk.mistakes) {
              vote(mk.step - start, position + mk.step - 1);
              for (int64_t c = 0; c < m; ++c) g[c] += k[c * support + mk.plus] - k[c * support + mk.minus];
              start = mk.step;
            }
            vote(chunk.steps - start + 1, position + chunk.steps);
            position += chunk.steps;
          }
          int64_t best = 0;
          for (int64_t c = 1; c < m; ++c) {
            if (votes[c] > votes[best] || (votes[c] == votes[best] && last_vote[c] > last_vote[best]))
              best = c;
          }
          chosen[s] = static_cast<int32_t>(best);
          if (votes_out) {
            for (int64_t c = 0; c < m; ++c) (*votes_out)[b + c] = votes[c] / total_steps;
          }
        }
      },
      cancel);
  return chosen;
}

}  // namespace structrank

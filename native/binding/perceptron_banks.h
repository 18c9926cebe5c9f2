// Builds the candidate bank a perceptron kernel reads from the typed arrays the TS layer
// sends: `features` (linear), `trees` (tree kernel) or `tags` (tagging kernel); a tree or
// tagging kernel with `features` and `featureWeight` adds the features (linear_sum_bank.h).
#pragma once
#include <napi.h>

#include <memory>

#include "perceptron/candidate_bank.h"

namespace structrank::binding {

std::shared_ptr<CandidateBank> MakeCandidateBank(const Napi::Object& spec);

}  // namespace structrank::binding

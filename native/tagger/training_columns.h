// A CoNLL training file's bytes read straight into the text layout TaggerModel::BuildCorpus
// takes (the input columns of each token on one line, tab-separated, a blank line after each
// sentence) and the parallel label text. Lines are split exactly as lib/io/conll.ts splits
// them, so training from a file needs no JavaScript string per token: on conll2000 those
// rows held about 70 MB of the training process (docs/design/tagger-speed.md).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace structrank {

struct TrainingColumns {
  std::string text, labels;
  int64_t sentences = 0, tokens = 0;
  int64_t lines = 0;  // lines in the input, a last one without '\n' included
  // Each label with its token count, in the order first seen.
  std::vector<std::pair<std::string, int64_t>> label_counts;
  // The first token line whose number of fields is not `width` (1-based; 0: none), and
  // that number.
  int64_t error_line = 0;
  int32_t error_found = 0;
};

// `bytes` is the file without its byte-order mark, valid UTF-8. A blank line (only
// JavaScript \s) or a -DOCSTART- line ends a sentence; every other line must have `width`
// fields (single tabs if `tab`, else runs of \s); '\r' before '\n' is dropped. Stops at the
// first bad line.
TrainingColumns ReadTrainingColumns(std::string_view bytes, int32_t width, bool tab,
                                    const std::vector<int32_t>& input_index, int32_t label_index);

}  // namespace structrank

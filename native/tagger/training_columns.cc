#include "tagger/training_columns.h"

#include <unordered_map>

#include "tagger/column_tagging.h"

namespace structrank {

TrainingColumns ReadTrainingColumns(std::string_view bytes, int32_t width, bool tab,
                                    const std::vector<int32_t>& input_index, int32_t label_index) {
  TrainingColumns out;
  // The text is about the file's size, the labels a fraction of it.
  out.text.reserve(bytes.size());
  std::unordered_map<std::string_view, std::size_t> label_id;
  std::vector<std::string_view> fields;
  int64_t in_sentence = 0;
  const auto end_sentence = [&]() {
    if (in_sentence == 0) return;
    out.text += '\n';
    out.labels += '\n';
    ++out.sentences;
    in_sentence = 0;
  };
  std::size_t start = 0;
  while (start < bytes.size()) {
    std::size_t stop = bytes.find('\n', start);
    const std::size_t next = stop == std::string_view::npos ? bytes.size() : stop + 1;
    if (stop == std::string_view::npos) stop = bytes.size();
    if (stop > start && bytes[stop - 1] == '\r') --stop;
    const std::string_view line = bytes.substr(start, stop - start);
    start = next;
    ++out.lines;
    if (ReadColumnLine(line, tab, fields) != LineKind::kToken) {
      end_sentence();
      continue;
    }
    if (static_cast<int32_t>(fields.size()) != width) {
      out.error_line = out.lines;
      out.error_found = static_cast<int32_t>(fields.size());
      return out;
    }
    for (std::size_t c = 0; c < input_index.size(); ++c) {
      if (c > 0) out.text += '\t';
      out.text += fields[input_index[c]];
    }
    out.text += '\n';
    const std::string_view label = fields[label_index];
    out.labels += label;
    out.labels += '\n';
    auto [at, fresh] = label_id.emplace(label, out.label_counts.size());
    if (fresh) out.label_counts.emplace_back(std::string(label), 0);
    ++out.label_counts[at->second].second;
    ++out.tokens;
    ++in_sentence;
  }
  end_sentence();
  return out;
}

}  // namespace structrank

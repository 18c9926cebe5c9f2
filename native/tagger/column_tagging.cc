#include "tagger/column_tagging.h"

#include <memory>

#include "core/errors.h"
#include "core/thread_pool.h"
#include "tagger/sentence_tagger.h"

namespace structrank {

int JsSpaceLengthNonAscii(const char* p, const char* end) {
  const auto c = static_cast<unsigned char>(p[0]);
  if (c < 0xC2) return 0;
  const auto b1 = end - p >= 2 ? static_cast<unsigned char>(p[1]) : 0;
  if (c == 0xC2) return b1 == 0xA0 ? 2 : 0;  // U+00A0
  if (end - p < 3) return 0;
  const auto b2 = static_cast<unsigned char>(p[2]);
  switch (c) {
    case 0xE1:
      return b1 == 0x9A && b2 == 0x80 ? 3 : 0;  // U+1680
    case 0xE2:
      if (b1 == 0x80 && (b2 <= 0x8A || b2 == 0xA8 || b2 == 0xA9 || b2 == 0xAF))
        return 3;                               // U+2000-200A, 2028, 2029, 202F
      return b1 == 0x81 && b2 == 0x9F ? 3 : 0;  // U+205F
    case 0xE3:
      return b1 == 0x80 && b2 == 0x80 ? 3 : 0;  // U+3000
    case 0xEF:
      return b1 == 0xBB && b2 == 0xBF ? 3 : 0;  // U+FEFF
    default:
      return 0;
  }
}

namespace {

// Fields of a line: whitespace runs (after trimming) or single tabs.
void SplitFields(std::string_view line, bool tab, std::vector<std::string_view>& fields) {
  fields.clear();
  const char* p = line.data();
  const char* end = p + line.size();
  if (tab) {
    const char* f = p;
    for (; p < end; ++p) {
      if (*p == '\t') {
        fields.emplace_back(f, static_cast<std::size_t>(p - f));
        f = p + 1;
      }
    }
    fields.emplace_back(f, static_cast<std::size_t>(end - f));
    return;
  }
  while (p < end) {
    int n;
    while (p < end && (n = JsSpaceLength(p, end)) > 0) p += n;
    if (p == end) break;
    const char* f = p;
    while (p < end && JsSpaceLength(p, end) == 0) ++p;
    fields.emplace_back(f, static_cast<std::size_t>(p - f));
  }
}

bool IsBlank(std::string_view line) {
  const char* p = line.data();
  const char* end = p + line.size();
  while (p < end) {
    int n = JsSpaceLength(p, end);
    if (n == 0) return false;
    p += n;
  }
  return true;
}

struct LineInfo {
  std::size_t start, length;  // the line's text without its terminator
  LineKind kind;
};

}  // namespace

LineKind ReadColumnLine(std::string_view line, bool tab, std::vector<std::string_view>& fields) {
  if (IsBlank(line)) return LineKind::kBlank;
  SplitFields(line, tab, fields);
  return fields[0] == "-DOCSTART-" ? LineKind::kDocStart : LineKind::kToken;
}

ColumnTagResult TagColumns(const TaggerModel& model, std::string_view block, bool final, int32_t width,
                           const ColumnLayout& layout, int threads, const std::atomic<bool>* cancel,
                           ColumnTagScratch* scratch) {
  if (layout.input_columns != model.config.num_columns ||
      static_cast<int32_t>(layout.full_index.size()) != layout.input_columns) {
    throw InputError("column layout does not match the model's input columns");
  }
  ColumnTagResult result;
  result.width = width;
  // Pass 1: lines and their kinds; the cut after the last sentence end.
  std::vector<LineInfo> lines;
  std::vector<std::string_view> fields;
  std::size_t cut_lines = 0, cut_bytes = 0;
  for (std::size_t pos = 0; pos < block.size();) {
    std::size_t nl = block.find('\n', pos);
    if (nl == std::string_view::npos) throw InputError("column block does not end in a newline");
    std::size_t stop = nl > pos && block[nl - 1] == '\r' ? nl - 1 : nl;
    std::string_view text = block.substr(pos, stop - pos);
    const LineKind kind = ReadColumnLine(text, layout.tab, fields);
    lines.push_back({pos, stop - pos, kind});
    pos = nl + 1;
    if (kind != LineKind::kToken) {
      cut_lines = lines.size();
      cut_bytes = pos;
    }
  }
  if (final) {
    cut_lines = lines.size();
    cut_bytes = block.size();
  }
  lines.resize(cut_lines);
  // Pass 2: the token lines' input fields, grouped into sentences; widths checked in order.
  std::vector<SentenceFields> sentences;
  SentenceFields current;
  const int32_t C = layout.input_columns;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const LineInfo& line = lines[k];
    if (line.kind != LineKind::kToken) {
      if (current.length > 0) sentences.push_back(std::move(current));
      current = SentenceFields();
      continue;
    }
    SplitFields(block.substr(line.start, line.length), layout.tab, fields);
    const int32_t found = static_cast<int32_t>(fields.size());
    if (result.width < 0) {
      if (found != C && found != layout.all_columns) {
        result.error_line = static_cast<int64_t>(k) + 1;
        result.error_found = found;
        result.error_kind = 1;
        return result;
      }
      result.width = found;
    } else if (found != result.width) {
      result.error_line = static_cast<int64_t>(k) + 1;
      result.error_found = found;
      result.error_kind = 2;
      return result;
    }
    for (int32_t c = 0; c < C; ++c) current.fields.push_back(fields[found == C ? c : layout.full_index[c]]);
    ++current.length;
  }
  if (current.length > 0) sentences.push_back(std::move(current));
  // Decode.
  const int nthreads = threads;
  ColumnTagScratch local;
  ColumnTagScratch& work = scratch ? *scratch : local;
  TaggerCorpus& corpus = work.corpus;
  model.LookupSentences(sentences, nthreads, cancel, corpus);
  std::vector<int32_t>& labels = work.labels;
  labels.assign(static_cast<std::size_t>(corpus.tokens()), 0);
  std::vector<std::unique_ptr<SentenceTagger>> taggers(nthreads);
  ParallelFor(
      static_cast<std::size_t>(corpus.sentences()), nthreads, 256,
      [&](std::size_t first, std::size_t last, int thread) {
        if (!taggers[thread]) taggers[thread] = std::make_unique<SentenceTagger>(model);
        for (std::size_t s = first; s < last; ++s)
          taggers[thread]->Best(corpus, static_cast<int64_t>(s), &labels[corpus.sentence_start[s]]);
      },
      cancel);
  // Output: each line, a token line with its label, a -DOCSTART- line with O.
  const char sep = layout.tab ? '\t' : ' ';
  std::string& out = result.output;
  out.reserve(cut_bytes + static_cast<std::size_t>(corpus.tokens()) * 6);
  std::size_t token = 0;
  for (const LineInfo& line : lines) {
    out.append(block.data() + line.start, line.length);
    if (line.kind == LineKind::kToken) {
      out.push_back(sep);
      out.append(model.labels.Name(labels[token++]));
    } else if (line.kind == LineKind::kDocStart) {
      out.push_back(sep);
      out.push_back('O');
    }
    out.push_back('\n');
  }
  result.consumed = cut_bytes;
  result.lines = static_cast<int64_t>(lines.size());
  return result;
}

}  // namespace structrank

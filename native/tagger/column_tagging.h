// Tags CoNLL column text the way `structrank tag` writes it, straight from the bytes:
// every line is copied, token lines get the predicted label appended, blank lines and
// -DOCSTART- lines (label O) pass through. Lines are split into fields exactly as the
// JavaScript reader splits them (whitespace = JavaScript's \s, or tabs), so streaming a
// file through here writes the same bytes as tagging it in memory.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tagger/model.h"

namespace structrank {

struct ColumnLayout {
  int32_t input_columns = 1;        // width of a line with the model's input columns only
  int32_t all_columns = 2;          // width of a line with all training columns
  std::vector<int32_t> full_index;  // input column c's position in a line of all columns
  bool tab = false;                 // fields separated by single tabs, else by whitespace runs
};

struct ColumnTagResult {
  std::string output;
  std::size_t consumed = 0;  // bytes of the block used (whole sentences unless `final`)
  int64_t lines = 0;         // lines in the consumed bytes
  int32_t width = -1;        // the token-line width, fixed by the first token line
  // A bad line: its 1-based number within the block, the fields found, and the kind
  // (1: the first token line's width fits neither layout; 2: width differs from `width`).
  int64_t error_line = 0;
  int32_t error_found = 0;
  int32_t error_kind = 0;
};

// The memory of one block's work, kept by a caller that tags block after block: reused, it
// is written to pages already mapped instead of pages the allocator takes from the system
// and gives back for every block.
struct ColumnTagScratch {
  TaggerCorpus corpus;
  std::vector<int32_t> labels;
};

// `block` holds whole lines, each ending in '\n' (a '\r' before it is dropped). Without
// `final`, lines after the block's last sentence end (blank or -DOCSTART- line) are left
// for the next block. `width` is the width fixed by earlier blocks (-1: none yet).
// `scratch` (may be null): buffers reused from the caller's previous block.
ColumnTagResult TagColumns(const TaggerModel& model, std::string_view block, bool final, int32_t width,
                           const ColumnLayout& layout, int threads, const std::atomic<bool>* cancel = nullptr,
                           ColumnTagScratch* scratch = nullptr);

// Length in bytes of the JavaScript whitespace character (\s) starting at p (< end), or 0.
// Inline for ASCII (called for every byte of the input); other bytes go to the table of
// Unicode spaces.
int JsSpaceLengthNonAscii(const char* p, const char* end);
inline int JsSpaceLength(const char* p, const char* end) {
  const auto c = static_cast<unsigned char>(*p);
  if (c < 0x80) return c == ' ' || (c >= 9 && c <= 13) ? 1 : 0;
  return JsSpaceLengthNonAscii(p, end);
}
// A CoNLL line as lib/io/conll.ts reads it (`line` without its '\n' or '\r\n'): blank (only
// JavaScript \s), a -DOCSTART- marker, or a token line. `fields` holds the line's fields
// (single tabs if `tab`, else runs of \s after trimming) unless it is blank.
enum class LineKind : uint8_t { kBlank, kDocStart, kToken };
LineKind ReadColumnLine(std::string_view line, bool tab, std::vector<std::string_view>& fields);

}  // namespace structrank

#include "core/word_signature.h"

#include "core/test_harness.h"

using namespace structrank;

TEST(word_shape_is_unicode_aware) {
  CHECK(WordShape("McDonald") == "XxXx");
  CHECK(WordShape("1,234.5") == "d,d.d");
  CHECK(WordShape("Émile") == "Xx");
  CHECK(WordShape("ação") == "x");
  CHECK(WordShape("Москва") == "Xx");
  CHECK(WordShape("東京") == "L");
  CHECK(WordShape("co-op") == "x-x");
  CHECK(WordShape("ABCdef", ShapeRuns::kClassRuns, 1) == "X");
  CHECK(WordShape("") == "");
}

TEST(word_shape_runs_and_combining_marks) {
  CHECK(WordShape("McCain-22", ShapeRuns::kEach) == "XxXxxx-dd");
  CHECK(WordShape("McCain-22", ShapeRuns::kClassRuns) == "XxXx-d");
  CHECK(WordShape("...", ShapeRuns::kClassRuns) == "...");
  CHECK(WordShape("...", ShapeRuns::kAllRuns) == ".");
  CHECK(WordShape("«Olá»", ShapeRuns::kAllRuns) == "«Xx»");  // other characters as themselves
  CHECK(WordShape("nai\u0308ve") == "x");                    // a decomposed diaeresis
  CHECK(WordShape("S\u0303ao", ShapeRuns::kEach) == "Xxx");
  CHECK(WordShape("नमस्ते") == "L");  // vowel signs and virama
  CHECK(WordShape("٣٤") == "d");
  CHECK(WordShape("_ ", ShapeRuns::kAllRuns) == "__");  // the literal and the space symbol differ
  CHECK(ShapeSymbol('A') == 'X' && ShapeSymbol(',') == 0);
}

// Polytonic Greek (Greek Extended, the Ancient Greek treebanks) and fullwidth Latin have case.
TEST(greek_extended_and_fullwidth_letters_have_case) {
  CHECK(WordShape("Ἀθῆναι") == "Xx");
  CHECK(LowerUtf8("ἈΘῆΝΑΙ") == "ἀθῆναι");
  CHECK(LowerUtf8("ᾼῸὩ") == "ᾳὸὡ");
  CHECK(StartsUpper("Ὅμηρος") && !StartsUpper("ὅμηρος"));
  CHECK(WordShape("ῥ᾽") == "x᾽");  // a spacing breathing is a symbol
  CHECK(WordShape("ＡＢＣ１２") == "Xd");
  CHECK(LowerUtf8("ＡＢＣ") == "ａｂｃ");
  CHECK(WordShape("：") == "：");
}

// Character classes come from Unicode's tables in every script (core/unicode_classes.inc).
TEST(case_and_digits_follow_unicode) {
  CHECK(LowerUtf8("ȘTEFAN ȚARĂ") == "ștefan țară");  // Romanian comma-below letters
  CHECK(WordShape("Ơn") == "Xx");                    // Vietnamese horn letters
  CHECK(LowerUtf8("ƏLİ") == "əlİ");              // Azerbaijani schwa; İ lowers to two code points, so stays
  CHECK(WordShape("๒๕๖๗") == "d");               // Thai digits
  CHECK(WordShape("১২") == "d");                 // Bengali digits
  CHECK(LowerUtf8("Ⴀ") == "ⴀ");                  // Georgian Asomtavruli
  CHECK(LowerUtf8("𐐀") == "𐐨");                  // Deseret, outside the BMP
  CHECK(WordShape("ʔ") == "L");                  // the glottal stop is a caseless letter
  CHECK(WordShape("ሰላም።") == "L።");              // Ethiopic full stop: punctuation
  CHECK(WordShape("מה״ס") == "L״L");             // Hebrew gershayim
  CHECK(WordShape("می‌خواهم") == "L");  // a zero-width non-joiner inside a Persian word
  CHECK(WordShape("ok😀") == "x😀");               // a symbol, not a letter
}

TEST(affixes_count_code_points) {
  CHECK(FirstCodepoints("éxito", 2) == "éx");
  CHECK(LastCodepoints("ação", 2) == "ão");
  CHECK(LastCodepoints("ão", 2) == "ão");
  CHECK(LastCodepoints("ã", 2).empty());
  CHECK(FirstCodepoints("a", 2).empty());
  CHECK(StartsUpper("Ñandú") && !StartsUpper("ñandú") && !StartsUpper(""));
  CHECK(HasDigit("x٣") && !HasDigit("abc"));
  CHECK(HasDash("co-op") && HasDash("1914–1918") && !HasDash("abc"));
}

TEST(lowercase_covers_latin_greek_cyrillic) {
  CHECK(LowerUtf8("ÉCOLE") == "école");
  CHECK(LowerUtf8("ŁÓDŹ") == "łódź");
  CHECK(LowerUtf8("ΑΘΗΝΑ") == "αθηνα");
  CHECK(LowerUtf8("ПРИВЕТ") == "привет");
  CHECK(LowerUtf8("abc") == "abc");
  CHECK(Utf8Length("ação") == 4);
}

TEST(malformed_utf8_never_reads_past_the_end) {
  std::string bad = "a\xC3";  // truncated two-byte sequence
  size_t at = 0;
  CHECK(NextCodepoint(bad, at) == 'a');
  CHECK(NextCodepoint(bad, at) == 0xFFFD);
  CHECK(at == bad.size());
  CHECK(WordShape(bad) == "x\xEF\xBF\xBD");
}

TEST(suffixes_are_learned_from_rare_words) {
  std::vector<std::pair<std::string, double>> words;
  for (int i = 0; i < 30; ++i)
    words.emplace_back("pal" + std::to_string(i) + "mente", 1.0);  // digits cut the suffix
  for (int i = 0; i < 30; ++i)
    words.emplace_back(std::string(1, static_cast<char>('a' + i % 26)) + "rápidação", 1.0);
  words.emplace_back("frequentemente", 1000.0);  // frequent words do not vote
  SuffixSet s;
  SuffixSet::Options o;
  o.min_types = 20;
  s.Learn(words, o);
  CHECK(s.Longest("novação") == "ção");
  CHECK(s.Longest("lentamente") == "nte");
  CHECK(s.Longest("xyz") == "");
  CHECK(s.Longest("ão") == "");  // a suffix leaves two code points before it
  ByteWriter w;
  s.Write(w);
  ByteReader r(w.bytes().data(), w.bytes().size());
  SuffixSet back = SuffixSet::Read(r);
  CHECK(back.suffixes() == s.suffixes());
  CHECK(UnknownSignature("Inovação", false, s) == "UNK-CAP-ção");
  CHECK(UnknownSignature("Inovação", true, s) == "UNK-INITC-ção");
  CHECK(UnknownSignature("1.234", false, s) == "UNK-NUM");
  CHECK(UnknownSignature("--", false, s) == "UNK-DASH-PUNCT");
  CHECK(UnknownSignature("ABC", false, s) == "UNK-CAPS");
}

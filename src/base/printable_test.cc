#include "base/printable.h"

#include <gtest/gtest.h>

namespace signet {
namespace {

TEST(PrintableText, KeepsAsciiAndUtf8Letters) {
  EXPECT_EQ(PrintableText("k1-rsa_2048 (prod)"), "k1-rsa_2048 (prod)");
  EXPECT_EQ(PrintableText("cl\xc3\xa9 \xe9\x8d\xb5 \xf0\x9f\x94\x91"),
            "cl\xc3\xa9 \xe9\x8d\xb5 \xf0\x9f\x94\x91");  // é, 鍵, 🔑
}

// Defect 14 of issue 10: a label with a newline printed raw by `signet list`
// forged a second line; an escape sequence could rewrite the terminal.
TEST(PrintableText, EscapesLineBreaksAndTerminalEscapes) {
  EXPECT_EQ(PrintableText("a\nprivate  RSA   forged"), "a\\x0aprivate  RSA   forged");
  EXPECT_EQ(PrintableText("\x1b[2J\r\t\x7f"), "\\x1b[2J\\x0d\\x09\\x7f");
  EXPECT_EQ(PrintableText(std::string_view("a\0b", 3)), "a\\x00b");
}

TEST(PrintableText, EscapesTheBackslashSoEscapesCannotBeForged) {
  EXPECT_EQ(PrintableText("\\x0a"), "\\x5cx0a");
}

TEST(PrintableText, EscapesC1AndBidiControls) {
  EXPECT_EQ(PrintableText("\xc2\x9b" "1m"), "\\xc2\\x9b1m");          // CSI
  EXPECT_EQ(PrintableText("a\xe2\x80\xae" "b"), "a\\xe2\\x80\\xaeb");  // RLO
  EXPECT_EQ(PrintableText("\xe2\x80\xa8"), "\\xe2\\x80\\xa8");         // LINE SEPARATOR
}

TEST(PrintableText, EscapesMalformedUtf8ByteByByte) {
  EXPECT_EQ(PrintableText("\xff\xc3"), "\\xff\\xc3");       // invalid lead, truncated
  EXPECT_EQ(PrintableText("\xc0\xaf"), "\\xc0\\xaf");       // overlong '/'
  EXPECT_EQ(PrintableText("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // surrogate
  EXPECT_EQ(PrintableText("\xc3" "A"), "\\xc3" "A");        // bad continuation
}

TEST(QuotedAscii, OneTokenWhateverTheBytes) {
  EXPECT_EQ(QuotedAscii("k1"), "\"k1\"");
  EXPECT_EQ(QuotedAscii("a\" b=\\\n\xc3\xa9"), "\"a\\x22 b=\\x5c\\x0a\\xc3\\xa9\"");
}

}  // namespace
}  // namespace signet

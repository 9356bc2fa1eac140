#include "base/printable.h"

#include <cstdint>
#include <cstdio>

namespace signet {
namespace {

void AppendHex(unsigned char byte, std::string* out) {
  char hex[5];
  std::snprintf(hex, sizeof hex, "\\x%02x", byte);
  *out += hex;
}

// Utf8Length: the length of the well-formed UTF-8 sequence at the start of
// `text` and its code point, or 0 when it is malformed (overlong forms,
// surrogates and values past U+10FFFF included).
std::size_t Utf8Length(std::string_view text, char32_t* code_point) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(0);
  std::size_t length;
  char32_t value;
  char32_t min_value;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2, value = lead & 0x1f, min_value = 0x80;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3, value = lead & 0x0f, min_value = 0x800;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4, value = lead & 0x07, min_value = 0x10000;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return 0;
    value = (value << 6) | (byte(i) & 0x3f);
  }
  if (value < min_value || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return 0;
  *code_point = value;
  return length;
}

// IsFormatControl: code points that move text or the cursor without being
// seen: C1 controls, LRM/RLM, line and paragraph separators, bidi embeddings,
// overrides and isolates.
bool IsFormatControl(char32_t c) {
  return (c >= 0x80 && c <= 0x9f) || c == 0x200e || c == 0x200f || (c >= 0x2028 && c <= 0x202e) ||
         (c >= 0x2066 && c <= 0x2069);
}

}  // namespace

std::string PrintableText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      if (b >= 0x20 && b < 0x7f && b != '\\') {
        out.push_back(static_cast<char>(b));
      } else {
        AppendHex(b, &out);
      }
      ++i;
      continue;
    }
    char32_t code_point = 0;
    std::size_t length = Utf8Length(text.substr(i), &code_point);
    if (length == 0 || IsFormatControl(code_point)) {
      std::size_t bad = length == 0 ? 1 : length;
      for (std::size_t k = 0; k < bad; ++k) AppendHex(static_cast<unsigned char>(text[i + k]), &out);
      i += bad;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::string QuotedAscii(std::string_view bytes) {
  std::string out = "\"";
  for (char c : bytes) {
    auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7f && b != '"' && b != '\\') {
      out.push_back(c);
    } else {
      AppendHex(b, &out);
    }
  }
  return out + "\"";
}

}  // namespace signet

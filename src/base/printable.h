// Printable text for logs and terminals. Labels, ids and other strings come
// from clients and may hold newlines, terminal escape sequences or bidi
// controls that would forge lines or fields in output that people read and
// scripts parse. These functions return a copy in which every such byte is
// written as \xNN. Pure functions: safe from any thread.
#pragma once

#include <string>
#include <string_view>

namespace signet {

// PrintableText returns `text` with printable ASCII and well-formed UTF-8
// printable characters kept, and as \xNN each byte of: C0 controls, DEL, C1
// controls, the Unicode bidi and line/paragraph separator controls, any
// malformed UTF-8 sequence, and a backslash (so the escaping itself cannot
// be forged).
std::string PrintableText(std::string_view text);

// QuotedAscii returns `"text"` with only printable ASCII kept and every
// other byte (and `"` and `\`) as \xNN: for log fields that must stay one
// token on one line whatever the bytes.
std::string QuotedAscii(std::string_view bytes);

}  // namespace signet

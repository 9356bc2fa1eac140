// What the CLI prints for people and for programs: the names of PKCS#11
// flag bits and --json output (one JSON document on stdout, nlohmann's, with
// invalid UTF-8 in labels replaced rather than thrown on). Stateless;
// single-threaded like the CLI.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "signet/client.hpp"

namespace signet::cli {

// Json: a JSON document that keeps its members in the order they are added
// (the slot before the label, as a person reads it).
using Json = nlohmann::ordered_json;

// TokenFlagNames: the CKF_ bits of CK_TOKEN_INFO.flags that are set, as
// lower-case names without the prefix ("login-required", "token-initialized").
std::vector<std::string> TokenFlagNames(CK_FLAGS flags);

// MechanismFlagNames: the same for CK_MECHANISM_INFO.flags ("sign", "encrypt").
std::vector<std::string> MechanismFlagNames(CK_FLAGS flags);

// JoinNames: names joined with commas; "-" for none.
std::string JoinNames(const std::vector<std::string>& names);

// PrintJson writes `document` to stdout, indented, and a newline.
void PrintJson(const Json& document);

}  // namespace signet::cli

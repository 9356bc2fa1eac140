// CK_RV names: one table from PKCS#11 return codes to their spelled names
// ("CKR_PIN_INCORRECT"), for error messages in the CLI, the client library,
// the PKCS#11 module and logs. Pure functions over a constant table: safe
// from any thread.
#pragma once

#include <string>
#include <string_view>

#include "signet/result.hpp"

namespace signet {

// RvName returns the PKCS#11 name of `code` ("CKR_OK", "CKR_PIN_INCORRECT"),
// or an empty view when the code is not a standard one. The view points into
// a static table and never dangles.
std::string_view RvName(CK_RV code);

// RvToString is RvName with a fallback for unknown codes: "CKR_0x1234" or
// "CKR_VENDOR_DEFINED+0x5".
std::string RvToString(CK_RV code);

// DescribeError formats an Error as "CKR_PIN_INCORRECT: <message>" (just the
// name when the message is empty) for showing to a person.
std::string DescribeError(const Error& error);

}  // namespace signet

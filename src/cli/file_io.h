// Whole-file reads and writes for the CLI ("-" means stdin/stdout).
// CKR_ARGUMENTS_BAD naming the file and the system error on failure.
#pragma once

#include <string>

#include "signet/client.hpp"

namespace signet::cli {

Result<client::Bytes> ReadFile(const std::string& path);
Status WriteFile(const std::string& path, client::ByteView data);

}  // namespace signet::cli

// The data directory: where a daemon or `signet init` finds its tokens.
// Convention: one file per token, named `<serial>.token` (serial = 16
// lower-case hex characters), directory mode 0700, files 0600. Functions are
// safe from any thread; they touch only the file system.
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

#include "keystore/token.h"

namespace signet::keystore {

// kTokenFileExtension: the suffix of every token file in a data directory.
inline constexpr std::string_view kTokenFileExtension = ".token";

// TokenFilePath returns `dir/<serial>.token`.
std::filesystem::path TokenFilePath(const std::filesystem::path& dir, std::string_view serial);

// ListTokenFiles returns the token files in `dir` (names matching the
// convention), sorted by name. CKR_DEVICE_ERROR when `dir` cannot be read;
// an absent directory yields an empty list.
Result<std::vector<std::filesystem::path>> ListTokenFiles(const std::filesystem::path& dir);

// CreateInDirectory creates `dir` (mode 0700, with parents) when missing and
// a new token in it under a fresh random serial; see Token::Create for the
// other arguments and errors. The caller learns the serial from Info().
Result<std::unique_ptr<Token>> CreateInDirectory(const std::filesystem::path& dir,
                                                 std::string_view label, ByteView so_pin,
                                                 ByteView user_pin, const TokenOptions& options);

}  // namespace signet::keystore

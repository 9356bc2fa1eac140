// SignInput: what `signet sign` / `signet verify` send to the daemon for a
// message. A message up to kInlineLimit travels whole with the hash-and-sign
// mechanism. A larger one would not fit a protocol frame (1 MiB), so the CLI
// hashes it and sends the digest with the mechanism that takes a digest
// (CKM_RSA_PKCS with a DigestInfo, CKM_RSA_PKCS_PSS with its parameters,
// CKM_ECDSA): the signature is identical. Ed25519 signs the whole message
// and so is limited to kInlineLimit. Pure functions: any thread.
#pragma once

#include <cstddef>

#include "cli/mechanism_names.h"
#include "signet/client.hpp"

namespace signet::cli {

// kInlineLimit: the largest message sent whole.
inline constexpr std::size_t kInlineLimit = 512 * 1024;

struct SignInput {
  client::Mechanism mechanism;
  client::Bytes data;
};

// PrepareSignInput returns the mechanism and bytes for `message`.
// CKR_DATA_LEN_RANGE for an Ed25519 message over kInlineLimit.
Result<SignInput> PrepareSignInput(const MechanismRow& named, client::Bytes message);

}  // namespace signet::cli

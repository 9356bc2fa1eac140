// MultiPart: one cryptographic operation fed in parts (PKCS#11's C_*Update
// then C_*Final): a block-cipher mode, AES-GCM, a digest or a MAC. The
// daemon keeps one per session and operation kind, so an input of any size
// passes through in bounded memory. Update returns the output the part
// releases (possibly none: a partial block, a digest); Finish returns the
// rest (the padded last block, the GCM tag, the digest or MAC, or GCM's
// verified plaintext) and ends the operation. An error from either also
// ends it: the owner drops the object.
// Thread contract: one owner at a time, not synchronised.
#pragma once

#include <cstddef>

#include "base/secure_bytes.h"
#include "signet/result.hpp"

namespace signet::crypto {

class MultiPart {
 public:
  virtual ~MultiPart() = default;
  virtual Result<SecureBytes> Update(ByteView part) = 0;
  virtual Result<SecureBytes> Finish() = 0;
  // HeldBytes: how much the operation keeps back until Finish (AES-GCM
  // decryption holds its plaintext until the tag checks out), so the owner
  // can bound it.
  virtual std::size_t HeldBytes() const { return 0; }

 protected:
  MultiPart() = default;
  MultiPart(const MultiPart&) = delete;
  MultiPart& operator=(const MultiPart&) = delete;
};

}  // namespace signet::crypto

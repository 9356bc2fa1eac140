// CryptechHash: one hash or HMAC computation behind a Cryptech hash handle
// (hash_initialize .. hash_finalize, or a sign/verify that finishes it), and
// the digests libhal RPC names (proto::hal::Digest), each with its OpenSSL
// name, length and DER algorithm identifier (what get_digest_algorithm_id
// answers and a PKCS#1 DigestInfo starts with), taken from
// base/mechanism_table.h's digest table for the hashes it has.
//
// Thread contract: a CryptechHash belongs to one CryptechSession, which
// serialises its use; the table is constant.
#pragma once

#include <openssl/evp.h>

#include <cstdint>
#include <memory>
#include <string_view>

#include "base/secure_bytes.h"
#include "proto/hal_rpc.h"
#include "signet/result.hpp"

namespace signet::daemon {

struct CryptechDigest {
  proto::hal::Digest id;
  std::string_view openssl_name;
  std::size_t length;
  ByteView algorithm_id;  // DER algorithm identifier, NULL parameters
};

// FindCryptechDigest: the digest libhal numbers `id`, or nullptr.
const CryptechDigest* FindCryptechDigest(std::uint32_t id);

class CryptechHash {
 public:
  // Start begins a hash of `digest`, or an HMAC under `hmac_key` when it is
  // not empty. CKR_FUNCTION_FAILED when OpenSSL fails.
  static Result<std::unique_ptr<CryptechHash>> Start(const CryptechDigest& digest,
                                                     ByteView hmac_key);
  ~CryptechHash();

  Status Update(ByteView data);
  // Finish returns exactly the digest (or MAC); the computation ends.
  Result<SecureBytes> Finish();

  const CryptechDigest& digest() const { return digest_; }

 private:
  explicit CryptechHash(const CryptechDigest& digest) : digest_(digest) {}

  const CryptechDigest& digest_;
  EVP_MD_CTX* md_ = nullptr;
  EVP_MAC_CTX* mac_ = nullptr;
};

}  // namespace signet::daemon

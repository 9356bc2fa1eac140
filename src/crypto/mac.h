// Message authentication codes behind the PKCS#11 MAC mechanisms: HMAC
// (RFC 2104) over the hashes of base/mechanism_table.h's kDigestTable
// (CKM_SHA256_HMAC ...), AES-CMAC and triple-DES CMAC (NIST SP 800-38B,
// CKM_AES_CMAC, CKM_DES3_CMAC), all through OpenSSL's EVP_MAC. MacStream is one computation fed in
// pieces (multi-part C_SignUpdate); Mac is the one-shot form built on it. The EVP_MAC algorithms
// are fetched once per process; a MacStream is one caller's (move-only, not thread-safe); Mac is
// safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/mechanism_table.h"
#include "base/secure_bytes.h"
#include "crypto/multi_part.h"
#include "crypto/ossl_ptr.h"
#include "signet/result.hpp"

namespace signet::crypto {

// MacKind: the MAC construction.
// kCmac is AES-CMAC, kDes3Cmac triple-DES CMAC.
enum class MacKind : std::uint8_t { kHmac, kCmac, kDes3Cmac };

// MacAlg: a MAC construction and, for HMAC, its hash (kDigestTable's
// OpenSSL name is what EVP_MAC is given). CMAC takes its cipher from the
// key's length: AES-128/192/256-CBC, or for triple DES DES-EDE-CBC (two
// keys, 16 bytes) and DES-EDE3-CBC (three keys, 24 bytes).
struct MacAlg {
  MacKind kind = MacKind::kHmac;
  DigestAlg digest = DigestAlg::kNone;
};

// MacSize returns the full output length of `alg` in bytes: the hash's size
// for HMAC, 16 for AES-CMAC, 8 for triple-DES CMAC.
std::size_t MacSize(const MacAlg& alg);

// MacStream: one MAC computation. Start keys it, Update feeds data in any
// number of pieces, Finish returns the full-length MAC once (a caller that
// wants a shorter one, the *_GENERAL mechanisms, truncates). Move-only; not
// thread-safe. The key is copied into OpenSSL's context, which wipes it
// when freed.
class MacStream {
 public:
  // Start begins a MAC under `key`. CKR_KEY_SIZE_RANGE for an empty HMAC
  // key, an AES-CMAC key that is not 16, 24 or 32 bytes or a triple-DES
  // one that is not 16 or 24; CKR_MECHANISM_INVALID
  // for an HMAC without a hash.
  [[nodiscard]] static Result<MacStream> Start(const MacAlg& alg, ByteView key);

  // Update adds `data` to the MAC. CKR_OPERATION_NOT_INITIALIZED after
  // Finish.
  [[nodiscard]] Status Update(ByteView data);

  // Finish returns the full-length MAC and ends the computation (a second
  // call answers CKR_OPERATION_NOT_INITIALIZED).
  [[nodiscard]] Result<SecureBytes> Finish();

  // size is the length Finish returns.
  std::size_t size() const { return size_; }

 private:
  MacStream(EvpMacCtxPtr ctx, std::size_t size) : ctx_(std::move(ctx)), size_(size) {}

  EvpMacCtxPtr ctx_;
  std::size_t size_ = 0;
};

// AsMultiPart gives a MacStream the multi-part shape the daemon keeps per
// session (crypto/multi_part.h): Update releases nothing, Finish returns
// the full-length MAC.
std::unique_ptr<MultiPart> AsMultiPart(MacStream stream);

// Mac computes the full-length MAC of `data` under `key` in one call
// (MacStream's errors).
[[nodiscard]] Result<SecureBytes> Mac(const MacAlg& alg, ByteView key, ByteView data);

}  // namespace signet::crypto

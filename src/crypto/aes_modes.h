// Block-cipher modes behind the PKCS#11 cipher and key-wrap mechanisms: for
// AES, ECB, CBC, CBC with PKCS#7 padding (CKM_AES_CBC_PAD), CTR with a
// counter that must not wrap (CKM_AES_CTR); for triple and single DES
// (CKM_DES3_ECB ... CKM_DES_CBC_PAD) the same ECB and CBC modes over their
// 8-byte block, one implementation for every cipher; and AES key wrap without padding
// (RFC 3394, CKM_AES_KEY_WRAP) and with PKCS#7 padding first
// (CKM_AES_KEY_WRAP_PAD, PKCS#11 v2.40 section 2.14.3). AES-GCM and
// RFC 5649's key wrap with padding are in symmetric.h.
// Ciphers are fetched once per process, contexts are per call (or per
// multi-part operation): every function is safe to call from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/secure_bytes.h"
#include "crypto/multi_part.h"
#include "signet/result.hpp"

namespace signet::crypto {

inline constexpr std::size_t kAesBlockSize = 16;
inline constexpr std::size_t kDesBlockSize = 8;

// BlockCipher: the cipher under a mode. kAes: 16/24/32-byte keys. kDes:
// triple DES (EDE), a 16-byte two-key (CKK_DES2) or 24-byte three-key
// (CKK_DES3) key, or single DES, an 8-byte key (CKK_DES), only once OpenSSL's
// legacy provider is loaded (legacy_provider.h); DES parity bits are
// ignored, as DES itself ignores them.
enum class BlockCipher : std::uint8_t { kAes, kDes };

// BlockMode: the mode (AesMode, its name from when AES was the only cipher).
// DES takes kEcb, kCbc and kCbcPad.
enum class BlockMode : std::uint8_t { kEcb, kCbc, kCbcPad, kCtr };
using AesMode = BlockMode;

// BlockSize returns the cipher's block size in bytes.
std::size_t BlockSize(BlockCipher cipher);

// AesModeParams: `iv` is the 16-byte IV (CBC modes) or initial counter
// block (CTR), empty for ECB. For CTR, `counter_bits` (1..128) is how many
// low-order bits of the block count: an input that needs more counter
// values than those bits hold from the initial value is refused rather
// than wrapped (a wrapped counter repeats the key stream).
struct AesModeParams {
  ByteView iv;
  std::size_t counter_bits = 128;
};

// AesEncrypt encrypts `data` under a 16/24/32-byte `key`.
// CKR_KEY_SIZE_RANGE for another key size; CKR_MECHANISM_PARAM_INVALID for
// an IV that is not 16 bytes (empty for ECB) or CTR counter_bits outside
// 1..128; CKR_DATA_LEN_RANGE for ECB/CBC input that is not whole blocks or
// CTR input that would wrap the counter.
Result<Bytes> AesEncrypt(AesMode mode, ByteView key, const AesModeParams& params, ByteView data);

// AesDecrypt reverses AesEncrypt. CKR_ENCRYPTED_DATA_LEN_RANGE for ECB /
// CBC / CBC_PAD input that is not whole blocks (or empty, for CBC_PAD);
// CKR_ENCRYPTED_DATA_INVALID for CBC_PAD padding that does not check out.
// The plaintext is SecureBytes: it may be key material.
Result<SecureBytes> AesDecrypt(AesMode mode, ByteView key, const AesModeParams& params,
                               ByteView data);

// StartAes begins a multi-part AesEncrypt (encrypt) or AesDecrypt, with
// the same checks, codes and output: the key and IV are checked here, the
// lengths as the parts arrive and at Finish (a CTR counter that would
// wrap: CKR_DATA_LEN_RANGE at the Update that would wrap it). `params.iv`
// is copied.
Result<std::unique_ptr<MultiPart>> StartAes(AesMode mode, ByteView key, const AesModeParams& params,
                                            bool encrypt);

// BlockEncrypt / BlockDecrypt / StartBlockCipher: AesEncrypt, AesDecrypt
// and StartAes for `cipher`, with the same codes; the IV is one block
// (8 bytes for DES), a DES key 8, 16 or 24 bytes (CKR_KEY_SIZE_RANGE
// otherwise), and DES has no CTR mode (CKR_MECHANISM_INVALID); single DES
// without the legacy provider loaded is CKR_MECHANISM_INVALID.
Result<Bytes> BlockEncrypt(BlockCipher cipher, BlockMode mode, ByteView key,
                           const AesModeParams& params, ByteView data);
Result<SecureBytes> BlockDecrypt(BlockCipher cipher, BlockMode mode, ByteView key,
                                 const AesModeParams& params, ByteView data);
Result<std::unique_ptr<MultiPart>> StartBlockCipher(BlockCipher cipher, BlockMode mode,
                                                    ByteView key, const AesModeParams& params,
                                                    bool encrypt);

// AesKeyWrap wraps `plaintext` under `kek` per RFC 3394 with the 8-byte
// initial value `iv` (empty: RFC 3394's default, eight bytes of 0xa6). With
// `pkcs7_pad`, the plaintext is first padded to a multiple of 8 bytes
// (1..8 bytes of value n) - CKM_AES_KEY_WRAP_PAD. Without it the plaintext
// must be at least 16 bytes and a multiple of 8 (CKR_KEY_SIZE_RANGE).
// CKR_WRAPPING_KEY_SIZE_RANGE for a KEK that is not 16/24/32 bytes;
// CKR_MECHANISM_PARAM_INVALID for an IV that is not 8 bytes.
Result<Bytes> AesKeyWrap(ByteView kek, ByteView iv, bool pkcs7_pad, ByteView plaintext);

// AesKeyUnwrap reverses AesKeyWrap: CKR_WRAPPED_KEY_LEN_RANGE for a length
// that cannot be a wrapped key, CKR_WRAPPED_KEY_INVALID when the integrity
// check or the padding fails.
Result<SecureBytes> AesKeyUnwrap(ByteView kek, ByteView iv, bool pkcs7_pad, ByteView wrapped);

}  // namespace signet::crypto

// PKCS#11's CKA_CHECK_VALUE of secret keys, so applications can tell keys
// apart without seeing them: AES keys (v2.40 §2.8.2, 3.0 §6.7.2: the first
// three bytes of the ECB encryption of one block of zero bytes under the
// key) and generic secrets. Pure functions: safe from any thread.
#pragma once

#include "base/secure_bytes.h"
#include "signet/result.hpp"

namespace signet::crypto {

// AesKeyCheckValue returns the 3-byte check value of `key` (16, 24 or 32
// bytes). CKR_KEY_SIZE_RANGE for other lengths, CKR_FUNCTION_FAILED when
// OpenSSL fails.
Result<Bytes> AesKeyCheckValue(ByteView key);

// GenericSecretCheckValue returns the 3-byte check value of a generic secret
// or HMAC key (v2.40 "Generic secret key objects": the first three bytes of
// the SHA-1 hash of the value). CKR_FUNCTION_FAILED when OpenSSL fails.
Result<Bytes> GenericSecretCheckValue(ByteView key);

}  // namespace signet::crypto

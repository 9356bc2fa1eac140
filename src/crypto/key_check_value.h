// AesKeyCheckValue: PKCS#11's CKA_CHECK_VALUE of an AES key (v2.40 §2.8.2,
// 3.0 §6.7.2: the first three bytes of the ECB encryption of one block of
// zero bytes under the key), so applications can tell keys apart without
// seeing them. Pure function: safe from any thread.
#pragma once

#include "base/secure_bytes.h"
#include "signet/result.hpp"

namespace signet::crypto {

// AesKeyCheckValue returns the 3-byte check value of `key` (16, 24 or 32
// bytes). CKR_KEY_SIZE_RANGE for other lengths, CKR_FUNCTION_FAILED when
// OpenSSL fails.
Result<Bytes> AesKeyCheckValue(ByteView key);

}  // namespace signet::crypto

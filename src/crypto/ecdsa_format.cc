// Conversion between the two ECDSA signature encodings: X9.62 DER
// (SEQUENCE { r INTEGER, s INTEGER }, what OpenSSL and X.509 use) and raw
// r||s with fixed-width halves (PKCS#11 CKM_ECDSA, section 2.3.1).
#include "crypto/key_types.h"
#include "crypto/ossl_error.h"
#include "crypto/sign.h"

namespace signet::crypto {

std::size_t EcFieldBytes(KeyType type) { return internal::InfoFor(type).field_bytes; }

Result<Bytes> EcdsaDerToRaw(ByteView der, std::size_t field_bytes) {
  const unsigned char* cursor = der.data();
  EcdsaSigPtr sig(d2i_ECDSA_SIG(nullptr, &cursor, static_cast<long>(der.size())));
  if (!sig || cursor != der.data() + der.size()) {
    return internal::OsslError(CKR_SIGNATURE_INVALID, "malformed DER ECDSA signature");
  }
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  ECDSA_SIG_get0(sig.get(), &r, &s);
  Bytes out(2 * field_bytes);
  int width = static_cast<int>(field_bytes);
  if (BN_bn2binpad(r, out.data(), width) < 0 ||
      BN_bn2binpad(s, out.data() + field_bytes, width) < 0) {
    return MakeError(CKR_SIGNATURE_INVALID, "ECDSA signature value wider than the curve");
  }
  return out;
}

Result<Bytes> EcdsaRawToDer(ByteView raw) {
  if (raw.empty() || raw.size() % 2 != 0) {
    return MakeError(CKR_SIGNATURE_LEN_RANGE, "raw ECDSA signature must be r||s of equal halves");
  }
  int half = static_cast<int>(raw.size() / 2);
  BignumPtr r(BN_bin2bn(raw.data(), half, nullptr));
  BignumPtr s(BN_bin2bn(raw.data() + half, half, nullptr));
  EcdsaSigPtr sig(ECDSA_SIG_new());
  if (!r || !s || !sig || !ECDSA_SIG_set0(sig.get(), r.get(), s.get())) {
    return internal::OsslError(CKR_HOST_MEMORY, "ECDSA_SIG allocation failed");
  }
  r.release();  // owned by sig since ECDSA_SIG_set0 succeeded
  s.release();
  unsigned char* der = nullptr;
  int len = i2d_ECDSA_SIG(sig.get(), &der);
  if (len <= 0) return internal::OsslError(CKR_FUNCTION_FAILED, "ECDSA DER encoding failed");
  OsslBytesPtr hold(der);
  return Bytes(der, der + len);
}

}  // namespace signet::crypto

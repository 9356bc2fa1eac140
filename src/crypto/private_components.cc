#include "crypto/private_components.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include "crypto/key_types.h"
#include "crypto/ossl_error.h"
#include "crypto/ossl_ptr.h"

namespace signet::crypto {
namespace {

const char* RsaParamName(PrivateComponent which) {
  switch (which) {
    case PrivateComponent::kRsaPrivateExponent:
      return OSSL_PKEY_PARAM_RSA_D;
    case PrivateComponent::kRsaPrime1:
      return OSSL_PKEY_PARAM_RSA_FACTOR1;
    case PrivateComponent::kRsaPrime2:
      return OSSL_PKEY_PARAM_RSA_FACTOR2;
    case PrivateComponent::kRsaExponent1:
      return OSSL_PKEY_PARAM_RSA_EXPONENT1;
    case PrivateComponent::kRsaExponent2:
      return OSSL_PKEY_PARAM_RSA_EXPONENT2;
    case PrivateComponent::kRsaCoefficient:
      return OSSL_PKEY_PARAM_RSA_COEFFICIENT1;
    case PrivateComponent::kEcValue:
      break;
  }
  return nullptr;
}

// BignumParam reads a BIGNUM parameter as `width` big-endian bytes (0: its
// own length).
Result<SecureBytes> BignumParam(EVP_PKEY* pkey, const char* name, int width) {
  BIGNUM* raw = nullptr;
  if (EVP_PKEY_get_bn_param(pkey, name, &raw) != 1 || raw == nullptr) {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT, std::string("key has no ") + name);
  }
  BignumPtr bn(raw);
  const int len = width > 0 ? width : BN_num_bytes(bn.get());
  SecureBytes out(static_cast<std::size_t>(len));
  if (BN_bn2binpad(bn.get(), out.data(), len) != len) {
    return internal::OsslError(CKR_FUNCTION_FAILED, "BN_bn2binpad");
  }
  return out;
}

}  // namespace

Result<SecureBytes> ExportPrivateComponent(const PrivateKey& key, PrivateComponent which) {
  EVP_PKEY* pkey = key.get0_pkey();
  const KeyType type = key.spec().type;
  if (which != PrivateComponent::kEcValue) {
    if (type != KeyType::kRsa) return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not an RSA key");
    return BignumParam(pkey, RsaParamName(which), 0);
  }
  if (type == KeyType::kRsa) return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not an EC key");
  if (internal::IsRawKey(type)) {
    std::size_t len = 0;
    if (EVP_PKEY_get_raw_private_key(pkey, nullptr, &len) != 1) {
      return internal::OsslError(CKR_FUNCTION_FAILED, "EVP_PKEY_get_raw_private_key");
    }
    SecureBytes out(len);
    if (EVP_PKEY_get_raw_private_key(pkey, out.data(), &len) != 1) {
      return internal::OsslError(CKR_FUNCTION_FAILED, "EVP_PKEY_get_raw_private_key");
    }
    out.resize(len);
    return out;
  }
  // DH's x is a short exponent (dh.h): no padding to the prime's length.
  if (IsDh(type)) return BignumParam(pkey, OSSL_PKEY_PARAM_PRIV_KEY, 0);
  return BignumParam(pkey, OSSL_PKEY_PARAM_PRIV_KEY, (EVP_PKEY_get_bits(pkey) + 7) / 8);
}

}  // namespace signet::crypto

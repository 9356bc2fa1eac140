#include "bench/token_mechanisms.h"

namespace signet::bench {

Result<TokenMechanism> TokenMechanismFor(const SignAlgorithm& algo) {
  crypto::SignParams verify = algo.params;
  switch (algo.params.scheme) {
    case crypto::SignScheme::kRsaPkcs1:
      verify.prehashed = false;  // CKM_SHA256_RSA_PKCS hashes the message itself
      verify.digest = crypto::DigestAlg::kSha256;
      return TokenMechanism{CKM_SHA256_RSA_PKCS, CKM_RSA_PKCS_KEY_PAIR_GEN, CKK_RSA, verify, 32};
    case crypto::SignScheme::kEcdsa:
      verify.ecdsa_format = crypto::EcdsaFormat::kRaw;
      return TokenMechanism{CKM_ECDSA, CKM_EC_KEY_PAIR_GEN, CKK_EC, verify,
                            crypto::DigestSize(algo.params.digest)};
    case crypto::SignScheme::kEd25519:
      return TokenMechanism{CKM_EDDSA, CKM_EC_EDWARDS_KEY_PAIR_GEN, CKK_EC_EDWARDS, verify, 32};
    case crypto::SignScheme::kRsaPss:
      break;
  }
  return MakeError(CKR_MECHANISM_INVALID, "no token mechanism for " + std::string(algo.id));
}

std::string TokenKeyLabel(const SignAlgorithm& algo) {
  return "signet-bench-" + std::string(algo.id);
}

Result<crypto::PublicKey> PublicKeyFromAttributes(ByteView modulus,
                                                  ByteView exponent,
                                                  ByteView ec_params,
                                                  ByteView ec_point) {
  if (!modulus.empty() && !exponent.empty()) {
    return crypto::PublicKey::FromRsaComponents(modulus, exponent);
  }
  if (!ec_params.empty() && !ec_point.empty()) {
    return crypto::PublicKey::FromEcPoint(ec_params, ec_point);
  }
  return MakeError(CKR_KEY_TYPE_INCONSISTENT, "the key object has no public key attributes");
}

}  // namespace signet::bench

#include "bench/token_mechanisms.h"

#include "core/mechanisms.h"

namespace signet::bench {

Result<TokenMechanism> TokenMechanismFor(const SignAlgorithm& algo) {
  CK_MECHANISM_TYPE sign = 0;
  switch (algo.params.scheme) {
    case crypto::SignScheme::kRsaPkcs1:
      sign = CKM_SHA256_RSA_PKCS;
      break;
    case crypto::SignScheme::kEcdsa:
      sign = CKM_ECDSA;
      break;
    case crypto::SignScheme::kEddsa:
      sign = CKM_EDDSA;
      break;
    case crypto::SignScheme::kRsaPss:
      return MakeError(CKR_MECHANISM_INVALID, "no token mechanism for " + std::string(algo.id));
  }
  // Everything else about the mechanism is in the mechanism table.
  const MechanismRow* row = FindMechanismRow(sign);
  const MechanismRow* keygen = row != nullptr ? KeyPairGenFor(row->key_type) : nullptr;
  if (keygen == nullptr) {
    return MakeError(CKR_MECHANISM_INVALID, "mechanism table lacks " + std::string(algo.id));
  }
  SIGNET_ASSIGN_OR_RETURN(crypto::SignParams verify, core::SignParamsFor(*row, Mechanism{sign}));
  const std::size_t input_size = SignsDigest(*row) ? crypto::DigestSize(algo.params.digest) : 32;
  return TokenMechanism{sign, keygen->type, row->key_type, verify, input_size};
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

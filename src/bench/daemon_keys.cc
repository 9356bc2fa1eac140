#include "bench/daemon_keys.h"

#include <array>

namespace signet::bench {

std::pair<client::Template, client::Template> SigningKeyTemplates(const SignAlgorithm& algo,
                                                                  const TokenMechanism& mechanism,
                                                                  const std::string& label) {
  using client::BoolAttribute;
  using client::StringAttribute;
  // CKA_ID pairs the halves for clients that match keys by it (OpenSSH's
  // agent signs with the private key whose CKA_ID is the public key's).
  client::Template pub = {BoolAttribute(CKA_TOKEN, true), StringAttribute(CKA_LABEL, label),
                          StringAttribute(CKA_ID, label), BoolAttribute(CKA_VERIFY, true)};
  client::Template priv = {BoolAttribute(CKA_TOKEN, true), StringAttribute(CKA_LABEL, label),
                           StringAttribute(CKA_ID, label), BoolAttribute(CKA_SIGN, true),
                           BoolAttribute(CKA_PRIVATE, true), BoolAttribute(CKA_SENSITIVE, true)};
  if (mechanism.key_type == CKK_RSA) {
    constexpr std::uint8_t kF4[] = {1, 0, 1};
    pub.push_back(client::UlongAttribute(CKA_MODULUS_BITS, algo.spec.rsa_bits));
    pub.push_back(client::BytesAttribute(CKA_PUBLIC_EXPONENT, kF4));
  } else {
    pub.push_back(client::BytesAttribute(CKA_EC_PARAMS, crypto::EcParamsDer(algo.spec.type)));
  }
  return {std::move(pub), std::move(priv)};
}

Result<crypto::PublicKey> ReadTokenPublicKey(client::Client& client, client::Handle session,
                                             client::Handle key) {
  constexpr std::array<CK_ATTRIBUTE_TYPE, 4> kTypes = {CKA_MODULUS, CKA_PUBLIC_EXPONENT,
                                                       CKA_EC_PARAMS, CKA_EC_POINT};
  SIGNET_ASSIGN_OR_RETURN(auto values, client.GetAttributeValue(session, key, kTypes));
  if (values.size() != kTypes.size()) return MakeError(CKR_DEVICE_ERROR, "short attribute reply");
  auto value = [&](int i) {
    return values[i].rv == CKR_OK ? client::ByteView(values[i].value) : client::ByteView();
  };
  return PublicKeyFromAttributes(value(0), value(1), value(2), value(3));
}

}  // namespace signet::bench

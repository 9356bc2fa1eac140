#include "key_helpers.h"

#include <array>

namespace signet::e2e {

using client::BoolAttribute;
using client::BytesAttribute;
using client::StringAttribute;
using client::UlongAttribute;

client::Bytes ToBytes(const std::string& text) { return client::Bytes(text.begin(), text.end()); }

Result<client::KeyPair> GenerateKeyPair(UserSession& user, const std::string& spec_text,
                                        const std::string& label, bool token) {
  SIGNET_ASSIGN_OR_RETURN(crypto::KeySpec spec, crypto::ParseKeySpec(spec_text));
  client::Mechanism mechanism;
  client::Template pub = {BoolAttribute(CKA_TOKEN, token), StringAttribute(CKA_LABEL, label),
                          BoolAttribute(CKA_VERIFY, true)};
  client::Template priv = {BoolAttribute(CKA_TOKEN, token), StringAttribute(CKA_LABEL, label),
                           BoolAttribute(CKA_SIGN, true), BoolAttribute(CKA_PRIVATE, true),
                           BoolAttribute(CKA_SENSITIVE, true)};
  if (spec.type == crypto::KeyType::kRsa) {
    mechanism.type = CKM_RSA_PKCS_KEY_PAIR_GEN;
    constexpr std::uint8_t kF4[] = {1, 0, 1};
    pub.push_back(UlongAttribute(CKA_MODULUS_BITS, spec.rsa_bits));
    pub.push_back(BytesAttribute(CKA_PUBLIC_EXPONENT, kF4));
  } else {
    mechanism.type = spec.type == crypto::KeyType::kEd25519 ? CKM_EC_EDWARDS_KEY_PAIR_GEN
                                                            : CKM_EC_KEY_PAIR_GEN;
    pub.push_back(BytesAttribute(CKA_EC_PARAMS, crypto::EcParamsDer(spec.type)));
  }
  return user.client->GenerateKeyPair(user.session, mechanism, pub, priv);
}

Result<std::vector<client::Handle>> FindByLabel(UserSession& user, const std::string& label,
                                                CK_OBJECT_CLASS object_class) {
  return user.client->FindObjects(
      user.session, {StringAttribute(CKA_LABEL, label), UlongAttribute(CKA_CLASS, object_class)});
}

Result<crypto::PublicKey> ReadPublicKey(UserSession& user, client::Handle public_key) {
  constexpr std::array<CK_ATTRIBUTE_TYPE, 4> kTypes = {CKA_MODULUS, CKA_PUBLIC_EXPONENT,
                                                       CKA_EC_PARAMS, CKA_EC_POINT};
  SIGNET_ASSIGN_OR_RETURN(auto values,
                          user.client->GetAttributeValue(user.session, public_key, kTypes));
  if (values.size() != kTypes.size()) return MakeError(CKR_DEVICE_ERROR, "short attribute reply");
  if (values[0].rv == CKR_OK && values[1].rv == CKR_OK) {
    return crypto::PublicKey::FromRsaComponents(values[0].value, values[1].value);
  }
  if (values[2].rv == CKR_OK && values[3].rv == CKR_OK) {
    return crypto::PublicKey::FromEcPoint(values[2].value, values[3].value);
  }
  return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not a public key object");
}

}  // namespace signet::e2e

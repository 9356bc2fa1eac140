#include "cli/key_objects.h"

#include <string.h>

#include <array>
#include <utility>

#include "base/secure_bytes.h"

namespace signet::cli {
namespace {

using client::Attribute;
using client::BoolAttribute;
using client::BytesAttribute;
using client::StringAttribute;
using client::UlongAttribute;

// kRsaPublicExponent: 65537, the only exponent signet generates.
constexpr std::uint8_t kRsaPublicExponent[] = {0x01, 0x00, 0x01};

CK_MECHANISM_TYPE KeygenMechanism(crypto::KeyType type) {
  if (type == crypto::KeyType::kRsa) return CKM_RSA_PKCS_KEY_PAIR_GEN;
  if (crypto::IsEdwards(type)) return CKM_EC_EDWARDS_KEY_PAIR_GEN;
  if (crypto::IsMontgomery(type)) return CKM_EC_MONTGOMERY_KEY_PAIR_GEN;
  return CKM_EC_KEY_PAIR_GEN;
}

// AttributeMap: the answer of GetAttributeValue keyed by type; attributes
// the daemon did not give are absent.
using AttributeMap = std::map<CK_ATTRIBUTE_TYPE, client::Bytes>;

Result<AttributeMap> ReadAttributes(Connection& connection, client::Handle object,
                                    std::span<const CK_ATTRIBUTE_TYPE> types) {
  SIGNET_ASSIGN_OR_RETURN(auto values,
                          connection.client->GetAttributeValue(connection.session, object, types));
  AttributeMap map;
  for (client::AttributeValue& value : values) {
    if (value.rv == CKR_OK) map.emplace(value.type, std::move(value.value));
  }
  return map;
}

std::string DescribeKeyType(const AttributeMap& attributes) {
  auto type_it = attributes.find(CKA_KEY_TYPE);
  if (type_it == attributes.end()) return "?";
  CK_ULONG key_type = UlongFromBytes(type_it->second).value_or(~CK_ULONG{0});
  if (key_type == CKK_RSA) {
    auto bits = attributes.find(CKA_MODULUS_BITS);
    if (bits != attributes.end()) {
      return "rsa:" + std::to_string(UlongFromBytes(bits->second).value_or(0));
    }
    auto modulus = attributes.find(CKA_MODULUS);
    if (modulus != attributes.end()) return "rsa:" + std::to_string(modulus->second.size() * 8);
    return "rsa";
  }
  if (key_type == CKK_EC || key_type == CKK_EC_EDWARDS || key_type == CKK_EC_MONTGOMERY) {
    auto params = attributes.find(CKA_EC_PARAMS);
    if (params == attributes.end()) {
      return key_type == CKK_EC ? "ec" : key_type == CKK_EC_EDWARDS ? "ed25519" : "montgomery";
    }
    Result<crypto::KeyType> curve = crypto::KeyTypeFromEcParams(params->second);
    return curve.ok() ? crypto::KeySpecName({*curve, 0}) : "ec:?";
  }
  const auto length = attributes.find(CKA_VALUE_LEN);
  const std::string bits =
      length == attributes.end()
          ? ""
          : ":" + std::to_string(UlongFromBytes(length->second).value_or(0) * 8);
  if (key_type == CKK_AES) return "aes" + bits;
  if (key_type == CKK_GENERIC_SECRET) return "generic" + bits;
  if (key_type == CKK_DES3) return "des3";
  if (key_type == CKK_DES) return "des";
  if (key_type == CKK_DH) return "dh";
  return "type " + std::to_string(key_type);
}

// KeyBits: the key's size in bits from what DescribeKeyType read (the
// modulus, the secret's length, the curve named in the type); 0 unknown.
CK_ULONG KeyBits(const AttributeMap& attributes, const std::string& key_type) {
  if (auto bits = attributes.find(CKA_MODULUS_BITS); bits != attributes.end()) {
    return UlongFromBytes(bits->second).value_or(0);
  }
  if (auto modulus = attributes.find(CKA_MODULUS); modulus != attributes.end()) {
    return modulus->second.size() * 8;
  }
  if (auto length = attributes.find(CKA_VALUE_LEN); length != attributes.end()) {
    return UlongFromBytes(length->second).value_or(0) * 8;
  }
  static constexpr std::pair<const char*, CK_ULONG> kCurveBits[] = {
      {"ec:p256", 256}, {"ec:p384", 384}, {"ec:p521", 521}, {"ec:secp256k1", 256}, {"ed25519", 256},
      {"ed448", 456},   {"x25519", 256},  {"x448", 448},    {"des3", 192},         {"des", 64}};
  for (const auto& [name, bits] : kCurveBits) {
    if (key_type == name) return bits;
  }
  return 0;
}

// kUsageAttributes: the CKA_ flags `list` shows as usage, with their names.
constexpr std::pair<CK_ATTRIBUTE_TYPE, const char*> kUsageAttributes[] = {
    {CKA_SIGN, "sign"}, {CKA_VERIFY, "verify"}, {CKA_ENCRYPT, "encrypt"}, {CKA_DECRYPT, "decrypt"},
    {CKA_WRAP, "wrap"}, {CKA_UNWRAP, "unwrap"}, {CKA_DERIVE, "derive"}};

// Flag: a boolean attribute when the object has it.
std::optional<bool> Flag(const AttributeMap& attributes, CK_ATTRIBUTE_TYPE type) {
  auto it = attributes.find(type);
  if (it == attributes.end()) return std::nullopt;
  return BoolFromBytes(it->second);
}

// KeyTypeOf: the CKA_KEY_TYPE of a key with `spec`.
CK_KEY_TYPE KeyTypeOf(const crypto::KeySpec& spec) {
  return spec.type == crypto::KeyType::kRsa ? CKK_RSA
         : crypto::IsEdwards(spec.type)     ? CKK_EC_EDWARDS
         : crypto::IsMontgomery(spec.type)  ? CKK_EC_MONTGOMERY
                                            : CKK_EC;
}

std::string DescribeClass(const AttributeMap& attributes) {
  auto it = attributes.find(CKA_CLASS);
  CK_ULONG object_class =
      it == attributes.end() ? ~CK_ULONG{0} : UlongFromBytes(it->second).value_or(0);
  if (object_class == CKO_PRIVATE_KEY) return "private";
  if (object_class == CKO_PUBLIC_KEY) return "public";
  if (object_class == CKO_SECRET_KEY) return "secret";
  return "other";
}

}  // namespace

KeygenRequest MakeKeygenRequest(const crypto::KeySpec& spec, const std::string& label,
                                bool exportable) {
  KeygenRequest request;
  request.mechanism.type = KeygenMechanism(spec.type);
  client::ByteView id = AsBytes(label);
  request.public_template = {
      BoolAttribute(CKA_TOKEN, true),    StringAttribute(CKA_LABEL, label),
      BytesAttribute(CKA_ID, id),        BoolAttribute(CKA_VERIFY, true),
      BoolAttribute(CKA_PRIVATE, false),
  };
  if (spec.type == crypto::KeyType::kRsa) {
    request.public_template.push_back(UlongAttribute(CKA_MODULUS_BITS, spec.rsa_bits));
    request.public_template.push_back(BytesAttribute(CKA_PUBLIC_EXPONENT, kRsaPublicExponent));
  } else {
    request.public_template.push_back(
        BytesAttribute(CKA_EC_PARAMS, crypto::EcParamsDer(spec.type)));
  }
  // An X25519 / X448 key agrees on secrets (CKM_ECDH1_DERIVE) and cannot
  // sign: its private half derives, and neither half signs or verifies
  // (said explicitly: the daemon's defaults for an unnamed flag are true).
  const bool agreement = crypto::IsMontgomery(spec.type);
  if (agreement) {
    for (Attribute& a : request.public_template) {
      if (a.type == CKA_VERIFY) a = BoolAttribute(CKA_VERIFY, false);
    }
  }
  request.private_template = {
      BoolAttribute(CKA_TOKEN, true),
      StringAttribute(CKA_LABEL, label),
      BytesAttribute(CKA_ID, id),
      BoolAttribute(CKA_SIGN, !agreement),
      BoolAttribute(CKA_PRIVATE, true),
      BoolAttribute(CKA_SENSITIVE, true),
      BoolAttribute(CKA_EXTRACTABLE, exportable),
  };
  if (agreement) request.private_template.push_back(BoolAttribute(CKA_DERIVE, true));
  if (exportable) request.private_template.push_back(BoolAttribute(CKA_WRAP_WITH_TRUSTED, true));
  return request;
}

ImportRequest::~ImportRequest() {
  for (Attribute& a : private_template) {
    if (!a.value.empty()) explicit_bzero(a.value.data(), a.value.size());  // never NULL
  }
}

Result<client::Template> PublicKeyObject(const crypto::PublicKey& key, const std::string& label) {
  const crypto::KeySpec spec = key.spec();
  // A generated pair's attributes, minus what only generation takes.
  client::Template object;
  for (const Attribute& a : MakeKeygenRequest(spec, label).public_template) {
    if (a.type != CKA_MODULUS_BITS && a.type != CKA_PUBLIC_EXPONENT && a.type != CKA_EC_PARAMS) {
      object.push_back(a);
    }
  }
  object.push_back(UlongAttribute(CKA_KEY_TYPE, KeyTypeOf(spec)));
  object.push_back(UlongAttribute(CKA_CLASS, CKO_PUBLIC_KEY));
  if (spec.type == crypto::KeyType::kRsa) {
    SIGNET_ASSIGN_OR_RETURN(client::Bytes modulus, key.RsaModulus());
    SIGNET_ASSIGN_OR_RETURN(client::Bytes exponent, key.RsaPublicExponent());
    object.push_back(BytesAttribute(CKA_MODULUS, modulus));
    object.push_back(BytesAttribute(CKA_PUBLIC_EXPONENT, exponent));
  } else {
    SIGNET_ASSIGN_OR_RETURN(client::Bytes point, key.EcPoint());
    // CKA_EC_POINT is the point in a DER OCTET STRING (at most 133 bytes).
    client::Bytes wrapped = {0x04};
    if (point.size() >= 0x80) wrapped.push_back(0x81);
    wrapped.push_back(static_cast<std::uint8_t>(point.size()));
    wrapped.insert(wrapped.end(), point.begin(), point.end());
    object.push_back(BytesAttribute(CKA_EC_PARAMS, crypto::EcParamsDer(spec.type)));
    object.push_back(BytesAttribute(CKA_EC_POINT, wrapped));
  }
  return object;
}

Result<ImportRequest> MakeImportRequest(const crypto::PrivateKey& key, const SecureBytes& pkcs8,
                                        const std::string& label) {
  const crypto::KeySpec spec = key.spec();
  ImportRequest request;
  request.private_template = MakeKeygenRequest(spec, label).private_template;
  request.private_template.push_back(UlongAttribute(CKA_KEY_TYPE, KeyTypeOf(spec)));
  request.private_template.push_back(UlongAttribute(CKA_CLASS, CKO_PRIVATE_KEY));
  request.private_template.push_back(BytesAttribute(CKA_VALUE, pkcs8));
  SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey pub, key.Public());
  SIGNET_ASSIGN_OR_RETURN(request.public_template, PublicKeyObject(pub, label));
  return request;
}

Result<std::vector<client::Handle>> FindKeysByLabel(Connection& connection,
                                                    const std::string& label) {
  return connection.client->FindObjects(connection.session,
                                        {StringAttribute(CKA_LABEL, label)});
}

Result<client::Handle> FindKey(Connection& connection, const std::string& label,
                               CK_OBJECT_CLASS object_class) {
  SIGNET_ASSIGN_OR_RETURN(
      std::vector<client::Handle> found,
      connection.client->FindObjects(connection.session, {StringAttribute(CKA_LABEL, label),
                                                          UlongAttribute(CKA_CLASS, object_class)}));
  const char* what = object_class == CKO_PRIVATE_KEY ? "private key" : "public key";
  if (found.empty()) {
    return MakeError(CKR_OBJECT_HANDLE_INVALID,
                     std::string("no ") + what + " labelled '" + label + "'");
  }
  if (found.size() > 1) {
    return MakeError(CKR_ARGUMENTS_BAD, std::to_string(found.size()) + " " + what +
                                            "s are labelled '" + label + "'");
  }
  return found.front();
}

Result<crypto::PublicKey> ReadPublicKey(Connection& connection, client::Handle public_key) {
  constexpr std::array<CK_ATTRIBUTE_TYPE, 5> kTypes = {
      CKA_KEY_TYPE, CKA_MODULUS, CKA_PUBLIC_EXPONENT, CKA_EC_PARAMS, CKA_EC_POINT};
  SIGNET_ASSIGN_OR_RETURN(AttributeMap attributes,
                          ReadAttributes(connection, public_key, kTypes));
  if (attributes.count(CKA_MODULUS) && attributes.count(CKA_PUBLIC_EXPONENT)) {
    return crypto::PublicKey::FromRsaComponents(attributes[CKA_MODULUS],
                                               attributes[CKA_PUBLIC_EXPONENT]);
  }
  if (attributes.count(CKA_EC_PARAMS) && attributes.count(CKA_EC_POINT)) {
    return crypto::PublicKey::FromEcPoint(attributes[CKA_EC_PARAMS], attributes[CKA_EC_POINT]);
  }
  return MakeError(CKR_KEY_TYPE_INCONSISTENT, "the object is not an RSA, EC or Ed25519 public key");
}

Result<std::vector<KeyListing>> ListKeys(Connection& connection) {
  SIGNET_ASSIGN_OR_RETURN(std::vector<client::Handle> objects,
                          connection.client->FindObjects(connection.session, {}));
  // Public components and flags only: nothing here is sensitive, so the
  // daemon answers each for any key that has it.
  constexpr std::array<CK_ATTRIBUTE_TYPE, 19> kTypes = {CKA_CLASS,
                                                        CKA_LABEL,
                                                        CKA_ID,
                                                        CKA_KEY_TYPE,
                                                        CKA_MODULUS_BITS,
                                                        CKA_MODULUS,
                                                        CKA_EC_PARAMS,
                                                        CKA_VALUE_LEN,
                                                        CKA_SIGN,
                                                        CKA_VERIFY,
                                                        CKA_ENCRYPT,
                                                        CKA_DECRYPT,
                                                        CKA_WRAP,
                                                        CKA_UNWRAP,
                                                        CKA_DERIVE,
                                                        CKA_SENSITIVE,
                                                        CKA_EXTRACTABLE,
                                                        CKA_ALWAYS_SENSITIVE,
                                                        CKA_NEVER_EXTRACTABLE};
  std::vector<KeyListing> listing;
  for (client::Handle object : objects) {
    SIGNET_ASSIGN_OR_RETURN(AttributeMap attributes, ReadAttributes(connection, object, kTypes));
    KeyListing key;
    const client::Bytes& label = attributes[CKA_LABEL];
    key.label.assign(label.begin(), label.end());
    key.id = attributes[CKA_ID];
    key.object_class = DescribeClass(attributes);
    key.key_type = DescribeKeyType(attributes);
    key.bits = KeyBits(attributes, key.key_type);
    for (const auto& [type, name] : kUsageAttributes) {
      if (Flag(attributes, type).value_or(false)) key.usage.push_back(name);
    }
    key.sensitive = Flag(attributes, CKA_SENSITIVE);
    key.extractable = Flag(attributes, CKA_EXTRACTABLE);
    key.always_sensitive = Flag(attributes, CKA_ALWAYS_SENSITIVE);
    key.never_extractable = Flag(attributes, CKA_NEVER_EXTRACTABLE);
    listing.push_back(std::move(key));
  }
  return listing;
}

}  // namespace signet::cli

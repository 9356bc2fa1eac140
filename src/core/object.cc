#include "core/object.h"

#include "crypto/dh.h"
#include "signet/protocol.hpp"

namespace signet::core {

Bytes DerOctetString(ByteView bytes) {
  Bytes out{0x04};
  std::size_t n = bytes.size();
  if (n < 0x80) {
    out.push_back(static_cast<std::uint8_t>(n));
  } else if (n <= 0xff) {
    out.push_back(0x81);
    out.push_back(static_cast<std::uint8_t>(n));
  } else {
    out.push_back(0x82);
    out.push_back(static_cast<std::uint8_t>(n >> 8));
    out.push_back(static_cast<std::uint8_t>(n));
  }
  out.insert(out.end(), bytes.begin(), bytes.end());
  return out;
}

CK_KEY_TYPE PkcsKeyType(crypto::KeyType type) {
  if (type == crypto::KeyType::kRsa) return CKK_RSA;
  if (crypto::IsEdwards(type)) return CKK_EC_EDWARDS;
  if (crypto::IsMontgomery(type)) return CKK_EC_MONTGOMERY;
  if (crypto::IsDh(type)) return CKK_DH;
  return CKK_EC;
}

Status CheckDaemonKeyType(crypto::KeyType type) {
  if (!crypto::IsBenchOnly(type)) return OkStatus();
  return MakeError(CKR_CURVE_NOT_SUPPORTED,
                   crypto::KeySpecName({type, 0}) +
                       " (80-bit security) is for benchmarks only; signetd holds no key on it");
}

Result<AttributeMap> PublicKeyAttributes(const crypto::PublicKey& key) {
  AttributeMap attrs;
  crypto::KeySpec spec = key.spec();
  attrs[CKA_KEY_TYPE] = UlongBytes(PkcsKeyType(spec.type));
  SIGNET_ASSIGN_OR_RETURN(attrs[CKA_PUBLIC_KEY_INFO], key.ToDer());
  if (spec.type == crypto::KeyType::kRsa) {
    SIGNET_ASSIGN_OR_RETURN(Bytes modulus, key.RsaModulus());
    SIGNET_ASSIGN_OR_RETURN(Bytes exponent, key.RsaPublicExponent());
    attrs[CKA_MODULUS_BITS] = UlongBytes(static_cast<CK_ULONG>(spec.rsa_bits));
    attrs[CKA_MODULUS] = std::move(modulus);
    attrs[CKA_PUBLIC_EXPONENT] = std::move(exponent);
    return attrs;
  }
  if (crypto::IsDh(spec.type)) {
    SIGNET_ASSIGN_OR_RETURN(crypto::DhGroup group, crypto::DhGroupValues(spec.type));
    SIGNET_ASSIGN_OR_RETURN(attrs[CKA_VALUE], crypto::DhPublicValue(key));
    attrs[CKA_PRIME] = std::move(group.prime);
    attrs[CKA_BASE] = std::move(group.base);
    return attrs;
  }
  SIGNET_ASSIGN_OR_RETURN(Bytes point, key.EcPoint());
  attrs[CKA_EC_PARAMS] = crypto::EcParamsDer(spec.type);
  attrs[CKA_EC_POINT] = DerOctetString(point);
  return attrs;
}

Result<AttributeMap> PrivateKeyAttributes(const crypto::PrivateKey& key) {
  SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey pub, key.Public());
  SIGNET_ASSIGN_OR_RETURN(AttributeMap attrs, PublicKeyAttributes(pub));
  attrs.erase(CKA_MODULUS_BITS);  // public-key attributes only
  attrs.erase(CKA_VALUE);         // DH's y
  if (crypto::IsDh(key.spec().type)) {
    SIGNET_ASSIGN_OR_RETURN(std::size_t bits, crypto::DhPrivateValueBits(key));
    attrs[CKA_VALUE_BITS] = UlongBytes(static_cast<CK_ULONG>(bits));
  }
  return attrs;
}

Result<crypto::PublicKey> PublicKeyFromAttributes(const AttributeMap& attrs) {
  auto type = FindUlong(attrs, CKA_KEY_TYPE);
  auto get = [&attrs](CK_ATTRIBUTE_TYPE t) -> const Bytes* {
    auto it = attrs.find(t);
    return it == attrs.end() ? nullptr : &it->second;
  };
  if (type == CKK_RSA) {
    const Bytes* n = get(CKA_MODULUS);
    const Bytes* e = get(CKA_PUBLIC_EXPONENT);
    if (n && e) return crypto::PublicKey::FromRsaComponents(*n, *e);
  } else if (type == CKK_EC || type == CKK_EC_EDWARDS || type == CKK_EC_MONTGOMERY) {
    const Bytes* params = get(CKA_EC_PARAMS);
    const Bytes* point = get(CKA_EC_POINT);
    if (params && point) return crypto::PublicKey::FromEcPoint(*params, *point);
  } else if (type == CKK_DH) {
    const Bytes* prime = get(CKA_PRIME);
    const Bytes* base = get(CKA_BASE);
    const Bytes* y = get(CKA_VALUE);
    if (prime && base && y) {
      SIGNET_ASSIGN_OR_RETURN(crypto::KeyType group, crypto::DhGroupOf(*prime, *base));
      return crypto::PublicKey::FromDhValue(group, *y);
    }
  }
  return MakeError(CKR_KEY_TYPE_INCONSISTENT, "object does not hold a usable public key");
}

}  // namespace signet::core

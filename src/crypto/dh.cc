#include "crypto/dh.h"

#include <openssl/core_names.h>
#include <openssl/dh.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <array>
#include <string>

#include "crypto/key_types.h"
#include "crypto/ossl_error.h"
#include "crypto/ossl_ptr.h"

namespace signet::crypto {
namespace {

using internal::OsslError;

constexpr KeyType kDhTypes[] = {KeyType::kDhFfdhe2048, KeyType::kDhFfdhe3072, KeyType::kDhFfdhe4096,
                                KeyType::kDhFfdhe6144, KeyType::kDhFfdhe8192};

// StrippedLeadingZeros: `bytes` without its leading zero bytes.
ByteView StrippedLeadingZeros(ByteView bytes) {
  std::size_t i = 0;
  while (i < bytes.size() && bytes[i] == 0) ++i;
  return bytes.subspan(i);
}

Result<Bytes> BignumBytes(const EVP_PKEY* pkey, const char* name) {
  BIGNUM* raw = nullptr;
  if (EVP_PKEY_get_bn_param(pkey, name, &raw) != 1 || raw == nullptr) {
    return OsslError(CKR_FUNCTION_FAILED, std::string("cannot read DH parameter ") + name);
  }
  BignumPtr bn(raw);
  Bytes out(static_cast<std::size_t>(BN_num_bytes(bn.get())));
  BN_bn2bin(bn.get(), out.data());
  return out;
}

// FromData builds a DH EVP_PKEY of `selection` in the group of `info`, with
// the public value `y` when given; nullptr (the OpenSSL error queued) on
// failure.
EvpPkeyPtr FromData(const internal::KeyTypeInfo& info, int selection, const BIGNUM* y) {
  OsslParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!bld ||
      !OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, info.group_name, 0) ||
      (y != nullptr && !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, y))) {
    return nullptr;
  }
  OsslParamPtr params(OSSL_PARAM_BLD_to_param(bld.get()));
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "DH", nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, selection, params.get()) <= 0) {
    return nullptr;
  }
  return EvpPkeyPtr(raw);
}

// LoadGroup reads the prime and base of `type` from OpenSSL's copy of RFC
// 7919 (the crypto test checks it against the RFC's formula).
DhGroup LoadGroup(KeyType type) {
  DhGroup group;
  EvpPkeyPtr pkey = FromData(internal::InfoFor(type), EVP_PKEY_KEY_PARAMETERS, nullptr);
  if (!pkey) return group;
  auto p = BignumBytes(pkey.get(), OSSL_PKEY_PARAM_FFC_P);
  auto g = BignumBytes(pkey.get(), OSSL_PKEY_PARAM_FFC_G);
  if (p.ok() && g.ok()) {
    group.prime = std::move(*p);
    group.base = std::move(*g);
  }
  return group;
}

// Groups: each DH group's values, read once per process.
const std::array<DhGroup, std::size(kDhTypes)>& Groups() {
  static const std::array<DhGroup, std::size(kDhTypes)> groups = {
      LoadGroup(kDhTypes[0]), LoadGroup(kDhTypes[1]), LoadGroup(kDhTypes[2]),
      LoadGroup(kDhTypes[3]), LoadGroup(kDhTypes[4])};
  return groups;
}

}  // namespace

Result<DhGroup> DhGroupValues(KeyType type) {
  for (std::size_t i = 0; i < std::size(kDhTypes); ++i) {
    if (kDhTypes[i] != type) continue;
    const DhGroup& group = Groups()[i];
    if (group.prime.empty()) return OsslError(CKR_FUNCTION_FAILED, "DH group unavailable");
    return group;
  }
  return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not a DH key type");
}

Result<KeyType> DhGroupOf(ByteView prime, ByteView base) {
  const ByteView p = StrippedLeadingZeros(prime);
  const ByteView g = StrippedLeadingZeros(base);
  for (std::size_t i = 0; i < std::size(kDhTypes); ++i) {
    const DhGroup& group = Groups()[i];
    if (!group.prime.empty() && std::ranges::equal(p, group.prime) &&
        std::ranges::equal(g, group.base)) {
      return kDhTypes[i];
    }
  }
  return MakeError(CKR_ATTRIBUTE_VALUE_INVALID,
                   "CKA_PRIME and CKA_BASE are not an RFC 7919 group (ffdhe2048, ffdhe3072, "
                   "ffdhe4096, ffdhe6144, ffdhe8192)");
}

std::size_t DhMinPrivateBits(KeyType type) {
  switch (type) {
    case KeyType::kDhFfdhe2048:
      return 225;
    case KeyType::kDhFfdhe3072:
      return 275;
    case KeyType::kDhFfdhe4096:
      return 325;
    case KeyType::kDhFfdhe6144:
      return 375;
    case KeyType::kDhFfdhe8192:
      return 400;
    default:
      return 0;
  }
}

Result<Bytes> DhPublicValue(const PublicKey& key) {
  if (!IsDh(key.spec().type)) return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not a DH key");
  return BignumBytes(key.get0_pkey(), OSSL_PKEY_PARAM_PUB_KEY);
}

Result<std::size_t> DhPrivateValueBits(const PrivateKey& key) {
  if (!IsDh(key.spec().type)) return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not a DH key");
  BIGNUM* raw = nullptr;
  if (EVP_PKEY_get_bn_param(key.get0_pkey(), OSSL_PKEY_PARAM_PRIV_KEY, &raw) != 1) {
    return OsslError(CKR_FUNCTION_FAILED, "cannot read the DH private value");
  }
  BignumPtr x(raw);
  return static_cast<std::size_t>(BN_num_bits(x.get()));
}

Result<PublicKey> PublicKey::FromDhValue(KeyType type, ByteView y) {
  SIGNET_ASSIGN_OR_RETURN(DhGroup group, DhGroupValues(type));
  BignumPtr value(BN_bin2bn(y.data(), static_cast<int>(y.size()), nullptr));
  BignumPtr p(BN_bin2bn(group.prime.data(), static_cast<int>(group.prime.size()), nullptr));
  BignumPtr p_minus_1(BN_dup(p.get()));
  if (!value || !p || !p_minus_1 || !BN_sub_word(p_minus_1.get(), 1)) {
    return MakeError(CKR_HOST_MEMORY, "BIGNUM allocation failed");
  }
  // SP 800-56A section 5.6.2.3.1: 1 < y < p - 1.
  if (BN_cmp(value.get(), BN_value_one()) <= 0 || BN_cmp(value.get(), p_minus_1.get()) >= 0) {
    return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "a DH public value is 1 < y < p - 1");
  }
  EvpPkeyPtr pkey = FromData(internal::InfoFor(type), EVP_PKEY_PUBLIC_KEY, value.get());
  if (!pkey) return OsslError(CKR_ATTRIBUTE_VALUE_INVALID, "bad DH public value");
  // The full check: y^q = 1 mod p, q = (p - 1) / 2 for these safe primes.
  EvpPkeyCtxPtr check(EVP_PKEY_CTX_new_from_pkey(nullptr, pkey.get(), nullptr));
  if (!check || EVP_PKEY_public_check(check.get()) != 1) {
    return OsslError(CKR_ATTRIBUTE_VALUE_INVALID, "the DH public value is not in the group");
  }
  return PublicKey(std::shared_ptr<EVP_PKEY>(std::move(pkey)), KeySpec{type, 0});
}

Result<PrivateKey> PrivateKey::FromDhPrivateValue(KeyType type, ByteView x) {
  SIGNET_ASSIGN_OR_RETURN(DhGroup group, DhGroupValues(type));
  BignumPtr priv(BN_secure_new());
  BignumPtr p(BN_bin2bn(group.prime.data(), static_cast<int>(group.prime.size()), nullptr));
  BignumPtr g(BN_bin2bn(group.base.data(), static_cast<int>(group.base.size()), nullptr));
  BignumPtr q(BN_dup(p.get()));
  BignumPtr y(BN_new());
  BnCtxPtr bn_ctx(BN_CTX_secure_new());
  if (!priv || !p || !g || !q || !y || !bn_ctx ||
      BN_bin2bn(x.data(), static_cast<int>(x.size()), priv.get()) == nullptr ||
      !BN_rshift1(q.get(), q.get())) {
    return MakeError(CKR_HOST_MEMORY, "BIGNUM allocation failed");
  }
  // x in [2, q - 1], q = (p - 1) / 2 (SP 800-56A section 5.6.1.1.1).
  if (BN_cmp(priv.get(), BN_value_one()) <= 0 || BN_cmp(priv.get(), q.get()) >= 0) {
    return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "a DH private value is 1 < x < q");
  }
  BN_set_flags(priv.get(), BN_FLG_CONSTTIME);
  if (BN_mod_exp_mont_consttime(y.get(), g.get(), priv.get(), p.get(), bn_ctx.get(), nullptr) !=
      1) {
    return OsslError(CKR_FUNCTION_FAILED, "DH public value computation failed");
  }
  const internal::KeyTypeInfo& info = internal::InfoFor(type);
  OsslParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!bld ||
      !OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, info.group_name, 0) ||
      !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_PRIV_KEY, priv.get()) ||
      !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, y.get())) {
    return OsslError(CKR_HOST_MEMORY, "OSSL_PARAM_BLD failed");
  }
  OsslParamPtr params(OSSL_PARAM_BLD_to_param(bld.get()));
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "DH", nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_KEYPAIR, params.get()) <= 0) {
    return OsslError(CKR_ATTRIBUTE_VALUE_INVALID, "bad DH private value");
  }
  return Adopt(EvpPkeyPtr(raw), KeySpec{type, 0});
}

Result<SecureBytes> DhSharedSecret(const PrivateKey& own, ByteView peer) {
  const KeyType type = own.spec().type;
  if (!IsDh(type)) return MakeError(CKR_KEY_TYPE_INCONSISTENT, "DH needs a DH private key");
  Result<PublicKey> other = PublicKey::FromDhValue(type, peer);
  if (!other.ok()) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID,
                     "the other party's public value: " + other.error().message);
  }
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, own.get0_pkey(), nullptr));
  if (!ctx) return MakeError(CKR_HOST_MEMORY, "EVP_PKEY_CTX_new_from_pkey failed");
  // Padded: Z keeps the prime's length.
  if (EVP_PKEY_derive_init(ctx.get()) != 1 || EVP_PKEY_CTX_set_dh_pad(ctx.get(), 1) != 1) {
    return OsslError(CKR_FUNCTION_FAILED, "EVP_PKEY_derive_init");
  }
  if (EVP_PKEY_derive_set_peer_ex(ctx.get(), other->get0_pkey(), 1) != 1) {
    return OsslError(CKR_MECHANISM_PARAM_INVALID, "the other party's public value");
  }
  std::size_t len = 0;
  if (EVP_PKEY_derive(ctx.get(), nullptr, &len) != 1) {
    return OsslError(CKR_FUNCTION_FAILED, "EVP_PKEY_derive");
  }
  SecureBytes z(len);
  if (EVP_PKEY_derive(ctx.get(), z.data(), &len) != 1) {
    return OsslError(CKR_FUNCTION_FAILED, "DH");
  }
  z.resize(len);
  return z;
}

}  // namespace signet::crypto

#include "keystore/pool_seal.h"

#include "crypto/sealed_box.h"
#include "crypto/symmetric.h"

namespace signet::keystore {
namespace {

constexpr std::string_view kPoolMagic = "SGPOOL2";
constexpr std::string_view kSealKeyMagic = "SGSEAL1";

SecureBytes PoolPlaintext(std::int64_t entry, ByteView secret) {
  SecureBytes plain(kPoolMagic.begin(), kPoolMagic.end());
  auto id = static_cast<std::uint64_t>(entry);
  for (int i = 0; i < 8; ++i) plain.push_back(static_cast<std::uint8_t>(id >> (56 - 8 * i)));
  plain.insert(plain.end(), secret.begin(), secret.end());
  return plain;
}

// StripPrefix returns `plain` after `prefix`, or CKR_WRAPPED_KEY_INVALID.
Result<SecureBytes> StripPrefix(const SecureBytes& plain, ByteView prefix, std::string_view what) {
  if (plain.size() <= prefix.size() ||
      !EqualConstantTime(ByteView(plain.data(), prefix.size()), prefix)) {
    return MakeError(CKR_WRAPPED_KEY_INVALID, std::string(what) + " belongs elsewhere");
  }
  return SecureBytes(plain.begin() + static_cast<std::ptrdiff_t>(prefix.size()), plain.end());
}

}  // namespace

Result<PoolSealKey> NewPoolSealKey(ByteView kek) {
  SIGNET_ASSIGN_OR_RETURN(crypto::PrivateKey key,
                          crypto::PrivateKey::Generate({crypto::KeyType::kX25519}));
  SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey public_key, key.Public());
  PoolSealKey sealed;
  SIGNET_ASSIGN_OR_RETURN(sealed.public_der, public_key.ToDer());
  SIGNET_ASSIGN_OR_RETURN(SecureBytes der, key.ToPkcs8Der());
  SecureBytes plain(kSealKeyMagic.begin(), kSealKeyMagic.end());
  plain.insert(plain.end(), der.begin(), der.end());
  SIGNET_ASSIGN_OR_RETURN(sealed.wrapped_private, crypto::AesKeyWrapPad(kek, plain));
  return sealed;
}

Result<crypto::PublicKey> ParsePoolPublicKey(ByteView public_der) {
  auto parsed = crypto::PublicKey::FromDer(public_der);
  if (!parsed.ok()) {
    return MakeError(CKR_TOKEN_NOT_RECOGNIZED, "damaged: the pool key does not parse");
  }
  return std::move(*parsed);
}

Result<crypto::PrivateKey> UnwrapPoolPrivateKey(ByteView kek, ByteView wrapped_private) {
  auto plain = crypto::AesKeyUnwrapPad(kek, wrapped_private);
  if (!plain.ok()) return MakeError(CKR_WRAPPED_KEY_INVALID, "pool key does not unwrap");
  SecureBytes magic(kSealKeyMagic.begin(), kSealKeyMagic.end());
  SIGNET_ASSIGN_OR_RETURN(SecureBytes der, StripPrefix(*plain, magic, "pool key"));
  return crypto::PrivateKey::FromPkcs8Der(der);
}

Result<Bytes> SealPoolEntry(const crypto::PublicKey& seal_to, std::int64_t entry,
                            ByteView private_der) {
  return crypto::Seal(seal_to, PoolPlaintext(entry, private_der));
}

Result<SecureBytes> OpenPoolEntry(const crypto::PrivateKey& seal_key, std::int64_t entry,
                                  ByteView sealed) {
  auto plain = crypto::OpenSealed(seal_key, sealed);
  if (!plain.ok()) return MakeError(CKR_WRAPPED_KEY_INVALID, "pool key does not open");
  return StripPrefix(*plain, PoolPlaintext(entry, {}), "pool key");
}

}  // namespace signet::keystore

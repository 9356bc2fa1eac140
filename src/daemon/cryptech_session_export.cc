// pkey_export and pkey_import (29, 30): a key travels between HSMs as
// libhal wraps it. Its PKCS#8 PrivateKeyInfo is AES key wrapped with padding
// (RFC 5649) under a fresh 256-bit KEK; the KEK is PKCS#1 v1.5 encrypted
// under the receiver's RSA key-encipherment key (the KEKEK); both travel as
// encrypted private key info structures (PKCS#8) (id-aes256-wrap-pad, rsaEncryption).
// Both run as one core::Hsm WrapKey / UnwrapKey with
// CKM_SIGNET_RSA_PKCS_AES_KEY_WRAP, so the key and the KEK never leave
// signet's key handling, and its wrap policy applies.
#include <openssl/objects.h>
#include <openssl/x509.h>

#include "daemon/cryptech_session.h"

namespace signet::daemon {

namespace hal = proto::hal;
using hal::Error;

namespace {

// EncryptedKeyInfo: DER encrypted private key info { algorithm `nid` (no
// parameters, as libhal writes it), `encrypted` }.
Result<Bytes> EncryptedKeyInfo(int nid, ByteView encrypted) {
  std::unique_ptr<X509_SIG, decltype(&X509_SIG_free)> info(X509_SIG_new(), X509_SIG_free);
  X509_ALGOR* algorithm = nullptr;
  ASN1_OCTET_STRING* octets = nullptr;
  if (info) X509_SIG_getm(info.get(), &algorithm, &octets);
  if (algorithm == nullptr || octets == nullptr ||
      X509_ALGOR_set0(algorithm, OBJ_nid2obj(nid), V_ASN1_UNDEF, nullptr) != 1 ||
      ASN1_OCTET_STRING_set(octets, encrypted.data(), static_cast<int>(encrypted.size())) != 1) {
    return MakeError(CKR_HOST_MEMORY, "encrypted private key info");
  }
  int length = i2d_X509_SIG(info.get(), nullptr);
  if (length <= 0) return MakeError(CKR_FUNCTION_FAILED, "encrypted private key info");
  Bytes der(static_cast<std::size_t>(length));
  unsigned char* p = der.data();
  i2d_X509_SIG(info.get(), &p);
  return der;
}

// EncryptedContent: the encrypted bytes of a DER encrypted private key info
// whose algorithm is `nid` (its parameters, if any, are ignored); nullopt
// when `der` is not one.
std::optional<Bytes> EncryptedContent(ByteView der, int nid) {
  const unsigned char* p = der.data();
  std::unique_ptr<X509_SIG, decltype(&X509_SIG_free)> info(
      d2i_X509_SIG(nullptr, &p, static_cast<long>(der.size())), X509_SIG_free);
  if (!info || p != der.data() + der.size()) return std::nullopt;
  const X509_ALGOR* algorithm = nullptr;
  const ASN1_OCTET_STRING* octets = nullptr;
  X509_SIG_get0(info.get(), &algorithm, &octets);
  if (OBJ_obj2nid(algorithm->algorithm) != nid) return std::nullopt;
  return Bytes(ASN1_STRING_get0_data(octets),
               ASN1_STRING_get0_data(octets) + ASN1_STRING_length(octets));
}

}  // namespace

Error CryptechSession::PkeyExport(Reader& in, Writer& out) {
  std::uint32_t handle = 0, kekek_handle = 0, pkcs8_max = 0, kek_max = 0;
  if (!in.GetU32(handle) || !in.GetU32(kekek_handle) || !in.GetU32(pkcs8_max) ||
      !in.GetU32(kek_max)) {
    return Error::kXdrBufferOverflow;
  }
  if (kek_max <= hal::kKekLength) return Error::kBadArguments;
  OpenKey* key = FindKey(handle);
  OpenKey* kekek = FindKey(kekek_handle);
  if (key == nullptr || kekek == nullptr) return Error::kKeyNotFound;
  if (Error e = RequireUser(); e != Error::kOk) return e;
  if ((key->facts.flags & hal::kFlagExportable) == 0 ||
      (kekek->facts.flags & hal::kFlagKeyEncipherment) == 0) {
    return Error::kForbidden;
  }
  if (!kekek->facts.rsa()) return Error::kUnsupportedKey;
  if (!key->facts.private_key()) return Error::kUnsupportedKey;
  // The receiver's key must be a public key the SO trusts (CKA_TRUSTED):
  // a sensitive key leaves signet only under such a key (core/key_policy.h).
  if (kekek->facts.type != hal::KeyType::kRsaPublic) return Error::kForbidden;
  auto modulus = Attributes(kekek->object, {CKA_MODULUS})[CKA_MODULUS];
  if (pkcs8_max < hal::kWrappedKeySize || modulus.size() > kek_max) return Error::kResultTooLong;
  // One step in core: a fresh KEK under the KEKEK (PKCS#1 v1.5), then the
  // key's PKCS#8 under the KEK (RFC 5649); the two parts concatenated.
  auto wrapped = hsm_.WrapKey(*client_, session_, Mechanism{CKM_SIGNET_RSA_PKCS_AES_KEY_WRAP},
                              kekek->object, key->object);
  if (!wrapped.ok()) return HalErrorOf(wrapped.error());
  if (wrapped->size() <= modulus.size()) return Error::kImpossible;
  ByteView parts(*wrapped);
  auto kek_info = EncryptedKeyInfo(NID_rsaEncryption, parts.first(modulus.size()));
  auto pkcs8 = EncryptedKeyInfo(NID_id_aes256_wrap_pad, parts.subspan(modulus.size()));
  if (!pkcs8.ok() || !kek_info.ok()) return Error::kAllocationFailure;
  if (pkcs8->size() > pkcs8_max) return Error::kResultTooLong;
  out.PutOpaque(*pkcs8);
  out.PutOpaque(*kek_info);
  return Error::kOk;
}

Error CryptechSession::PkeyImport(Reader& in, Writer& out) {
  std::uint32_t session = 0, kekek_handle = 0, flags = 0;
  ByteView pkcs8;
  ByteView kek;
  if (!in.GetU32(session) || !in.GetU32(kekek_handle) || !in.GetOpaque(pkcs8) ||
      !in.GetOpaque(kek) || !in.GetU32(flags)) {
    return Error::kXdrBufferOverflow;
  }
  if (kek.size() <= 2 || (flags & ~hal::kAllKeyFlags) != 0) return Error::kBadArguments;
  OpenKey* kekek = FindKey(kekek_handle);
  if (kekek == nullptr) return Error::kKeyNotFound;
  if (Error e = RequireUser(); e != Error::kOk) return e;
  if ((kekek->facts.flags & hal::kFlagKeyEncipherment) == 0) return Error::kForbidden;
  if (kekek->facts.type != hal::KeyType::kRsaPrivate) return Error::kUnsupportedKey;
  auto kek_ciphertext = EncryptedContent(kek, NID_rsaEncryption);
  auto wrapped_key = EncryptedContent(pkcs8, NID_id_aes256_wrap_pad);
  if (!kek_ciphertext || !wrapped_key) return Error::kAsn1ParseFailed;
  Bytes wrapped = std::move(*kek_ciphertext);
  wrapped.insert(wrapped.end(), wrapped_key->begin(), wrapped_key->end());
  core::Template t{{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)}};
  for (auto& a : KeyFlagTemplate(flags, /*private_key=*/true)) t.push_back(std::move(a));
  // Every failure of the RSA or AES step is one error (core makes them
  // alike: no padding oracle), which libhal also gives as a key-unwrap one.
  auto object = hsm_.UnwrapKey(*client_, session_, Mechanism{CKM_SIGNET_RSA_PKCS_AES_KEY_WRAP},
                               kekek->object, wrapped, t);
  if (!object.ok()) return HalErrorOf(object.error());
  return ReplyNewKey(*object, out);
}

}  // namespace signet::daemon

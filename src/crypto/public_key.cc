// PublicKey: SubjectPublicKeyInfo DER/PEM import and export, and the PKCS#11
// component forms (RSA modulus/exponent, EC point).
#include <openssl/core_names.h>
#include <openssl/pem.h>

#include "crypto/key_types.h"
#include "crypto/keys.h"
#include "crypto/ossl_error.h"
#include "crypto/secp256k1_ecdsa.h"

namespace signet::crypto {
namespace {

using internal::OsslError;

Result<Bytes> BignumParam(const EVP_PKEY* pkey, const char* name, std::size_t pad_to = 0) {
  BIGNUM* raw = nullptr;
  if (!EVP_PKEY_get_bn_param(pkey, name, &raw)) {
    return OsslError(CKR_FUNCTION_FAILED, std::string("cannot read key parameter ") + name);
  }
  BignumPtr bn(raw);
  std::size_t len = pad_to != 0 ? pad_to : static_cast<std::size_t>(BN_num_bytes(bn.get()));
  Bytes out(len);
  if (BN_bn2binpad(bn.get(), out.data(), static_cast<int>(len)) < 0) {
    return OsslError(CKR_FUNCTION_FAILED, "key parameter too large");
  }
  return out;
}

// UnwrapOctetString returns the contents of a short DER OCTET STRING that
// exactly fills `der`, or `der` itself when it is not one. `raw_len` is the
// length a raw point would have; a raw point of that length is never
// unwrapped, even though an uncompressed point also starts with 0x04.
ByteView UnwrapOctetString(ByteView der, std::size_t raw_len) {
  if (der.size() == raw_len || der.size() < 2 || der[0] != 0x04) return der;
  std::size_t header = 2;
  std::size_t len = der[1];
  if (len == 0x81 && der.size() >= 3) {
    len = der[2];
    header = 3;
  }
  if (header + len != der.size()) return der;
  return der.subspan(header);
}

// FromParams builds a public EVP_PKEY of `type` from `bld`; nullptr (with
// the OpenSSL error queued) on failure.
EVP_PKEY* FromParams(const char* type, OSSL_PARAM_BLD* bld) {
  OsslParamPtr params(OSSL_PARAM_BLD_to_param(bld));
  EvpPkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* raw = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0 ||
      EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) <= 0) {
    return nullptr;
  }
  return raw;
}

}  // namespace

Result<PublicKey> PublicKey::Adopt(EVP_PKEY* raw, std::string_view what) {
  if (raw == nullptr) return OsslError(CKR_ATTRIBUTE_VALUE_INVALID, what);
  EvpPkeyPtr pkey(raw);
  SIGNET_ASSIGN_OR_RETURN(KeySpec spec, internal::SpecOfPkey(pkey.get()));
  PublicKey key(std::shared_ptr<EVP_PKEY>(std::move(pkey)), spec);
  if (spec.type == KeyType::kEcSecp256k1) {
    SIGNET_ASSIGN_OR_RETURN(key.secp256k1_, internal::Secp256k1PointOf(key.get0_pkey()));
  }
  return key;
}

Result<PublicKey> PublicKey::FromDer(ByteView spki_der) {
  const unsigned char* cursor = spki_der.data();
  EVP_PKEY* raw = d2i_PUBKEY(nullptr, &cursor, static_cast<long>(spki_der.size()));
  if (raw != nullptr && cursor != spki_der.data() + spki_der.size()) {
    EVP_PKEY_free(raw);
    return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "trailing bytes after SubjectPublicKeyInfo");
  }
  return Adopt(raw, "not a DER SubjectPublicKeyInfo");
}

Result<PublicKey> PublicKey::FromPem(std::string_view pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return MakeError(CKR_HOST_MEMORY, "BIO_new_mem_buf failed");
  return Adopt(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr), "not a PEM public key");
}

Result<PublicKey> PublicKey::FromRsaComponents(ByteView modulus, ByteView exponent) {
  BignumPtr n(BN_bin2bn(modulus.data(), static_cast<int>(modulus.size()), nullptr));
  BignumPtr e(BN_bin2bn(exponent.data(), static_cast<int>(exponent.size()), nullptr));
  OsslParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!n || !e || !bld || BN_is_zero(n.get()) || !BN_is_odd(e.get()) ||
      !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, n.get()) ||
      !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, e.get())) {
    return OsslError(CKR_ATTRIBUTE_VALUE_INVALID, "bad RSA modulus or exponent");
  }
  return Adopt(FromParams("RSA", bld.get()), "bad RSA modulus or exponent");
}

Result<PublicKey> PublicKey::FromEcPoint(ByteView ec_params_der, ByteView point) {
  SIGNET_ASSIGN_OR_RETURN(KeyType type, KeyTypeFromEcParams(ec_params_der));
  const auto& info = internal::InfoFor(type);
  if (internal::IsRawKey(type)) {
    ByteView key = UnwrapOctetString(point, info.field_bytes);
    if (key.size() != info.field_bytes) {
      return MakeError(CKR_ATTRIBUTE_VALUE_INVALID,
                       std::string(info.ossl_type) + " public key must be " +
                           std::to_string(info.field_bytes) + " bytes");
    }
    return Adopt(
        EVP_PKEY_new_raw_public_key_ex(nullptr, info.ossl_type, nullptr, key.data(), key.size()),
        "bad public key");
  }
  ByteView raw = UnwrapOctetString(point, 1 + 2 * info.field_bytes);
  OsslParamBldPtr bld(OSSL_PARAM_BLD_new());
  if (!bld ||
      !OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, info.group_name, 0) ||
      !OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, raw.data(),
                                        raw.size())) {
    return OsslError(CKR_HOST_MEMORY, "OSSL_PARAM_BLD failed");
  }
  // EVP_PKEY_fromdata decodes the point with EC_POINT_oct2point, which
  // rejects points that are not on the curve.
  return Adopt(FromParams("EC", bld.get()), "bad EC point");
}

Result<Bytes> PublicKey::ToDer() const {
  unsigned char* der = nullptr;
  int len = i2d_PUBKEY(pkey_.get(), &der);
  if (len <= 0) return OsslError(CKR_FUNCTION_FAILED, "public key encoding failed");
  OsslBytesPtr hold(der);
  return Bytes(der, der + len);
}

Result<std::string> PublicKey::ToPem() const {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || !PEM_write_bio_PUBKEY(bio.get(), pkey_.get())) {
    return OsslError(CKR_FUNCTION_FAILED, "PEM encoding failed");
  }
  char* data = nullptr;
  long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(len));
}

Result<Bytes> PublicKey::RsaModulus() const {
  if (spec_.type != KeyType::kRsa) return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not an RSA key");
  return BignumParam(pkey_.get(), OSSL_PKEY_PARAM_RSA_N);
}

Result<Bytes> PublicKey::RsaPublicExponent() const {
  if (spec_.type != KeyType::kRsa) return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not an RSA key");
  return BignumParam(pkey_.get(), OSSL_PKEY_PARAM_RSA_E);
}

// EcPoint always answers in uncompressed form (what PKCS#11 tools expect),
// whatever form the key was imported in.
Result<Bytes> PublicKey::EcPoint() const {
  if (internal::IsRawKey(spec_.type)) {
    Bytes out(internal::InfoFor(spec_.type).field_bytes);
    std::size_t len = out.size();
    if (!EVP_PKEY_get_raw_public_key(pkey_.get(), out.data(), &len) || len != out.size()) {
      return OsslError(CKR_FUNCTION_FAILED, "cannot read the raw public key");
    }
    return out;
  }
  if (!IsEc(spec_.type)) return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not an EC key");
  std::size_t field = internal::InfoFor(spec_.type).field_bytes;
  SIGNET_ASSIGN_OR_RETURN(Bytes x, BignumParam(pkey_.get(), OSSL_PKEY_PARAM_EC_PUB_X, field));
  SIGNET_ASSIGN_OR_RETURN(Bytes y, BignumParam(pkey_.get(), OSSL_PKEY_PARAM_EC_PUB_Y, field));
  Bytes out{0x04};
  out.insert(out.end(), x.begin(), x.end());
  out.insert(out.end(), y.begin(), y.end());
  return out;
}

}  // namespace signet::crypto

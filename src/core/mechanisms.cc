#include "core/mechanisms.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "base/hex.h"
#include "core/secret_keys.h"
#include "crypto/aes_modes.h"
#include "crypto/dh.h"
#include "crypto/digest.h"
#include "crypto/hkdf.h"
#include "crypto/key_agreement.h"
#include "crypto/legacy_provider.h"
#include "crypto/rsa_aes_wrap.h"
#include "crypto/rsa_encrypt.h"
#include "crypto/symmetric.h"

namespace signet::core {
namespace {

// SchemeFor: the crypto/ signature scheme of a signature family.
Result<crypto::SignScheme> SchemeFor(MechanismFamily family) {
  switch (family) {
    case MechanismFamily::kRsaPkcs1:
      return crypto::SignScheme::kRsaPkcs1;
    case MechanismFamily::kRsaPss:
      return crypto::SignScheme::kRsaPss;
    case MechanismFamily::kEcdsa:
      return crypto::SignScheme::kEcdsa;
    case MechanismFamily::kEddsa:
      return crypto::SignScheme::kEddsa;
    default:
      return MakeError(CKR_MECHANISM_INVALID, "not a signature mechanism");
  }
}

Result<std::size_t> GcmTagBytes(const Mechanism& m) {
  if (!m.gcm) return MakeError(CKR_MECHANISM_PARAM_INVALID, "CKM_AES_GCM needs GCM params");
  if (m.gcm->tag_bits % 8 != 0 || m.gcm->tag_bits < 96 || m.gcm->tag_bits > 128 ||
      m.gcm->iv.empty() || m.gcm->iv.size() > 256) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "GCM tag must be 96-128 bits, IV 1-256 bytes");
  }
  return static_cast<std::size_t>(m.gcm->tag_bits / 8);
}

// BlockModeFamily: a block-mode family's cipher and mode.
struct BlockModeFamily {
  crypto::BlockCipher cipher;
  crypto::BlockMode mode;
};

// BlockModeOf: the crypto/ cipher and mode of an AES or triple-DES
// block-mode family.
std::optional<BlockModeFamily> BlockModeOf(MechanismFamily family) {
  using crypto::BlockCipher;
  using crypto::BlockMode;
  switch (family) {
    case MechanismFamily::kAesEcb:
      return BlockModeFamily{BlockCipher::kAes, BlockMode::kEcb};
    case MechanismFamily::kAesCbc:
      return BlockModeFamily{BlockCipher::kAes, BlockMode::kCbc};
    case MechanismFamily::kAesCbcPad:
      return BlockModeFamily{BlockCipher::kAes, BlockMode::kCbcPad};
    case MechanismFamily::kAesCtr:
      return BlockModeFamily{BlockCipher::kAes, BlockMode::kCtr};
    case MechanismFamily::kDesEcb:
      return BlockModeFamily{BlockCipher::kDes, BlockMode::kEcb};
    case MechanismFamily::kDesCbc:
      return BlockModeFamily{BlockCipher::kDes, BlockMode::kCbc};
    case MechanismFamily::kDesCbcPad:
      return BlockModeFamily{BlockCipher::kDes, BlockMode::kCbcPad};
    default:
      return std::nullopt;
  }
}

// AesModeParamsOf reads the IV (CBC modes: raw_params, one block of the
// cipher) or the counter block (CTR: CK_AES_CTR_PARAMS) of `m`;
// CKR_MECHANISM_PARAM_INVALID when the mechanism's parameter is missing or
// of the wrong form.
Result<crypto::AesModeParams> AesModeParamsOf(
    crypto::AesMode mode, const Mechanism& m,
    crypto::BlockCipher cipher = crypto::BlockCipher::kAes) {
  switch (mode) {
    case crypto::AesMode::kEcb:
      if (!m.raw_params.empty()) {
        return MakeError(CKR_MECHANISM_PARAM_INVALID, "ECB takes no parameter");
      }
      return crypto::AesModeParams{};
    case crypto::AesMode::kCbc:
    case crypto::AesMode::kCbcPad:
      if (m.raw_params.size() != crypto::BlockSize(cipher)) {
        return MakeError(CKR_MECHANISM_PARAM_INVALID, "CBC needs a one-block IV");
      }
      return crypto::AesModeParams{m.raw_params};
    case crypto::AesMode::kCtr:
      if (!m.ctr || m.ctr->counter_block.size() != crypto::kAesBlockSize ||
          m.ctr->counter_bits == 0 || m.ctr->counter_bits > 128) {
        return MakeError(CKR_MECHANISM_PARAM_INVALID,
                         "CKM_AES_CTR needs CK_AES_CTR_PARAMS with 1-128 counter bits");
      }
      return crypto::AesModeParams{m.ctr->counter_block, m.ctr->counter_bits};
  }
  return MakeError(CKR_MECHANISM_PARAM_INVALID, "unknown AES mode");
}

// AsWrapError: a cipher's decryption errors as C_UnwrapKey names them.
Error AsWrapError(Error e) {
  if (e.code == CKR_ENCRYPTED_DATA_INVALID) e.code = CKR_WRAPPED_KEY_INVALID;
  if (e.code == CKR_ENCRYPTED_DATA_LEN_RANGE) e.code = CKR_WRAPPED_KEY_LEN_RANGE;
  return e;
}

// OaepCipherParams maps CK_RSA_PKCS_OAEP_PARAMS to crypto/'s; the label is
// borrowed from `oaep`.
Result<crypto::RsaCipherParams> OaepCipherParams(const OaepParams& oaep) {
  const DigestAlg hash = DigestForMechanism(oaep.hash_alg);
  const DigestAlg mgf = DigestForMgf(oaep.mgf);
  // An OAEP hash is one PKCS#11 names an MGF1 for (not MD5). The label
  // source is CKZ_DATA_SPECIFIED; 0 is taken for "no label".
  const bool source_ok =
      oaep.source == CKZ_DATA_SPECIFIED || (oaep.source == 0 && oaep.source_data.empty());
  if (FactsOf(hash).mgf == 0 || mgf == DigestAlg::kNone || !source_ok) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "OAEP params do not fit the mechanism");
  }
  return crypto::RsaCipherParams{.padding = crypto::RsaPadding::kOaep,
                                 .oaep_digest = hash,
                                 .mgf1_digest = mgf,
                                 .label = oaep.source_data};
}

// RsaAesParamsFor reads CK_RSA_AES_KEY_WRAP_PARAMS: the AES key's length
// in bytes (128, 192 or 256 bits) and the OAEP parameters; libhal's variant
// has fixed ones.
Result<std::pair<std::size_t, crypto::RsaCipherParams>> RsaAesParamsFor(const Mechanism& m) {
  if (m.type == CKM_SIGNET_RSA_PKCS_AES_KEY_WRAP) {
    return std::make_pair(std::size_t{32},
                          crypto::RsaCipherParams{.padding = crypto::RsaPadding::kPkcs1});
  }
  if (!m.rsa_aes) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID,
                     "CKM_RSA_AES_KEY_WRAP needs CK_RSA_AES_KEY_WRAP_PARAMS");
  }
  const CK_ULONG bits = m.rsa_aes->aes_key_bits;
  if (bits != 128 && bits != 192 && bits != 256) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "ulAESKeyBits must be 128, 192 or 256");
  }
  SIGNET_ASSIGN_OR_RETURN(crypto::RsaCipherParams oaep, OaepCipherParams(m.rsa_aes->oaep));
  return std::make_pair(static_cast<std::size_t>(bits / 8), oaep);
}

// RsaCipherParamsFor maps an RSA cipher mechanism and its OAEP parameters
// to crypto/'s; the label is borrowed from `m`.
Result<crypto::RsaCipherParams> RsaCipherParamsFor(const MechanismRow& row, const Mechanism& m) {
  switch (row.family) {
    case MechanismFamily::kRsaPkcs1:
      if (row.type != CKM_RSA_PKCS) break;
      return crypto::RsaCipherParams{.padding = crypto::RsaPadding::kPkcs1};
    case MechanismFamily::kRsaX509:
      return crypto::RsaCipherParams{.padding = crypto::RsaPadding::kNone};
    case MechanismFamily::kRsaOaep:
      if (!m.oaep) {
        return MakeError(CKR_MECHANISM_PARAM_INVALID, "CKM_RSA_PKCS_OAEP needs OAEP params");
      }
      return OaepCipherParams(*m.oaep);
    default:
      break;
  }
  return MakeError(CKR_MECHANISM_INVALID, std::string(row.name) + " is not an RSA cipher");
}

// MacAlgOf: the crypto/ MAC of a MAC family.
std::optional<crypto::MacAlg> MacAlgOf(const MechanismRow& row) {
  switch (row.family) {
    case MechanismFamily::kHmac:
      return crypto::MacAlg{crypto::MacKind::kHmac, row.digest};
    case MechanismFamily::kAesCmac:
      return crypto::MacAlg{crypto::MacKind::kCmac, DigestAlg::kNone};
    case MechanismFamily::kDes3Cmac:
      return crypto::MacAlg{crypto::MacKind::kDes3Cmac, DigestAlg::kNone};
    default:
      return std::nullopt;
  }
}

Error NotBound(const MechanismRow& row) {
  return MakeError(CKR_MECHANISM_INVALID, std::string(row.name) + " does not do this operation");
}

Error ParamInvalid(const MechanismRow& row, const std::string& why) {
  return MakeError(CKR_MECHANISM_PARAM_INVALID, std::string(row.name) + ": " + why);
}

// HkdfDerive runs CKM_HKDF_DERIVE and CKM_HKDF_DATA (DeriveFromSecret's
// contract).
Result<SecureBytes> HkdfDerive(const MechanismRow& row, const Mechanism& m, ByteView base,
                               ByteView salt_key, std::size_t length) {
  if (!m.hkdf) return ParamInvalid(row, "needs CK_HKDF_PARAMS");
  const HkdfParams& p = *m.hkdf;
  if (!p.extract && !p.expand) return ParamInvalid(row, "bExtract, bExpand or both");
  const DigestAlg digest = DigestForMechanism(p.prf_hash);
  // The hashes PKCS#11 names an MGF1 for: SHA-1 and SHA-2, not MD5.
  if (FactsOf(digest).mgf == 0) {
    return ParamInvalid(row, "prfHashMechanism is CKM_SHA_1, CKM_SHA224/256/384/512");
  }
  const std::size_t hash_len = FactsOf(digest).size;
  // §2.43: the salt is read only by the extract step, the info only by
  // the expand step.
  ByteView salt;
  if (p.extract) {
    switch (p.salt_type) {
      case CKF_HKDF_SALT_NULL:
        if (!p.salt.empty()) return ParamInvalid(row, "CKF_HKDF_SALT_NULL takes no salt bytes");
        break;
      case CKF_HKDF_SALT_DATA:
        if (p.salt.empty()) return ParamInvalid(row, "CKF_HKDF_SALT_DATA needs salt bytes");
        salt = p.salt;
        break;
      case CKF_HKDF_SALT_KEY:
        salt = salt_key;
        break;
      default:
        return ParamInvalid(row, "ulSaltType is CKF_HKDF_SALT_NULL, _DATA or _KEY");
    }
  }
  if (!p.expand) {
    if (length != 0 && length != hash_len) {
      return MakeError(
          CKR_TEMPLATE_INCONSISTENT,
          "HKDF extract makes the " + std::to_string(hash_len) + "-byte pseudorandom key");
    }
    return crypto::Hkdf(crypto::HkdfStep::kExtract, digest, base, salt, {}, hash_len);
  }
  if (length == 0) {
    return MakeError(CKR_TEMPLATE_INCOMPLETE, "HKDF expand needs CKA_VALUE_LEN");
  }
  if (length > 255 * hash_len) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT,
                     "HKDF expand makes at most " + std::to_string(255 * hash_len) + " bytes");
  }
  // RFC 5869 section 2.3: the pseudorandom key is at least one hash long.
  if (!p.extract && base.size() < hash_len) {
    return MakeError(CKR_KEY_SIZE_RANGE, "HKDF expand alone needs a base key of at least " +
                                             std::to_string(hash_len) + " bytes");
  }
  return crypto::Hkdf(p.extract ? crypto::HkdfStep::kExtractAndExpand : crypto::HkdfStep::kExpand,
                      digest, base, salt, p.info, length);
}

}  // namespace

Result<const MechanismRow*> MechanismFor(CK_MECHANISM_TYPE type, CK_FLAGS needed) {
  const MechanismRow* row = FindMechanismRow(type);
  if (row == nullptr) {
    return MakeError(CKR_MECHANISM_INVALID,
                     "mechanism " + std::to_string(type) + " is not supported");
  }
  if ((row->flags & needed) == 0) {
    return MakeError(CKR_MECHANISM_INVALID, std::string(row->name) + " does not do this operation");
  }
  if (!Offered(*row)) {
    return MakeError(CKR_MECHANISM_INVALID,
                     std::string(row->name) + " needs OpenSSL's legacy provider, not loaded");
  }
  return row;
}

bool Offered(const MechanismRow& row) {
  return !NeedsLegacyProvider(row) || crypto::LegacyProviderLoaded();
}

Result<crypto::SignParams> SignParamsFor(const MechanismRow& row, const Mechanism& m) {
  crypto::SignParams p;
  SIGNET_ASSIGN_OR_RETURN(p.scheme, SchemeFor(row.family));
  p.digest = row.digest;
  p.prehashed = SignsDigest(row);
  p.ecdsa_format = crypto::EcdsaFormat::kRaw;
  if (row.param == ParamKind::kEddsa) {
    // PKCS#11 3.0 section 2.3.14: CK_EDDSA_PARAMS choose the RFC 8032
    // instance (crypto::EddsaInstance; docs/PKCS11.md "EdDSA").
    if (m.eddsa) p.eddsa = crypto::EddsaInstance{m.eddsa->prehash, m.eddsa->context};
    return p;
  }
  if (row.param != ParamKind::kPss) return p;
  if (!m.pss) {
    // The hashing PSS forms default to their own hash; the raw form cannot.
    if (p.prehashed) {
      return MakeError(CKR_MECHANISM_PARAM_INVALID, std::string(row.name) + " needs PSS params");
    }
    return p;
  }
  const DigestAlg hash = DigestForMechanism(m.pss->hash_alg);
  const DigestAlg mgf = DigestForMgf(m.pss->mgf);
  // A PSS hash is one PKCS#11 names an MGF1 for (not MD5).
  if (FactsOf(hash).mgf == 0 || mgf == DigestAlg::kNone || (!p.prehashed && hash != row.digest) ||
      m.pss->salt_len > 1024) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "PSS params do not fit the mechanism");
  }
  p.digest = hash;
  p.pss_mgf1 = mgf;
  p.pss_salt_len = static_cast<int>(m.pss->salt_len);
  return p;
}

bool SignsRaw(const MechanismRow& row) {
  return row.family == MechanismFamily::kRsaX509 && (row.flags & CKF_SIGN) != 0;
}

Result<Bytes> SignRawWith(const MechanismRow& row, const crypto::PrivateKey& key, ByteView input) {
  if (!SignsRaw(row)) return NotBound(row);
  return crypto::RsaRawSign(key, input);
}

Status VerifyRawWith(const MechanismRow& row, const crypto::PublicKey& key, ByteView input,
                     ByteView signature) {
  if (!SignsRaw(row)) return NotBound(row);
  return crypto::RsaRawVerify(key, input, signature);
}

Status CheckCipherParams(const MechanismRow& row, const Mechanism& m) {
  if (std::optional<BlockModeFamily> block = BlockModeOf(row.family)) {
    SIGNET_TRY(AesModeParamsOf(block->mode, m, block->cipher));
    return OkStatus();
  }
  switch (row.family) {
    case MechanismFamily::kAesGcm: {
      SIGNET_TRY(GcmTagBytes(m));
      return OkStatus();
    }
    case MechanismFamily::kRsaPkcs1:
    case MechanismFamily::kRsaX509:
    case MechanismFamily::kRsaOaep: {
      SIGNET_TRY(RsaCipherParamsFor(row, m));
      return OkStatus();
    }
    default:
      return NotBound(row);
  }
}

Result<Bytes> EncryptWith(const MechanismRow& row, const Mechanism& m, ByteView key,
                          ByteView data) {
  if (std::optional<BlockModeFamily> block = BlockModeOf(row.family)) {
    SIGNET_ASSIGN_OR_RETURN(crypto::AesModeParams params,
                            AesModeParamsOf(block->mode, m, block->cipher));
    return crypto::BlockEncrypt(block->cipher, block->mode, key, params, data);
  }
  switch (row.family) {
    case MechanismFamily::kAesGcm: {
      SIGNET_ASSIGN_OR_RETURN(std::size_t tag, GcmTagBytes(m));
      return crypto::AesGcmEncrypt(key, m.gcm->iv, m.gcm->aad, data, tag);
    }
    default:
      return NotBound(row);
  }
}

Result<SecureBytes> DecryptWith(const MechanismRow& row, const Mechanism& m, ByteView key,
                                ByteView data) {
  if (std::optional<BlockModeFamily> block = BlockModeOf(row.family)) {
    SIGNET_ASSIGN_OR_RETURN(crypto::AesModeParams params,
                            AesModeParamsOf(block->mode, m, block->cipher));
    return crypto::BlockDecrypt(block->cipher, block->mode, key, params, data);
  }
  switch (row.family) {
    case MechanismFamily::kAesGcm: {
      SIGNET_ASSIGN_OR_RETURN(std::size_t tag, GcmTagBytes(m));
      return crypto::AesGcmDecrypt(key, m.gcm->iv, m.gcm->aad, data, tag);
    }
    default:
      return NotBound(row);
  }
}

Result<std::unique_ptr<crypto::MultiPart>> StartMultiPart(const MechanismRow& row,
                                                          const Mechanism& m, ByteView key,
                                                          bool encrypt) {
  if (std::optional<BlockModeFamily> block = BlockModeOf(row.family)) {
    SIGNET_ASSIGN_OR_RETURN(crypto::AesModeParams params,
                            AesModeParamsOf(block->mode, m, block->cipher));
    return crypto::StartBlockCipher(block->cipher, block->mode, key, params, encrypt);
  }
  if (IsMac(row.family)) {
    SIGNET_ASSIGN_OR_RETURN(crypto::MacStream mac, StartMac(row, key));
    return crypto::AsMultiPart(std::move(mac));
  }
  switch (row.family) {
    case MechanismFamily::kAesGcm: {
      SIGNET_ASSIGN_OR_RETURN(std::size_t tag, GcmTagBytes(m));
      return crypto::StartAesGcm(key, m.gcm->iv, m.gcm->aad, tag, encrypt);
    }
    case MechanismFamily::kDigest:
      return crypto::StartDigest(row.digest);
    default:
      return NotBound(row);
  }
}

bool UsesKeyPair(const MechanismRow& row) {
  return row.family == MechanismFamily::kRsaPkcs1 || row.family == MechanismFamily::kRsaX509 ||
         row.family == MechanismFamily::kRsaOaep || row.family == MechanismFamily::kRsaAesKeyWrap;
}

Result<Bytes> EncryptWithPublic(const MechanismRow& row, const Mechanism& m,
                                const crypto::PublicKey& key, ByteView data) {
  SIGNET_ASSIGN_OR_RETURN(crypto::RsaCipherParams params, RsaCipherParamsFor(row, m));
  return crypto::RsaEncrypt(key, params, data);
}

Result<SecureBytes> DecryptWithPrivate(const MechanismRow& row, const Mechanism& m,
                                       const crypto::PrivateKey& key, ByteView data) {
  SIGNET_ASSIGN_OR_RETURN(crypto::RsaCipherParams params, RsaCipherParamsFor(row, m));
  return crypto::RsaDecrypt(key, params, data);
}

Result<std::size_t> MacLengthFor(const MechanismRow& row, const Mechanism& m) {
  const std::optional<crypto::MacAlg> alg = MacAlgOf(row);
  if (!alg) return NotBound(row);
  const std::size_t full = crypto::MacSize(*alg);
  if (row.param != ParamKind::kMacLength) {
    if (m.mac_length || !m.raw_params.empty()) {
      return MakeError(CKR_MECHANISM_PARAM_INVALID, std::string(row.name) + " takes no parameter");
    }
    return full;
  }
  // PKCS#11 allows 0 here; an empty MAC authenticates nothing, so signet
  // starts at 1 (docs/PKCS11.md "Generic secrets and MACs").
  if (!m.mac_length || *m.mac_length < 1 || *m.mac_length > full) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, std::string(row.name) + " needs a length of 1-" +
                                                      std::to_string(full) + " bytes");
  }
  return static_cast<std::size_t>(*m.mac_length);
}

Result<crypto::MacStream> StartMac(const MechanismRow& row, ByteView key) {
  const std::optional<crypto::MacAlg> alg = MacAlgOf(row);
  if (!alg) return NotBound(row);
  // HMAC key sizes are bytes in the row; CMAC's are the AES (or triple-DES)
  // key sizes, which crypto/ checks.
  if (key.size() < row.min_key_size || key.size() > row.max_key_size) {
    return MakeError(CKR_KEY_SIZE_RANGE, std::string(row.name) + ": key size out of range");
  }
  return crypto::MacStream::Start(*alg, key);
}

Result<Bytes> MacWith(const MechanismRow& row, const Mechanism& m, ByteView key, ByteView data) {
  SIGNET_ASSIGN_OR_RETURN(std::size_t length, MacLengthFor(row, m));
  SIGNET_ASSIGN_OR_RETURN(crypto::MacStream stream, StartMac(row, key));
  SIGNET_TRY(stream.Update(data));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes mac, stream.Finish());
  return Bytes(mac.begin(), mac.begin() + static_cast<std::ptrdiff_t>(length));
}

Status VerifyMacWith(const MechanismRow& row, const Mechanism& m, ByteView key, ByteView data,
                     ByteView mac) {
  SIGNET_ASSIGN_OR_RETURN(std::size_t length, MacLengthFor(row, m));
  if (mac.size() != length) {
    return MakeError(CKR_SIGNATURE_LEN_RANGE, "the MAC is " + std::to_string(length) + " bytes");
  }
  SIGNET_ASSIGN_OR_RETURN(Bytes expected, MacWith(row, m, key, data));
  if (!EqualConstantTime(expected, mac)) {
    return MakeError(CKR_SIGNATURE_INVALID, "the MAC does not match");
  }
  return OkStatus();
}

Result<Bytes> WrapWith(const MechanismRow& row, const Mechanism& m, ByteView kek,
                       ByteView key_value) {
  if ((row.flags & CKF_WRAP) == 0) return NotBound(row);
  if (std::optional<BlockModeFamily> block = BlockModeOf(row.family)) {
    SIGNET_ASSIGN_OR_RETURN(crypto::AesModeParams params,
                            AesModeParamsOf(block->mode, m, block->cipher));
    if (block->mode == crypto::BlockMode::kCbcPad) {
      return crypto::BlockEncrypt(block->cipher, block->mode, kek, params, key_value);
    }
    // ECB and CBC: the value padded with zero bytes to whole blocks.
    const std::size_t n = crypto::BlockSize(block->cipher);
    SecureBytes padded(key_value.begin(), key_value.end());
    padded.resize((padded.size() + n - 1) / n * n, 0);
    return crypto::BlockEncrypt(block->cipher, block->mode, kek, params, padded);
  }
  switch (row.family) {
    case MechanismFamily::kAesKeyWrapPad:
      return crypto::AesKeyWrapPad(kek, key_value);
    case MechanismFamily::kAesKeyWrap:
    case MechanismFamily::kAesKeyWrapPkcs7:
      return crypto::AesKeyWrap(kek, m.raw_params, row.family == MechanismFamily::kAesKeyWrapPkcs7,
                                key_value);
    default:
      return NotBound(row);
  }
}

Result<SecureBytes> UnwrapWith(const MechanismRow& row, const Mechanism& m, ByteView kek,
                               ByteView wrapped, std::size_t key_length) {
  if ((row.flags & CKF_UNWRAP) == 0) return NotBound(row);
  if (std::optional<BlockModeFamily> block = BlockModeOf(row.family)) {
    SIGNET_ASSIGN_OR_RETURN(crypto::AesModeParams params,
                            AesModeParamsOf(block->mode, m, block->cipher));
    Result<SecureBytes> plain =
        crypto::BlockDecrypt(block->cipher, block->mode, kek, params, wrapped);
    if (!plain.ok()) return AsWrapError(std::move(plain).error());
    if (block->mode == crypto::BlockMode::kCbcPad || key_length == 0) return plain;
    // ECB and CBC: the zero padding is cut off at the template's length.
    if (key_length > plain->size()) {
      return MakeError(CKR_TEMPLATE_INCONSISTENT,
                       "the template's key is longer than the wrapped key");
    }
    plain->resize(key_length);
    return plain;
  }
  switch (row.family) {
    case MechanismFamily::kAesKeyWrapPad:
      return crypto::AesKeyUnwrapPad(kek, wrapped);
    case MechanismFamily::kAesKeyWrap:
    case MechanismFamily::kAesKeyWrapPkcs7:
      return crypto::AesKeyUnwrap(kek, m.raw_params,
                                  row.family == MechanismFamily::kAesKeyWrapPkcs7, wrapped);
    default:
      return NotBound(row);
  }
}

bool WrapsPrivateKeys(const MechanismRow& row) {
  switch (row.family) {
    case MechanismFamily::kRsaPkcs1:
    case MechanismFamily::kRsaOaep:
    case MechanismFamily::kDesEcb:
    case MechanismFamily::kDesCbc:
      return false;
    default:
      return true;
  }
}

Result<Bytes> WrapWithPublic(const MechanismRow& row, const Mechanism& m,
                             const crypto::PublicKey& key, ByteView key_value) {
  if ((row.flags & CKF_WRAP) == 0 || !UsesKeyPair(row)) return NotBound(row);
  if (row.family == MechanismFamily::kRsaAesKeyWrap) {
    SIGNET_ASSIGN_OR_RETURN(auto params, RsaAesParamsFor(m));
    return crypto::RsaAesKeyWrap(key, params.second, params.first, key_value);
  }
  SIGNET_ASSIGN_OR_RETURN(crypto::RsaCipherParams params, RsaCipherParamsFor(row, m));
  Result<Bytes> wrapped = crypto::RsaEncrypt(key, params, key_value);
  if (!wrapped.ok() && wrapped.error().code == CKR_DATA_LEN_RANGE) {
    return MakeError(CKR_KEY_SIZE_RANGE, "the key is too long for one block of this RSA key");
  }
  return wrapped;
}

Result<SecureBytes> UnwrapWithPrivate(const MechanismRow& row, const Mechanism& m,
                                      const crypto::PrivateKey& key, ByteView wrapped) {
  if ((row.flags & CKF_UNWRAP) == 0 || !UsesKeyPair(row)) return NotBound(row);
  if (row.family == MechanismFamily::kRsaAesKeyWrap) {
    SIGNET_ASSIGN_OR_RETURN(auto params, RsaAesParamsFor(m));
    return crypto::RsaAesKeyUnwrap(key, params.second, params.first, wrapped);
  }
  SIGNET_ASSIGN_OR_RETURN(crypto::RsaCipherParams params, RsaCipherParamsFor(row, m));
  Result<SecureBytes> plain = crypto::RsaDecrypt(key, params, wrapped);
  if (!plain.ok()) return AsWrapError(std::move(plain).error());
  return plain;
}

// TrailingBytes: the last `length` bytes of the shared secret `z` (all of
// it for 0), the rule of CKD_NULL and of DH (as SoftHSMv2 cuts them);
// CKR_TEMPLATE_INCONSISTENT when `length` exceeds it.
Result<SecureBytes> TrailingBytes(SecureBytes z, std::size_t length, std::string_view what) {
  if (length > z.size()) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT, "CKA_VALUE_LEN " + std::to_string(length) +
                                                    " exceeds the " + std::to_string(z.size()) +
                                                    "-byte shared secret (" + std::string(what) +
                                                    ")");
  }
  if (length == 0 || length == z.size()) return z;
  return SecureBytes(z.end() - static_cast<std::ptrdiff_t>(length), z.end());
}

Result<SecureBytes> DeriveWith(const MechanismRow& row, const Mechanism& m,
                               const crypto::PrivateKey& base, std::size_t length) {
  if (row.family == MechanismFamily::kDh) {
    if (!crypto::IsDh(base.spec().type)) {
      return MakeError(CKR_KEY_TYPE_INCONSISTENT, std::string(row.name) + " needs a DH key");
    }
    SIGNET_ASSIGN_OR_RETURN(SecureBytes z, crypto::DhSharedSecret(base, m.raw_params));
    return TrailingBytes(std::move(z), length, "DH");
  }
  if (row.family != MechanismFamily::kEcdh && row.family != MechanismFamily::kEcdhCofactor) {
    return NotBound(row);
  }
  if (!m.ecdh) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID,
                     std::string(row.name) + " needs CK_ECDH1_DERIVE_PARAMS");
  }
  const EcKdfFacts* kdf = FindEcKdf(m.ecdh->kdf);
  if (kdf == nullptr) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID,
                     "KDF " + HexNumber(m.ecdh->kdf) +
                         " is not one signet runs (CKD_NULL, CKD_SHA1/224/256/384/512_KDF)");
  }
  if (kdf->digest == DigestAlg::kNone && !m.ecdh->shared_data.empty()) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "CKD_NULL takes no shared data");
  }
  if (!crypto::IsEc(base.spec().type) && !crypto::IsMontgomery(base.spec().type)) {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT,
                     std::string(row.name) + " needs an EC, X25519 or X448 key");
  }
  auto peer =
      crypto::PublicKey::FromEcPoint(crypto::EcParamsDer(base.spec().type), m.ecdh->public_data);
  if (!peer.ok()) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID,
                     "the other party's public value: " + peer.error().message);
  }
  SIGNET_ASSIGN_OR_RETURN(
      SecureBytes z,
      crypto::EcdhSharedSecret(base, *peer, row.family == MechanismFamily::kEcdhCofactor));
  if (kdf->digest != DigestAlg::kNone) {
    return crypto::X963Kdf(kdf->digest, z, m.ecdh->shared_data, length == 0 ? z.size() : length);
  }
  return TrailingBytes(std::move(z), length, "CKD_NULL");
}

// Leading returns the first `length` bytes of `value` (all of it for 0):
// the v2.40 section 2.38 rule for a shorter derived key;
// CKR_TEMPLATE_INCONSISTENT for a longer one, and, `whole`, for a shorter
// one.
Result<SecureBytes> Leading(SecureBytes value, std::size_t length, bool whole) {
  if (length == 0 || length == value.size()) return value;
  if (length > value.size() || whole) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT,
                     "CKA_VALUE_LEN " + std::to_string(length) + " for a " +
                         std::to_string(value.size()) + "-byte result" +
                         (whole ? " from a sensitive key, which is never shortened" : ""));
  }
  value.resize(length);
  return value;
}

// Joined returns first || second.
SecureBytes Joined(ByteView first, ByteView second) {
  SecureBytes out(first.begin(), first.end());
  out.insert(out.end(), second.begin(), second.end());
  return out;
}

// XorDerive runs CKM_XOR_BASE_AND_DATA (DeriveFromSecret's contract).
Result<SecureBytes> XorDerive(const MechanismRow& row, ByteView base, ByteView data,
                              std::size_t length, CK_KEY_TYPE new_type, bool from_sensitive) {
  if (from_sensitive) {
    if (data.size() < base.size()) {
      return ParamInvalid(row, "data shorter than a sensitive key would shorten it");
    }
    // A DES key ignores the low bit of each byte (its parity bit).
    const std::uint8_t used = IsDesKeyType(new_type) ? 0xfe : 0xff;
    bool changes = false;
    for (std::size_t i = 0; i < base.size(); ++i) changes = changes || (data[i] & used) != 0;
    if (!changes) return ParamInvalid(row, "the data would leave the sensitive key as it is");
  }
  SecureBytes out(std::min(base.size(), data.size()));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = base[i] ^ data[i];
  return Leading(std::move(out), length, from_sensitive);
}

// EncryptData runs the encrypt-data family: the row's cipher (AES or triple
// DES, from its key type) over whole blocks of data, ECB or, with an IV,
// CBC.
Result<SecureBytes> EncryptData(const MechanismRow& row, const Mechanism& m, ByteView base,
                                std::size_t length) {
  const crypto::BlockCipher cipher =
      row.key_type == CKK_AES ? crypto::BlockCipher::kAes : crypto::BlockCipher::kDes;
  const std::size_t block = crypto::BlockSize(cipher);
  const bool cbc = row.param != ParamKind::kStringData;
  const DerivationData& d = *m.derivation;
  if (d.data.empty() || d.data.size() % block != 0) {
    return ParamInvalid(row, "the data is whole " + std::to_string(block) + "-byte blocks");
  }
  if (d.iv.size() != (cbc ? block : 0)) return ParamInvalid(row, "the IV is one block");
  SIGNET_ASSIGN_OR_RETURN(
      Bytes encrypted,
      crypto::BlockEncrypt(cipher, cbc ? crypto::BlockMode::kCbc : crypto::BlockMode::kEcb, base,
                           crypto::AesModeParams{d.iv}, d.data));
  SecureBytes out(encrypted.begin(), encrypted.end());
  WipeBytes(encrypted);
  return Leading(std::move(out), length, /*whole=*/false);
}

std::optional<CK_OBJECT_HANDLE> SecondKeyOf(const MechanismRow& row, const Mechanism& m) {
  const bool hkdf =
      row.family == MechanismFamily::kHkdf || row.family == MechanismFamily::kHkdfData;
  if (hkdf && m.hkdf && m.hkdf->extract && m.hkdf->salt_type == CKF_HKDF_SALT_KEY) {
    return m.hkdf->salt_key;
  }
  if (row.family == MechanismFamily::kConcatenateBaseAndKey) return m.other_key;
  return std::nullopt;
}

Result<SecureBytes> DeriveFromSecret(const MechanismRow& row, const Mechanism& m, ByteView base,
                                     ByteView second, std::size_t length, CK_KEY_TYPE new_type,
                                     bool from_sensitive) {
  if (row.family == MechanismFamily::kHkdf || row.family == MechanismFamily::kHkdfData) {
    return HkdfDerive(row, m, base, second, length);
  }
  if (row.family == MechanismFamily::kConcatenateBaseAndKey) {
    if (!m.other_key) return ParamInvalid(row, "needs the other key's handle");
    return Leading(Joined(base, second), length, from_sensitive);
  }
  if (!m.derivation) return ParamInvalid(row, "needs its derivation data");
  const ByteView data = m.derivation->data;
  // No data would make the base key again under another name.
  const bool data_needed = from_sensitive || row.family == MechanismFamily::kEncryptData;
  if (data.empty() && data_needed) return ParamInvalid(row, "needs data");
  switch (row.family) {
    case MechanismFamily::kConcatenateBaseAndData:
      return Leading(Joined(base, data), length, from_sensitive);
    case MechanismFamily::kConcatenateDataAndBase:
      return Leading(Joined(data, base), length, from_sensitive);
    case MechanismFamily::kXorBaseAndData:
      return XorDerive(row, base, data, length, new_type, from_sensitive);
    case MechanismFamily::kEncryptData:
      return EncryptData(row, m, base, length);
    default:
      return NotBound(row);
  }
}

}  // namespace signet::core

#include "core/mechanisms.h"

#include <string>

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
      return crypto::SignScheme::kEd25519;
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

Error NotBound(const MechanismRow& row) {
  return MakeError(CKR_MECHANISM_INVALID, std::string(row.name) + " does not do this operation");
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
  return row;
}

Result<crypto::SignParams> SignParamsFor(const MechanismRow& row, const Mechanism& m) {
  crypto::SignParams p;
  SIGNET_ASSIGN_OR_RETURN(p.scheme, SchemeFor(row.family));
  p.digest = row.digest;
  p.prehashed = SignsDigest(row);
  p.ecdsa_format = crypto::EcdsaFormat::kRaw;
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

Status CheckCipherParams(const MechanismRow& row, const Mechanism& m) {
  switch (row.family) {
    case MechanismFamily::kAesGcm: {
      SIGNET_TRY(GcmTagBytes(m));
      return OkStatus();
    }
    default:
      return NotBound(row);
  }
}

Result<Bytes> EncryptWith(const MechanismRow& row, const Mechanism& m, ByteView key,
                          ByteView data) {
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
  switch (row.family) {
    case MechanismFamily::kAesGcm: {
      SIGNET_ASSIGN_OR_RETURN(std::size_t tag, GcmTagBytes(m));
      return crypto::AesGcmDecrypt(key, m.gcm->iv, m.gcm->aad, data, tag);
    }
    default:
      return NotBound(row);
  }
}

Result<Bytes> WrapWith(const MechanismRow& row, ByteView kek, ByteView key_value) {
  switch (row.family) {
    case MechanismFamily::kAesKeyWrapPad:
      return crypto::AesKeyWrapPad(kek, key_value);
    default:
      return NotBound(row);
  }
}

Result<SecureBytes> UnwrapWith(const MechanismRow& row, ByteView kek, ByteView wrapped) {
  switch (row.family) {
    case MechanismFamily::kAesKeyWrapPad:
      return crypto::AesKeyUnwrapPad(kek, wrapped);
    default:
      return NotBound(row);
  }
}

}  // namespace signet::core

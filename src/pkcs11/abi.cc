#include "pkcs11/abi.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "base/mechanism_table.h"
#include "pkcs11/pkcs11_v3.h"
#include "signet/protocol.hpp"

namespace signet::pkcs11 {
namespace {

Result<client::Mechanism> WithPss(client::Mechanism out, const CK_MECHANISM& in,
                                  const MechanismRow& row) {
  if (in.pParameter == nullptr || in.ulParameterLen == 0) {
    // Only the raw form (CKM_RSA_PKCS_PSS) cannot know its hash without
    // parameters.
    if (SignsDigest(row)) {
      return MakeError(CKR_MECHANISM_PARAM_INVALID, std::string(row.name) + " needs parameters");
    }
    return out;
  }
  if (in.ulParameterLen != sizeof(CK_RSA_PKCS_PSS_PARAMS)) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "PSS parameter size");
  }
  const auto* p = static_cast<const CK_RSA_PKCS_PSS_PARAMS*>(in.pParameter);
  out.pss = client::PssParams{p->hashAlg, p->mgf, p->sLen};
  return out;
}

Result<client::Mechanism> WithGcm(client::Mechanism out, const CK_MECHANISM& in) {
  if (in.pParameter == nullptr || in.ulParameterLen != sizeof(CK_GCM_PARAMS)) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "CKM_AES_GCM needs CK_GCM_PARAMS");
  }
  const auto* p = static_cast<const CK_GCM_PARAMS*>(in.pParameter);
  if ((p->pIv == nullptr && p->ulIvLen != 0) || (p->pAAD == nullptr && p->ulAADLen != 0)) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "GCM IV or AAD pointer missing");
  }
  client::GcmParams gcm;
  auto iv = ToView(p->pIv, p->ulIvLen);
  auto aad = ToView(p->pAAD, p->ulAADLen);
  gcm.iv.assign(iv.begin(), iv.end());
  gcm.aad.assign(aad.begin(), aad.end());
  gcm.tag_bits = p->ulTagBits;
  out.gcm = std::move(gcm);
  return out;
}

Result<client::Mechanism> WithAesCtr(client::Mechanism out, const CK_MECHANISM& in) {
  if (in.pParameter == nullptr || in.ulParameterLen != sizeof(CK_AES_CTR_PARAMS)) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "CKM_AES_CTR needs CK_AES_CTR_PARAMS");
  }
  const auto* p = static_cast<const CK_AES_CTR_PARAMS*>(in.pParameter);
  out.ctr =
      client::AesCtrParams{p->ulCounterBits, client::Bytes(std::begin(p->cb), std::end(p->cb))};
  return out;
}

// WithOaep copies CK_RSA_PKCS_OAEP_PARAMS; its label (pSourceData) travels
// with it. The daemon checks the values.
Result<client::Mechanism> WithOaep(client::Mechanism out, const CK_MECHANISM& in) {
  if (in.pParameter == nullptr || in.ulParameterLen != sizeof(CK_RSA_PKCS_OAEP_PARAMS)) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "CKM_RSA_PKCS_OAEP needs its parameters");
  }
  const auto* p = static_cast<const CK_RSA_PKCS_OAEP_PARAMS*>(in.pParameter);
  if (p->pSourceData == nullptr && p->ulSourceDataLen != 0) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "OAEP label pointer missing");
  }
  client::OaepParams oaep{p->hashAlg, p->mgf, p->source, {}};
  auto label = ToView(static_cast<const CK_BYTE*>(p->pSourceData), p->ulSourceDataLen);
  oaep.source_data.assign(label.begin(), label.end());
  out.oaep = std::move(oaep);
  return out;
}

// ParamAs returns the mechanism's parameter as a T when it has T's size.
template <typename T>
const T* ParamAs(const CK_MECHANISM& in) {
  if (in.pParameter == nullptr || in.ulParameterLen != sizeof(T)) return nullptr;
  return static_cast<const T*>(in.pParameter);
}

// Copy returns the bytes of a (pointer, length) pair from a parameter
// structure; nullopt when the pointer is NULL but the length is not zero.
std::optional<client::Bytes> Copy(const void* data, CK_ULONG len) {
  if (data == nullptr && len != 0) return std::nullopt;
  auto view = ToView(static_cast<const CK_BYTE*>(data), len);
  return client::Bytes(view.begin(), view.end());
}

Error BadParam(const MechanismRow& row) {
  return MakeError(CKR_MECHANISM_PARAM_INVALID, std::string(row.name) + ": bad parameter");
}

// WithCbcEncryptData copies CK_AES_CBC_ENCRYPT_DATA_PARAMS or
// CK_DES_CBC_ENCRYPT_DATA_PARAMS (`Params`): the same shape, an IV of the
// cipher's block and the data.
template <typename Params>
Result<client::Mechanism> WithCbcEncryptData(client::Mechanism out, const CK_MECHANISM& in,
                                             const MechanismRow& row) {
  const auto* p = ParamAs<Params>(in);
  if (p == nullptr) return BadParam(row);
  auto data = Copy(p->pData, p->length);
  if (!data) return BadParam(row);
  out.derivation =
      client::DerivationData{client::Bytes(std::begin(p->iv), std::end(p->iv)), std::move(*data)};
  return out;
}

// WithStructure copies the 3.0-era parameter structures (derivation, MAC
// length, EdDSA, RSA-AES wrap) into their typed forms. The daemon checks
// their values; the module only checks sizes and pointers.
Result<client::Mechanism> WithStructure(client::Mechanism out, const CK_MECHANISM& in,
                                        const MechanismRow& row) {
  switch (row.param) {
    case ParamKind::kMacLength: {
      const auto* p = ParamAs<CK_ULONG>(in);  // CK_MAC_GENERAL_PARAMS
      if (p == nullptr) return BadParam(row);
      out.mac_length = *p;
      return out;
    }
    case ParamKind::kKeyHandle: {
      const auto* p = ParamAs<CK_OBJECT_HANDLE>(in);
      if (p == nullptr) return BadParam(row);
      out.other_key = *p;
      return out;
    }
    case ParamKind::kEcdh: {
      const auto* p = ParamAs<CK_ECDH1_DERIVE_PARAMS>(in);
      if (p == nullptr) return BadParam(row);
      auto shared = Copy(p->shared_data, p->shared_data_len);
      auto peer = Copy(p->public_data, p->public_data_len);
      if (!shared || !peer) return BadParam(row);
      out.ecdh = client::EcdhParams{p->kdf, std::move(*shared), std::move(*peer)};
      return out;
    }
    case ParamKind::kEddsa: {
      if (in.pParameter == nullptr) return out;  // plain EdDSA
      const auto* p = ParamAs<CK_EDDSA_PARAMS>(in);
      if (p == nullptr) return BadParam(row);
      auto context = Copy(p->pContextData, p->ulContextDataLen);
      if (!context) return BadParam(row);
      out.eddsa = client::EddsaParams{p->phFlag != CK_FALSE, std::move(*context)};
      return out;
    }
    case ParamKind::kHkdf: {
      const auto* p = ParamAs<CK_HKDF_PARAMS>(in);
      if (p == nullptr) return BadParam(row);
      auto salt = Copy(p->pSalt, p->ulSaltLen);
      auto info = Copy(p->pInfo, p->ulInfoLen);
      if (!salt || !info) return BadParam(row);
      out.hkdf =
          client::HkdfParams{p->bExtract != CK_FALSE, p->bExpand != CK_FALSE, p->prfHashMechanism,
                             p->ulSaltType,           std::move(*salt),       p->hSaltKey,
                             std::move(*info)};
      return out;
    }
    case ParamKind::kRsaAesWrap: {
      const auto* p = ParamAs<CK_RSA_AES_KEY_WRAP_PARAMS>(in);
      if (p == nullptr || p->pOAEPParams == nullptr) return BadParam(row);
      const CK_RSA_PKCS_OAEP_PARAMS& o = *p->pOAEPParams;
      auto label = Copy(o.pSourceData, o.ulSourceDataLen);
      if (!label) return BadParam(row);
      out.rsa_aes = client::RsaAesWrapParams{
          p->ulAESKeyBits, client::OaepParams{o.hashAlg, o.mgf, o.source, std::move(*label)}};
      return out;
    }
    case ParamKind::kStringData: {
      const auto* p = ParamAs<CK_KEY_DERIVATION_STRING_DATA>(in);
      if (p == nullptr) return BadParam(row);
      auto data = Copy(p->pData, p->ulLen);
      if (!data) return BadParam(row);
      out.derivation = client::DerivationData{{}, std::move(*data)};
      return out;
    }
    case ParamKind::kAesCbcEncryptData:
      return WithCbcEncryptData<CK_AES_CBC_ENCRYPT_DATA_PARAMS>(std::move(out), in, row);
    case ParamKind::kDesCbcEncryptData:
      return WithCbcEncryptData<CK_DES_CBC_ENCRYPT_DATA_PARAMS>(std::move(out), in, row);
    default:
      return out;
  }
}

}  // namespace

CK_RV WriteOutput(ByteView data, CK_BYTE_PTR out, CK_ULONG_PTR out_len) {
  if (out_len == nullptr) return CKR_ARGUMENTS_BAD;
  if (out == nullptr) {
    *out_len = data.size();
    return CKR_OK;
  }
  if (*out_len < data.size()) {
    *out_len = data.size();
    return CKR_BUFFER_TOO_SMALL;
  }
  if (!data.empty()) std::memcpy(out, data.data(), data.size());
  *out_len = data.size();
  return CKR_OK;
}

void PadCopy(std::string_view text, unsigned char* field, std::size_t size) {
  std::memset(field, ' ', size);
  std::memcpy(field, text.data(), std::min(size, text.size()));
}

std::string_view TrimPadded(const unsigned char* field, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(field), size);
  const auto end = text.find_last_not_of(" \0", std::string_view::npos, 2);
  return end == std::string_view::npos ? std::string_view{} : text.substr(0, end + 1);
}

namespace {

// EncodeNestedTemplate turns a template-valued attribute (an array of
// CK_ATTRIBUTE) into signet/attribute_array.hpp's byte form.
// CKR_ATTRIBUTE_VALUE_INVALID for a length that is not a whole number of
// CK_ATTRIBUTEs or a nested array; CKR_ARGUMENTS_BAD for a NULL value.
Result<client::Bytes> EncodeNestedTemplate(const CK_ATTRIBUTE& a) {
  if (a.ulValueLen % sizeof(CK_ATTRIBUTE) != 0) {
    return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "not an array of CK_ATTRIBUTE");
  }
  const auto* nested = static_cast<const CK_ATTRIBUTE*>(a.pValue);
  std::vector<NestedAttribute> elements;
  for (CK_ULONG i = 0; i < a.ulValueLen / sizeof(CK_ATTRIBUTE); ++i) {
    const CK_ATTRIBUTE& e = nested[i];
    if ((e.type & CKF_ARRAY_ATTRIBUTE) != 0) {
      return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "nested array attributes are not supported");
    }
    if (e.pValue == nullptr && e.ulValueLen != 0) {
      return MakeError(CKR_ARGUMENTS_BAD, "NULL nested attribute value");
    }
    auto value = ToView(static_cast<const CK_BYTE*>(e.pValue), e.ulValueLen);
    elements.push_back({e.type, std::vector<std::uint8_t>(value.begin(), value.end())});
  }
  return EncodeAttributeArray(elements);
}

}  // namespace

Result<client::Template> ToTemplate(CK_ATTRIBUTE_PTR attrs, CK_ULONG count) {
  if (attrs == nullptr && count != 0) return MakeError(CKR_ARGUMENTS_BAD, "NULL template");
  client::Template out;
  out.reserve(count);
  for (CK_ULONG i = 0; i < count; ++i) {
    const CK_ATTRIBUTE& a = attrs[i];
    if (a.pValue == nullptr && a.ulValueLen != 0) {
      return MakeError(CKR_ARGUMENTS_BAD, "NULL attribute value");
    }
    if (IsTemplateAttribute(a.type)) {
      SIGNET_ASSIGN_OR_RETURN(client::Bytes encoded, EncodeNestedTemplate(a));
      out.push_back(client::Attribute{a.type, std::move(encoded)});
      continue;
    }
    // CKA_ALLOWED_MECHANISMS is an array of CK_ULONG: its C bytes travel as
    // they are. Other array types are unknown to signet.
    if ((a.type & CKF_ARRAY_ATTRIBUTE) != 0 && a.type != CKA_ALLOWED_MECHANISMS) {
      return MakeError(CKR_ATTRIBUTE_TYPE_INVALID, "unknown array attribute");
    }
    auto value = ToView(static_cast<const CK_BYTE*>(a.pValue), a.ulValueLen);
    out.push_back(client::Attribute{a.type, client::Bytes(value.begin(), value.end())});
  }
  return out;
}

Result<client::Mechanism> ToMechanism(CK_MECHANISM_PTR mechanism) {
  if (mechanism == nullptr) return MakeError(CKR_ARGUMENTS_BAD, "NULL mechanism");
  const CK_MECHANISM& in = *mechanism;
  if (in.pParameter == nullptr && in.ulParameterLen != 0) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "NULL mechanism parameter");
  }
  client::Mechanism out;
  out.type = in.mechanism;
  // The parameter's form comes from the mechanism table; a mechanism the
  // module does not know keeps its parameter's bytes (the daemon decides).
  if (const MechanismRow* row = FindMechanismRow(in.mechanism)) {
    switch (row->param) {
      case ParamKind::kPss:
        return WithPss(std::move(out), in, *row);
      case ParamKind::kGcm:
        return WithGcm(std::move(out), in);
      case ParamKind::kAesCtr:
        return WithAesCtr(std::move(out), in);
      case ParamKind::kOaep:
        return WithOaep(std::move(out), in);
      case ParamKind::kNone:
      case ParamKind::kIv:
      case ParamKind::kPublicValue:
        break;
      default:
        return WithStructure(std::move(out), in, *row);
    }
  }
  auto raw = ToView(static_cast<const CK_BYTE*>(in.pParameter), in.ulParameterLen);
  out.raw_params.assign(raw.begin(), raw.end());
  return out;
}

}  // namespace signet::pkcs11

// Hsm: object management (PKCS#11 §5.7): create/import, copy, destroy,
// find, get and set attributes.
#include "core/hsm_internal.h"
#include "core/key_defaults.h"
#include "core/key_policy.h"
#include "core/object_classes.h"
#include "core/secret_keys.h"
#include "core/unique_id.h"
#include "crypto/dh.h"
#include "crypto/digest.h"
#include "crypto/private_components.h"

namespace signet::core {
namespace {

// kRsaPrivateComponents: the attributes of an RSA private key in the
// PKCS#11 form (§2.1.4). Only CKA_MODULUS and CKA_PRIVATE_EXPONENT are
// required; crypto recovers the others (issue 11 point 7).
constexpr CK_ATTRIBUTE_TYPE kRsaPrivateComponents[] = {
    CKA_MODULUS, CKA_PUBLIC_EXPONENT, CKA_PRIVATE_EXPONENT, CKA_PRIME_1,
    CKA_PRIME_2, CKA_EXPONENT_1,      CKA_EXPONENT_2,       CKA_COEFFICIENT,
};

// TakeBytes removes `type` from `attrs`, returning its value in a buffer
// that is wiped when freed; nullopt when absent.
std::optional<SecureBytes> TakeBytes(AttributeMap& attrs, CK_ATTRIBUTE_TYPE type) {
  auto it = attrs.find(type);
  if (it == attrs.end()) return std::nullopt;
  SecureBytes value(it->second.begin(), it->second.end());
  WipeBytes(it->second);
  attrs.erase(it);
  return value;
}

// PrivateKeyFromTemplate reads an imported private key in whichever form
// the template carries: the eight RSA components; CKA_EC_PARAMS with
// CKA_VALUE (the scalar, or the Ed25519 private key); CKA_PRIME and
// CKA_BASE (an RFC 7919 group) with CKA_VALUE (DH's x); or CKA_VALUE alone as
// PKCS#8 DER (signet's own form, and always the form after UnwrapKey).
// The secret attributes leave `attrs`.
Result<crypto::PrivateKey> PrivateKeyFromTemplate(AttributeMap& attrs, bool value_is_pkcs8) {
  if (!value_is_pkcs8 && attrs.count(CKA_PRIVATE_EXPONENT) != 0) {
    std::vector<SecureBytes> parts;
    for (CK_ATTRIBUTE_TYPE type : kRsaPrivateComponents) {
      std::optional<SecureBytes> part = TakeBytes(attrs, type);
      if (!part && type == CKA_MODULUS) {
        return MakeError(CKR_TEMPLATE_INCOMPLETE,
                         "CKA_MODULUS is required with CKA_PRIVATE_EXPONENT");
      }
      parts.push_back(part ? std::move(*part) : SecureBytes());
    }
    return crypto::PrivateKey::FromRsaComponents(
        {parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], parts[6], parts[7]});
  }
  std::optional<SecureBytes> value = TakeBytes(attrs, CKA_VALUE);
  if (!value) {
    return MakeError(CKR_TEMPLATE_INCOMPLETE,
                     "a private key needs CKA_VALUE (EC, Edwards, PKCS#8) or the RSA components");
  }
  auto params = attrs.find(CKA_EC_PARAMS);
  if (!value_is_pkcs8 && params != attrs.end()) {
    return crypto::PrivateKey::FromEcPrivateValue(params->second, *value);
  }
  auto prime = attrs.find(CKA_PRIME);
  auto base = attrs.find(CKA_BASE);
  if (!value_is_pkcs8 && prime != attrs.end() && base != attrs.end()) {
    SIGNET_ASSIGN_OR_RETURN(crypto::KeyType group, crypto::DhGroupOf(prime->second, base->second));
    return crypto::PrivateKey::FromDhPrivateValue(group, *value);
  }
  return crypto::PrivateKey::FromPkcs8Der(*value);
}

// ImportKeyMaterial turns an imported key's secret attributes into key
// material and adds the attributes the key determines. AES keys come as raw
// CKA_VALUE bytes; public keys are checked by rebuilding them.
Result<std::shared_ptr<const keystore::UnwrappedKey>> ImportKeyMaterial(AttributeMap& attrs,
                                                                        CK_OBJECT_CLASS cls,
                                                                        bool token,
                                                                        bool value_is_pkcs8) {
  if (cls == CKO_PUBLIC_KEY) {
    SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey pub, PublicKeyFromAttributes(attrs));
    SIGNET_TRY(CheckDaemonKeyType(pub.spec().type));
    SIGNET_ASSIGN_OR_RETURN(AttributeMap derived, PublicKeyAttributes(pub));
    for (auto& [t, v] : derived) attrs[t] = std::move(v);
    return std::shared_ptr<const keystore::UnwrappedKey>();
  }
  auto key = std::make_shared<keystore::UnwrappedKey>();
  if (cls == CKO_SECRET_KEY) {
    std::optional<SecureBytes> value = TakeBytes(attrs, CKA_VALUE);
    if (!value) return MakeError(CKR_TEMPLATE_INCOMPLETE, "CKA_VALUE is required for a secret key");
    key->value.assign(value->begin(), value->end());
    // An unwrapped key without CKA_KEY_TYPE is taken for AES, as before
    // generic secrets existed.
    const CK_KEY_TYPE type = FindUlong(attrs, CKA_KEY_TYPE).value_or(CKK_AES);
    SIGNET_TRY(CheckSecretKeyValue(type, key->value));
    attrs[CKA_KEY_TYPE] = UlongBytes(type);
    // CKA_VALUE_LEN where the type has it (not triple DES).
    if (ClassHasAttribute(attrs, CKA_VALUE_LEN))
      attrs[CKA_VALUE_LEN] = UlongBytes(key->value.size());
    // CKA_CHECK_VALUE (AES §2.8.2, generic secrets: SHA-1): computed; a
    // given one must match the key.
    SIGNET_ASSIGN_OR_RETURN(Bytes check, SecretKeyCheckValue(type, key->value));
    auto given = attrs.find(CKA_CHECK_VALUE);
    if (given != attrs.end() && given->second != check) {
      return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "CKA_CHECK_VALUE does not match the key");
    }
    attrs[CKA_CHECK_VALUE] = std::move(check);
    return std::shared_ptr<const keystore::UnwrappedKey>(std::move(key));
  }
  SIGNET_ASSIGN_OR_RETURN(crypto::PrivateKey priv, PrivateKeyFromTemplate(attrs, value_is_pkcs8));
  SIGNET_TRY(CheckDaemonKeyType(priv.spec().type));
  if (token && priv.spec().type == crypto::KeyType::kRsa && priv.spec().rsa_bits < 1024) {
    return MakeError(CKR_KEY_SIZE_RANGE, "token keys refuse RSA below 1024 bits");
  }
  auto type = FindUlong(attrs, CKA_KEY_TYPE);
  if (type && *type != PkcsKeyType(priv.spec().type)) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT, "CKA_KEY_TYPE does not match the key");
  }
  // The keystore keeps PKCS#8 (what it wraps), whatever form came in.
  SIGNET_ASSIGN_OR_RETURN(SecureBytes der, priv.ToPkcs8Der());
  key->value.assign(der.begin(), der.end());
  SIGNET_ASSIGN_OR_RETURN(AttributeMap derived, PrivateKeyAttributes(priv));
  for (auto& [t, v] : derived) attrs[t] = std::move(v);
  key->private_key = std::move(priv);
  return std::shared_ptr<const keystore::UnwrappedKey>(std::move(key));
}

bool IsSecretComponent(const ObjectRecord& rec, CK_ATTRIBUTE_TYPE type) {
  const AttributeRule* rule = FindAttributeRule(type);
  if (rule != nullptr && rule->secret) return true;
  CK_OBJECT_CLASS cls = rec.object_class();
  return type == CKA_VALUE && (cls == CKO_PRIVATE_KEY || cls == CKO_SECRET_KEY);
}

// ComponentOf maps a private key attribute to crypto/'s component.
std::optional<crypto::PrivateComponent> ComponentOf(CK_ATTRIBUTE_TYPE type) {
  using C = crypto::PrivateComponent;
  switch (type) {
    case CKA_PRIVATE_EXPONENT:
      return C::kRsaPrivateExponent;
    case CKA_PRIME_1:
      return C::kRsaPrime1;
    case CKA_PRIME_2:
      return C::kRsaPrime2;
    case CKA_EXPONENT_1:
      return C::kRsaExponent1;
    case CKA_EXPONENT_2:
      return C::kRsaExponent2;
    case CKA_COEFFICIENT:
      return C::kRsaCoefficient;
    case CKA_VALUE:
      return C::kEcValue;
    default:
      return std::nullopt;
  }
}

// CertificateCheckValue: CKA_CHECK_VALUE of a certificate, the first three
// bytes of the SHA-1 hash of its CKA_VALUE (PKCS#11 v2.40 §4.6.3).
Result<Bytes> CertificateCheckValue(const AttributeMap& attrs) {
  auto value = attrs.find(CKA_VALUE);
  if (value == attrs.end()) return Bytes{};
  SIGNET_ASSIGN_OR_RETURN(Bytes hash, crypto::Digest(crypto::DigestAlg::kSha1, value->second));
  hash.resize(3);
  return hash;
}

}  // namespace

Result<CK_OBJECT_HANDLE> HsmImpl::CreateObject(ClientState& c, CK_SESSION_HANDLE s,
                                               const Template& t) {
  return ImportObject(c, s, t, /*value_is_pkcs8=*/false);
}

Result<CK_OBJECT_HANDLE> HsmImpl::ImportPrivateKey(ClientState& c, CK_SESSION_HANDLE s,
                                                   const Template& t) {
  return ImportObject(c, s, t, /*value_is_pkcs8=*/true);
}

Result<CK_OBJECT_HANDLE> HsmImpl::ImportObject(ClientState& c, CK_SESSION_HANDLE s,
                                               const Template& t, bool value_is_pkcs8) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  SIGNET_ASSIGN_OR_RETURN(PendingObject object, PrepareImport(t, value_is_pkcs8));
  return StoreObject(c, s, r, std::move(object.attrs), std::move(object.secret));
}

Result<HsmImpl::PendingObject> HsmImpl::PrepareImport(const Template& t, bool value_is_pkcs8) {
  SIGNET_ASSIGN_OR_RETURN(AttributeMap attrs, ValidateTemplate(t));
  SIGNET_TRY(CheckNoComputedAttributes(attrs, false));
  auto cls = FindUlong(attrs, CKA_CLASS);
  if (!cls) return MakeError(CKR_TEMPLATE_INCOMPLETE, "CKA_CLASS is required");
  const bool key = *cls == CKO_PUBLIC_KEY || *cls == CKO_PRIVATE_KEY || *cls == CKO_SECRET_KEY;
  if (!key && *cls != CKO_DATA && *cls != CKO_CERTIFICATE) {
    return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "unsupported CKA_CLASS");
  }
  auto cert_type = FindUlong(attrs, CKA_CERTIFICATE_TYPE);
  if (*cls == CKO_CERTIFICATE && cert_type && *cert_type != CKC_X_509) {
    return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "signet stores X.509 certificates only");
  }
  // The class's attributes only, and the ones C_CreateObject needs (§4's
  // footnote 1). An unwrapped key may take its type from the wrapped
  // PKCS#8 (docs/PKCS11.md).
  if (!value_is_pkcs8) {
    SIGNET_TRY(CheckTemplateFitsClass(attrs, /*check_required=*/true));
  } else if (attrs.count(CKA_KEY_TYPE) != 0) {
    SIGNET_TRY(CheckTemplateFitsClass(attrs, /*check_required=*/false));
  }
  std::shared_ptr<const keystore::UnwrappedKey> secret;
  if (key) {
    SIGNET_ASSIGN_OR_RETURN(
        secret, ImportKeyMaterial(attrs, *cls, BoolOr(attrs, CKA_TOKEN, false), value_is_pkcs8));
  }
  if (*cls == CKO_CERTIFICATE) {
    SIGNET_ASSIGN_OR_RETURN(attrs[CKA_CHECK_VALUE], CertificateCheckValue(attrs));
  }
  ApplyObjectDefaults(attrs, *cls, KeyOrigin{});
  return PendingObject{std::move(attrs), std::move(secret)};
}

Result<CK_OBJECT_HANDLE> HsmImpl::CopyObject(ClientState& c, CK_SESSION_HANDLE s,
                                             CK_OBJECT_HANDLE o, const Template& t) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  SIGNET_ASSIGN_OR_RETURN(ResolvedObject obj, ResolveObject(c, r, o));
  SIGNET_ASSIGN_OR_RETURN(AttributeMap changes, ValidateTemplate(t));
  if (!BoolOr(obj.record->attributes, CKA_COPYABLE, true)) {
    return MakeError(CKR_ACTION_PROHIBITED, "object is not copyable");
  }
  AttributeMap attrs = obj.record->attributes;
  // §5.7 C_CopyObject: only what may ordinarily change (footnote 8), the
  // one-way switches only one way, plus CKA_TOKEN / CKA_PRIVATE (and
  // CKA_MODIFIABLE / CKA_DESTROYABLE, TRUE -> FALSE only).
  for (auto& [type, value] : changes) {
    SIGNET_TRY(CheckAttributeChange(obj.record->attributes, type, value, /*copy=*/true,
                                    CKR_TEMPLATE_INCONSISTENT));
    attrs[type] = value;
  }
  attrs[CKA_UNIQUE_ID] = NewUniqueId();  // a copy is an object of its own
  std::shared_ptr<const keystore::UnwrappedKey> secret;
  if (obj.record->has_secret) {
    SIGNET_ASSIGN_OR_RETURN(secret, FetchSecret(r, obj));
  }
  return StoreObject(c, s, r, std::move(attrs), std::move(secret));
}

Status HsmImpl::CheckMayDestroy(const Resolved& r, const ResolvedObject& obj) {
  if (!BoolOr(obj.record->attributes, CKA_DESTROYABLE, true)) {
    return MakeError(CKR_ACTION_PROHIBITED, "object is not destroyable");
  }
  if (obj.token_object) return CheckTokenWrite(r, obj.record->is_private());
  return OkStatus();
}

Status HsmImpl::DestroyObject(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE o) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  SIGNET_ASSIGN_OR_RETURN(ResolvedObject obj, ResolveObject(c, r, o));
  SIGNET_TRY(CheckMayDestroy(r, obj));
  if (obj.token_object) SIGNET_TRY(r.slot->Destroy(obj.token_id));
  base::MutexLock lock(&c.mu);
  auto it = c.handles.find(o);
  if (it != c.handles.end()) {
    ForgetSessionObjectLocked(c, it->second);
    c.handles.erase(it);
  }
  if (obj.token_object) c.token_handles.erase({r.slot->id(), obj.token_id});
  return OkStatus();
}

Result<std::vector<CK_OBJECT_HANDLE>> HsmImpl::FindObjects(ClientState& c, CK_SESSION_HANDLE s,
                                                           const Template& t,
                                                           std::size_t max_count) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  AttributeMap tmpl;
  for (const Attribute& a : t) tmpl[a.type] = a.value;  // unknown types simply match nothing
  std::vector<CK_OBJECT_HANDLE> out;
  auto visible = [&](const ObjectRecord& rec) {
    return (!rec.is_private() || r.logged_in_user) && Matches(rec.attributes, tmpl);
  };
  // Asked of the keystore: an object made on another node a moment ago is
  // found even before its notification came.
  SIGNET_TRY(r.slot->RefreshObjects());
  for (const auto& [id, rec] : r.slot->Snapshot()) {
    if (max_count != 0 && out.size() >= max_count) break;
    if (visible(*rec)) out.push_back(HandleForToken(c, r.slot->id(), id));
  }
  base::MutexLock lock(&c.mu);
  for (const auto& [h, entry] : c.handles) {
    if (max_count != 0 && out.size() >= max_count) break;
    if (!entry.token_object && entry.slot == r.slot->id() && visible(*entry.session_record)) {
      out.push_back(h);
    }
  }
  return out;
}

Result<std::vector<AttributeValue>> HsmImpl::GetAttributeValue(
    ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE o,
    const std::vector<CK_ATTRIBUTE_TYPE>& types, CK_RV* overall) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  SIGNET_ASSIGN_OR_RETURN(ResolvedObject obj, ResolveObject(c, r, o));
  const ObjectRecord& rec = *obj.record;
  // Footnote 7 of §4's tables: a key's secret components are revealed only
  // when CKA_SENSITIVE is false and CKA_EXTRACTABLE true.
  const bool readable = !BoolOr(rec.attributes, CKA_SENSITIVE, false) &&
                        BoolOr(rec.attributes, CKA_EXTRACTABLE, true);
  const bool secret_class =
      rec.object_class() == CKO_PRIVATE_KEY || rec.object_class() == CKO_SECRET_KEY;
  *overall = CKR_OK;
  std::vector<AttributeValue> out;
  out.reserve(types.size());
  for (CK_ATTRIBUTE_TYPE type : types) {
    AttributeValue v{type, CKR_OK, {}};
    auto it = rec.attributes.find(type);
    const bool has = it != rec.attributes.end() || ClassHasAttribute(rec.attributes, type);
    if (!has) {
      v.rv = CKR_ATTRIBUTE_TYPE_INVALID;
    } else if (secret_class && IsSecretComponent(rec, type)) {
      // A component the key material cannot give (an RSA key held without
      // its CRT values) cannot be revealed either.
      Result<Bytes> value = readable ? ReadSecretComponent(r, obj, type)
                                     : Result<Bytes>(Error{CKR_ATTRIBUTE_SENSITIVE, ""});
      if (value.ok()) {
        v.value = std::move(*value);
      } else {
        v.rv = CKR_ATTRIBUTE_SENSITIVE;
      }
    } else if (it != rec.attributes.end()) {
      v.value = it->second;
    } else {
      // A class attribute the record lacks (written before it had a
      // default): its default, or empty.
      v.value = ClassDefault(rec.attributes, type).value_or(Bytes{});
    }
    if (v.rv != CKR_OK && *overall == CKR_OK) *overall = v.rv;
    out.push_back(std::move(v));
  }
  return out;
}

Result<Bytes> HsmImpl::ReadSecretComponent(const Resolved& r, const ResolvedObject& obj,
                                           CK_ATTRIBUTE_TYPE type) {
  SIGNET_ASSIGN_OR_RETURN(auto key, FetchSecret(r, obj));
  if (!key) return MakeError(CKR_GENERAL_ERROR, "key without its secret");
  if (obj.record->object_class() == CKO_SECRET_KEY) {
    if (type != CKA_VALUE) return MakeError(CKR_GENERAL_ERROR, "not a secret key component");
    return Bytes(key->value.begin(), key->value.end());
  }
  std::optional<crypto::PrivateComponent> component = ComponentOf(type);
  if (!component || !key->private_key) {
    return MakeError(CKR_GENERAL_ERROR, "not a private key component");
  }
  SIGNET_ASSIGN_OR_RETURN(SecureBytes value,
                          crypto::ExportPrivateComponent(*key->private_key, *component));
  // The reply's buffer is wiped by the wire layer after sending (docs/SECURITY.md).
  return Bytes(value.begin(), value.end());
}

Status HsmImpl::SetAttributeValue(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE o,
                                  const Template& t) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  SIGNET_ASSIGN_OR_RETURN(ResolvedObject obj, ResolveObject(c, r, o));
  SIGNET_ASSIGN_OR_RETURN(AttributeMap changes, ValidateTemplate(t));
  const AttributeMap& attrs = obj.record->attributes;
  if (!BoolOr(attrs, CKA_MODIFIABLE, true)) {
    return MakeError(CKR_ACTION_PROHIBITED, "object is not modifiable");
  }
  // Footnote 8 (may be modified) and the one-way switches 11 / 12 of §4's
  // tables; re-setting a latched attribute to its value is no change.
  for (const auto& [type, value] : changes) {
    SIGNET_TRY(
        CheckAttributeChange(attrs, type, value, /*copy=*/false, CKR_ATTRIBUTE_TYPE_INVALID));
  }
  AttributeMap changed = attrs;
  for (const auto& [type, value] : changes) changed[type] = value;
  SIGNET_TRY(CheckKeyRoles(changed));  // a key's role never changes into both
  if (obj.token_object) {
    SIGNET_TRY(CheckTokenWrite(r, obj.record->is_private()));
    return r.slot->Update(obj.token_id, changes);
  }
  auto updated = std::make_shared<ObjectRecord>(*obj.record);
  for (const auto& [type, value] : changes) updated->attributes[type] = value;
  base::MutexLock lock(&c.mu);
  auto it = c.handles.find(o);
  if (it == c.handles.end()) return MakeError(CKR_OBJECT_HANDLE_INVALID, "object was destroyed");
  // The connection's session-object bytes follow the object's new size.
  std::size_t before = it->second.bytes;
  std::size_t secret = before - std::min(before, ObjectBytes(obj.record->attributes, 0));
  std::size_t after = ObjectBytes(updated->attributes, secret);
  if (after > before) SIGNET_TRY(CheckSessionObjectRoomLocked(c, 0, after - before));
  c.session_object_bytes =
      c.session_object_bytes - std::min(before, c.session_object_bytes) + after;
  it->second.bytes = after;
  it->second.session_record = std::move(updated);
  return OkStatus();
}

}  // namespace signet::core

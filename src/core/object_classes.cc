#include "core/object_classes.h"

#include "base/mechanism_table.h"
#include "signet/protocol.hpp"

namespace signet::core {
namespace {

// Kind: a node of the object hierarchy (§4); a row for a kind applies to
// every object below it (kKey: public, private and secret keys).
enum class Kind {
  kStorage,
  kData,
  kCertificate,
  kX509,
  kKey,
  kPublicKey,
  kPrivateKey,
  kSecretKey,
  kRsaPublic,
  kRsaPrivate,
  kEcPublic,   // CKK_EC, CKK_EC_EDWARDS and CKK_EC_MONTGOMERY
  kEcPrivate,  // CKK_EC, CKK_EC_EDWARDS and CKK_EC_MONTGOMERY
  kAes,
  kGenericSecret,  // CKK_GENERIC_SECRET and the PKCS#11 3.0 HMAC key types
  kDes,            // CKK_DES, CKK_DES2 and CKK_DES3
  kDhPublic,
  kDhPrivate,
};

// Default: the value an attribute has when nobody gave one.
enum class Default { kNone, kEmpty, kFalse, kTrue, kZero, kSha1 };

struct ClassAttribute {
  Kind kind;
  CK_ATTRIBUTE_TYPE type;
  Default value;
  unsigned flags;
};

constexpr unsigned kReq = kRequiredOnCreate;
constexpr unsigned kSet = kSettable;
constexpr unsigned kCopy = kCopyChangeable;
constexpr unsigned kOnlyOn = kLatchedTrue;    // may only go FALSE -> TRUE
constexpr unsigned kOnlyOff = kLatchedFalse;  // may only go TRUE -> FALSE
constexpr unsigned kTok = kComputed;
using D = Default;
using K = Kind;

// The defaults of boolean usage flags are signet's (§4: "token-specific")
// and lean safe: private and secret keys are private, sensitive and not
// extractable unless the template says otherwise.
constexpr ClassAttribute kClassAttributes[] = {
    // Storage objects (§4.4); CKA_CLASS is set from the template.
    {K::kStorage, CKA_CLASS, D::kNone, kReq},
    {K::kStorage, CKA_TOKEN, D::kFalse, kCopy},
    {K::kStorage, CKA_MODIFIABLE, D::kTrue, kCopy | kOnlyOff},
    {K::kStorage, CKA_COPYABLE, D::kTrue, kSet | kOnlyOff},
    {K::kStorage, CKA_DESTROYABLE, D::kTrue, kCopy | kOnlyOff},
    {K::kStorage, CKA_LABEL, D::kEmpty, kSet},
    {K::kStorage, CKA_UNIQUE_ID, D::kNone, kTok},
    // Data objects (§4.5).
    {K::kData, CKA_PRIVATE, D::kFalse, kCopy},
    {K::kData, CKA_APPLICATION, D::kEmpty, 0},
    {K::kData, CKA_OBJECT_ID, D::kEmpty, 0},
    {K::kData, CKA_VALUE, D::kEmpty, 0},
    // Certificates (§4.6) and X.509 public key certificates (§4.6.3).
    {K::kCertificate, CKA_PRIVATE, D::kFalse, kCopy},
    {K::kCertificate, CKA_CERTIFICATE_TYPE, D::kNone, kReq},
    {K::kCertificate, CKA_TRUSTED, D::kFalse, 0},
    {K::kCertificate, CKA_CERTIFICATE_CATEGORY, D::kZero, 0},
    {K::kCertificate, CKA_CHECK_VALUE, D::kNone, kTok},
    {K::kCertificate, CKA_START_DATE, D::kEmpty, 0},
    {K::kCertificate, CKA_END_DATE, D::kEmpty, 0},
    {K::kCertificate, CKA_PUBLIC_KEY_INFO, D::kEmpty, 0},
    {K::kX509, CKA_SUBJECT, D::kNone, kReq},
    {K::kX509, CKA_ID, D::kEmpty, kSet},
    {K::kX509, CKA_ISSUER, D::kEmpty, kSet},
    {K::kX509, CKA_SERIAL_NUMBER, D::kEmpty, kSet},
    {K::kX509, CKA_VALUE, D::kNone, kReq},
    {K::kX509, CKA_URL, D::kEmpty, 0},
    {K::kX509, CKA_HASH_OF_SUBJECT_PUBLIC_KEY, D::kEmpty, 0},
    {K::kX509, CKA_HASH_OF_ISSUER_PUBLIC_KEY, D::kEmpty, 0},
    {K::kX509, CKA_JAVA_MIDP_SECURITY_DOMAIN, D::kZero, 0},
    {K::kX509, CKA_NAME_HASH_ALGORITHM, D::kSha1, 0},
    // Keys (§4.7).
    {K::kKey, CKA_KEY_TYPE, D::kNone, kReq},
    {K::kKey, CKA_ID, D::kEmpty, kSet},
    {K::kKey, CKA_START_DATE, D::kEmpty, kSet},
    {K::kKey, CKA_END_DATE, D::kEmpty, kSet},
    {K::kKey, CKA_DERIVE, D::kFalse, kSet},
    {K::kKey, CKA_LOCAL, D::kNone, kTok},
    {K::kKey, CKA_KEY_GEN_MECHANISM, D::kNone, kTok},
    {K::kKey, CKA_ALLOWED_MECHANISMS, D::kEmpty, 0},
    {K::kKey, CKA_DERIVE_TEMPLATE, D::kEmpty, 0},
    // Public keys (§4.8).
    {K::kPublicKey, CKA_PRIVATE, D::kFalse, kCopy},
    {K::kPublicKey, CKA_SUBJECT, D::kEmpty, kSet},
    {K::kPublicKey, CKA_ENCRYPT, D::kFalse, kSet},
    {K::kPublicKey, CKA_VERIFY, D::kTrue, kSet},
    {K::kPublicKey, CKA_VERIFY_RECOVER, D::kFalse, kSet},
    {K::kPublicKey, CKA_WRAP, D::kFalse, kSet},
    {K::kPublicKey, CKA_TRUSTED, D::kFalse, 0},
    {K::kPublicKey, CKA_WRAP_TEMPLATE, D::kEmpty, 0},
    {K::kPublicKey, CKA_PUBLIC_KEY_INFO, D::kEmpty, 0},
    // Private keys (§4.9).
    {K::kPrivateKey, CKA_PRIVATE, D::kTrue, kCopy},
    {K::kPrivateKey, CKA_SUBJECT, D::kEmpty, kSet},
    {K::kPrivateKey, CKA_SENSITIVE, D::kTrue, kSet | kOnlyOn},
    {K::kPrivateKey, CKA_DECRYPT, D::kFalse, kSet},
    {K::kPrivateKey, CKA_SIGN, D::kTrue, kSet},
    {K::kPrivateKey, CKA_SIGN_RECOVER, D::kFalse, kSet},
    {K::kPrivateKey, CKA_UNWRAP, D::kFalse, kSet},
    {K::kPrivateKey, CKA_EXTRACTABLE, D::kFalse, kSet | kOnlyOff},
    {K::kPrivateKey, CKA_ALWAYS_SENSITIVE, D::kNone, kTok},
    {K::kPrivateKey, CKA_NEVER_EXTRACTABLE, D::kNone, kTok},
    {K::kPrivateKey, CKA_WRAP_WITH_TRUSTED, D::kFalse, kSet | kOnlyOn},
    {K::kPrivateKey, CKA_UNWRAP_TEMPLATE, D::kEmpty, 0},
    {K::kPrivateKey, CKA_ALWAYS_AUTHENTICATE, D::kFalse, 0},
    {K::kPrivateKey, CKA_PUBLIC_KEY_INFO, D::kEmpty, 0},
    // Secret keys (§4.10).
    {K::kSecretKey, CKA_PRIVATE, D::kTrue, kCopy},
    {K::kSecretKey, CKA_SENSITIVE, D::kTrue, kSet | kOnlyOn},
    {K::kSecretKey, CKA_ENCRYPT, D::kTrue, kSet},
    {K::kSecretKey, CKA_DECRYPT, D::kTrue, kSet},
    {K::kSecretKey, CKA_SIGN, D::kFalse, kSet},
    {K::kSecretKey, CKA_VERIFY, D::kFalse, kSet},
    {K::kSecretKey, CKA_WRAP, D::kTrue, kSet},
    {K::kSecretKey, CKA_UNWRAP, D::kTrue, kSet},
    {K::kSecretKey, CKA_EXTRACTABLE, D::kFalse, kSet | kOnlyOff},
    {K::kSecretKey, CKA_ALWAYS_SENSITIVE, D::kNone, kTok},
    {K::kSecretKey, CKA_NEVER_EXTRACTABLE, D::kNone, kTok},
    {K::kSecretKey, CKA_CHECK_VALUE, D::kEmpty, kTok},
    {K::kSecretKey, CKA_WRAP_WITH_TRUSTED, D::kFalse, kSet | kOnlyOn},
    {K::kSecretKey, CKA_TRUSTED, D::kFalse, 0},
    {K::kSecretKey, CKA_WRAP_TEMPLATE, D::kEmpty, 0},
    {K::kSecretKey, CKA_UNWRAP_TEMPLATE, D::kEmpty, 0},
    // RSA (§2.1.2, §2.1.3).
    {K::kRsaPublic, CKA_MODULUS, D::kNone, kReq},
    {K::kRsaPublic, CKA_MODULUS_BITS, D::kNone, kTok},
    {K::kRsaPublic, CKA_PUBLIC_EXPONENT, D::kNone, kReq},
    {K::kRsaPrivate, CKA_MODULUS, D::kNone, kReq},
    {K::kRsaPrivate, CKA_PUBLIC_EXPONENT, D::kNone, 0},
    {K::kRsaPrivate, CKA_PRIVATE_EXPONENT, D::kNone, kReq},
    {K::kRsaPrivate, CKA_PRIME_1, D::kNone, 0},
    {K::kRsaPrivate, CKA_PRIME_2, D::kNone, 0},
    {K::kRsaPrivate, CKA_EXPONENT_1, D::kNone, 0},
    {K::kRsaPrivate, CKA_EXPONENT_2, D::kNone, 0},
    {K::kRsaPrivate, CKA_COEFFICIENT, D::kNone, 0},
    // EC (§2.3.3, §2.3.4) and Edwards (3.0 §6.3.5, §6.3.6).
    {K::kEcPublic, CKA_EC_PARAMS, D::kNone, kReq},
    {K::kEcPublic, CKA_EC_POINT, D::kNone, kReq},
    {K::kEcPrivate, CKA_EC_PARAMS, D::kNone, kReq},
    {K::kEcPrivate, CKA_VALUE, D::kNone, kReq},
    // AES (§2.8.2).
    {K::kAes, CKA_VALUE, D::kNone, kReq},
    {K::kAes, CKA_VALUE_LEN, D::kNone, kTok},
    // Generic secrets (v2.40 "Generic secret key objects"; 3.0 gives its HMAC
    // key types the same attributes).
    {K::kGenericSecret, CKA_VALUE, D::kNone, kReq},
    {K::kGenericSecret, CKA_VALUE_LEN, D::kNone, kTok},
    // Triple DES (v2.40 "DES2 / DES3 secret key objects": CKA_VALUE only, no
    // CKA_VALUE_LEN, the length is the type's).
    {K::kDes, CKA_VALUE, D::kNone, kReq},
    // Diffie-Hellman (v2.40 section 2.5.2, 2.5.3): the group, and y or x.
    // CKA_VALUE_BITS may ask for x's length on generation; the token sets
    // it to x's length.
    {K::kDhPublic, CKA_PRIME, D::kNone, kReq},
    {K::kDhPublic, CKA_BASE, D::kNone, kReq},
    {K::kDhPublic, CKA_VALUE, D::kNone, kReq},
    {K::kDhPrivate, CKA_PRIME, D::kNone, kReq},
    {K::kDhPrivate, CKA_BASE, D::kNone, kReq},
    {K::kDhPrivate, CKA_VALUE, D::kNone, kReq},
    {K::kDhPrivate, CKA_VALUE_BITS, D::kNone, 0},
};

constexpr CK_ULONG kUnknown = CK_UNAVAILABLE_INFORMATION;

bool IsKeyClass(CK_OBJECT_CLASS c) {
  return c == CKO_PUBLIC_KEY || c == CKO_PRIVATE_KEY || c == CKO_SECRET_KEY;
}
bool IsEcType(CK_KEY_TYPE t) {
  return t == CKK_EC || t == CKK_EC_EDWARDS || t == CKK_EC_MONTGOMERY;
}

// Applies: does a row of `kind` hold for this class / key type / cert type?
bool Applies(Kind kind, CK_OBJECT_CLASS cls, CK_KEY_TYPE key, CK_CERTIFICATE_TYPE cert) {
  switch (kind) {
    case K::kStorage:
      return true;
    case K::kData:
      return cls == CKO_DATA;
    case K::kCertificate:
      return cls == CKO_CERTIFICATE;
    case K::kX509:
      return cls == CKO_CERTIFICATE && cert == CKC_X_509;
    case K::kKey:
      return IsKeyClass(cls);
    case K::kPublicKey:
      return cls == CKO_PUBLIC_KEY;
    case K::kPrivateKey:
      return cls == CKO_PRIVATE_KEY;
    case K::kSecretKey:
      return cls == CKO_SECRET_KEY;
    case K::kRsaPublic:
      return cls == CKO_PUBLIC_KEY && key == CKK_RSA;
    case K::kRsaPrivate:
      return cls == CKO_PRIVATE_KEY && key == CKK_RSA;
    case K::kEcPublic:
      return cls == CKO_PUBLIC_KEY && IsEcType(key);
    case K::kEcPrivate:
      return cls == CKO_PRIVATE_KEY && IsEcType(key);
    case K::kAes:
      return cls == CKO_SECRET_KEY && key == CKK_AES;
    case K::kGenericSecret:
      return cls == CKO_SECRET_KEY && IsGenericSecretKeyType(key);
    case K::kDes:
      return cls == CKO_SECRET_KEY && (key == CKK_DES || key == CKK_DES2 || key == CKK_DES3);
    case K::kDhPublic:
      return cls == CKO_PUBLIC_KEY && key == CKK_DH;
    case K::kDhPrivate:
      return cls == CKO_PRIVATE_KEY && key == CKK_DH;
  }
  return false;
}

// ForEachRow calls fn(row) for every row that applies to `attrs`' class.
template <typename Fn>
void ForEachRow(const AttributeMap& attrs, Fn&& fn) {
  const CK_OBJECT_CLASS cls = FindUlong(attrs, CKA_CLASS).value_or(kUnknown);
  const CK_KEY_TYPE key = FindUlong(attrs, CKA_KEY_TYPE).value_or(kUnknown);
  const CK_CERTIFICATE_TYPE cert = FindUlong(attrs, CKA_CERTIFICATE_TYPE).value_or(kUnknown);
  for (const ClassAttribute& row : kClassAttributes) {
    if (Applies(row.kind, cls, key, cert)) fn(row);
  }
}

const ClassAttribute* FindRow(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type) {
  const ClassAttribute* found = nullptr;
  ForEachRow(attrs, [&](const ClassAttribute& row) {
    if (row.type == type && found == nullptr) found = &row;
  });
  return found;
}

std::optional<Bytes> DefaultBytes(Default d) {
  switch (d) {
    case D::kNone:
      return std::nullopt;
    case D::kEmpty:
      return Bytes{};
    case D::kFalse:
      return BoolBytes(false);
    case D::kTrue:
      return BoolBytes(true);
    case D::kZero:
      return UlongBytes(0);
    case D::kSha1:
      return UlongBytes(CKM_SHA_1);
  }
  return std::nullopt;
}

std::string NameOf(CK_ATTRIBUTE_TYPE type) {
  const AttributeRule* rule = FindAttributeRule(type);
  return rule != nullptr ? std::string(rule->name) : "attribute " + std::to_string(type);
}

}  // namespace

bool ClassHasAttribute(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type) {
  return FindRow(attrs, type) != nullptr;
}

std::optional<unsigned> ClassAttributeFlagsOf(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type) {
  const ClassAttribute* row = FindRow(attrs, type);
  if (row == nullptr) return std::nullopt;
  return row->flags;
}

std::optional<Bytes> ClassDefault(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type) {
  const ClassAttribute* row = FindRow(attrs, type);
  return row == nullptr ? std::nullopt : DefaultBytes(row->value);
}

void FillClassDefaults(AttributeMap& attrs) {
  std::vector<std::pair<CK_ATTRIBUTE_TYPE, Bytes>> missing;
  ForEachRow(attrs, [&](const ClassAttribute& row) {
    if (attrs.count(row.type) != 0) return;
    if (std::optional<Bytes> value = DefaultBytes(row.value)) {
      missing.emplace_back(row.type, std::move(*value));
    }
  });
  for (auto& [type, value] : missing) attrs.emplace(type, std::move(value));
}

Status CheckTemplateFitsClass(const AttributeMap& attrs, bool check_required) {
  const bool private_key = FindUlong(attrs, CKA_CLASS) == CKO_PRIVATE_KEY;
  // signet's own form of a private key: CKA_VALUE holding PKCS#8 DER, which
  // names its key type and holds every component.
  const bool pkcs8_private_key = private_key && attrs.count(CKA_VALUE) != 0;
  const bool typed = attrs.count(CKA_KEY_TYPE) != 0;
  // Missing first: without CKA_CERTIFICATE_TYPE or CKA_KEY_TYPE the
  // type-specific attributes would look foreign.
  if (check_required) {
    Status status = OkStatus();
    ForEachRow(attrs, [&](const ClassAttribute& row) {
      if (!status.ok() || (row.flags & kRequiredOnCreate) == 0 || attrs.count(row.type) != 0) {
        return;
      }
      if (pkcs8_private_key && (row.kind == K::kRsaPrivate || row.kind == K::kEcPrivate ||
                                row.kind == K::kDhPrivate || row.type == CKA_KEY_TYPE)) {
        return;
      }
      status = MakeError(CKR_TEMPLATE_INCOMPLETE, NameOf(row.type) + " is required for this class");
    });
    SIGNET_TRY(status);
  }
  if (pkcs8_private_key && !typed) return OkStatus();  // the type comes from the PKCS#8
  for (const auto& [type, value] : attrs) {
    if (private_key && type == CKA_VALUE) continue;  // signet's PKCS#8 form, any key type
    if (!ClassHasAttribute(attrs, type)) {
      return MakeError(CKR_TEMPLATE_INCONSISTENT,
                       NameOf(type) + " does not belong to this object class");
    }
  }
  return OkStatus();
}

Status CheckAttributeChange(const AttributeMap& attrs, CK_ATTRIBUTE_TYPE type, const Bytes& value,
                            bool copy, CK_RV missing_rv) {
  const ClassAttribute* row = FindRow(attrs, type);
  if (row == nullptr) {
    return MakeError(missing_rv, NameOf(type) + " does not belong to this object class");
  }
  auto current = attrs.find(type);
  std::optional<Bytes> fallback;
  const Bytes* now = nullptr;
  if (current != attrs.end()) {
    now = &current->second;
  } else if ((fallback = DefaultBytes(row->value))) {
    now = &*fallback;
  }
  if (now != nullptr && *now == value) return OkStatus();  // not a change
  const bool changeable =
      (row->flags & kSettable) != 0 || (copy && (row->flags & kCopyChangeable) != 0);
  if (!changeable) {
    return MakeError(CKR_ATTRIBUTE_READ_ONLY,
                     NameOf(type) + (copy ? " cannot change on copy" : " is read-only"));
  }
  const bool was_true = now != nullptr && now->size() == 1 && (*now)[0] != CK_FALSE;
  if (((row->flags & kLatchedTrue) != 0 && was_true) ||
      ((row->flags & kLatchedFalse) != 0 && !was_true)) {
    return MakeError(CKR_ATTRIBUTE_READ_ONLY, NameOf(type) + " can only be tightened");
  }
  return OkStatus();
}

Status CheckMechanismAllowed(const AttributeMap& key, CK_MECHANISM_TYPE mechanism) {
  const std::vector<CK_ULONG> allowed = UlongArray(key, CKA_ALLOWED_MECHANISMS);
  if (allowed.empty()) return OkStatus();
  for (CK_ULONG m : allowed) {
    if (m == mechanism) return OkStatus();
  }
  return MakeError(CKR_MECHANISM_INVALID, "mechanism not in the key's CKA_ALLOWED_MECHANISMS");
}

Status CheckFitsGeneratedClass(const AttributeMap& tmpl, CK_OBJECT_CLASS cls,
                               CK_KEY_TYPE key_type) {
  AttributeMap typed = tmpl;
  typed[CKA_CLASS] = UlongBytes(cls);
  typed[CKA_KEY_TYPE] = UlongBytes(key_type);
  return CheckTemplateFitsClass(typed, /*check_required=*/false);
}

}  // namespace signet::core

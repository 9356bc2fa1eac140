// Hsm: key generation, wrapping and unwrapping (PKCS#11 §5.14).
#include <algorithm>

#include "core/hsm_internal.h"
#include "core/key_defaults.h"
#include "core/key_pair_attributes.h"
#include "core/key_policy.h"
#include "core/object_classes.h"
#include "core/secret_keys.h"
#include "crypto/dh.h"
#include "crypto/symmetric.h"

namespace signet::core {
namespace {

// KeySpecFromTemplates reads what to generate from the public template:
// CKA_MODULUS_BITS / CKA_PUBLIC_EXPONENT (RSA), CKA_PRIME and CKA_BASE (DH:
// an RFC 7919 group, else CKR_ATTRIBUTE_VALUE_INVALID, docs/PKCS11.md
// "Diffie-Hellman") or CKA_EC_PARAMS.
Result<crypto::KeySpec> KeySpecFromTemplates(const MechanismRow& rule, const AttributeMap& pub) {
  crypto::KeySpec spec;
  if (rule.key_type == CKK_DH) {
    auto prime = pub.find(CKA_PRIME);
    auto base = pub.find(CKA_BASE);
    if (prime == pub.end() || base == pub.end()) {
      return MakeError(CKR_TEMPLATE_INCOMPLETE, "CKA_PRIME and CKA_BASE are required");
    }
    SIGNET_ASSIGN_OR_RETURN(spec.type, crypto::DhGroupOf(prime->second, base->second));
    return spec;
  }
  if (rule.key_type == CKK_RSA) {
    auto bits = FindUlong(pub, CKA_MODULUS_BITS);
    if (!bits) return MakeError(CKR_TEMPLATE_INCOMPLETE, "CKA_MODULUS_BITS is required");
    if (*bits < rule.min_key_size || *bits > rule.max_key_size) {
      return MakeError(CKR_KEY_SIZE_RANGE, "RSA keys are 1024-4096 bits");
    }
    auto e = pub.find(CKA_PUBLIC_EXPONENT);
    if (e != pub.end()) {
      Bytes f4 = {0x01, 0x00, 0x01};
      Bytes given(std::find_if(e->second.begin(), e->second.end(), [](auto b) { return b != 0; }),
                  e->second.end());
      if (given != f4) return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "only e = 65537 is supported");
    }
    spec.type = crypto::KeyType::kRsa;
    spec.rsa_bits = static_cast<int>(*bits);
    return spec;
  }
  auto params = pub.find(CKA_EC_PARAMS);
  if (params == pub.end()) {
    if (rule.key_type != CKK_EC_EDWARDS)
      return MakeError(CKR_TEMPLATE_INCOMPLETE, "CKA_EC_PARAMS is required");
    spec.type = crypto::KeyType::kEd25519;
    return spec;
  }
  SIGNET_ASSIGN_OR_RETURN(spec.type, crypto::KeyTypeFromEcParams(params->second));
  SIGNET_TRY(CheckDaemonKeyType(spec.type));
  if (PkcsKeyType(spec.type) != rule.key_type) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT, "curve does not fit the mechanism");
  }
  return spec;
}

Status CheckKeyTypeAttr(const AttributeMap& attrs, CK_KEY_TYPE want) {
  auto type = FindUlong(attrs, CKA_KEY_TYPE);
  if (type && *type != want)
    return MakeError(CKR_TEMPLATE_INCONSISTENT, "CKA_KEY_TYPE does not fit");
  return OkStatus();
}

// TemplateAttribute reads a template-valued attribute of a key as a map
// (empty when absent).
Result<AttributeMap> TemplateAttribute(const AttributeMap& key, CK_ATTRIBUTE_TYPE type) {
  auto it = key.find(type);
  if (it == key.end() || it->second.empty()) return AttributeMap{};
  SIGNET_ASSIGN_OR_RETURN(Template nested, DecodeTemplateValue(it->second));
  return ValidateTemplate(nested);
}

// WrappedValueLength: the length of the key an unwrap template describes,
// which the zero-padding wraps (ECB, CBC) cut their output to: its
// CKA_VALUE_LEN, else a DES type's own length; 0 when it names none.
std::size_t WrappedValueLength(const AttributeMap& attrs) {
  if (auto len = FindUlong(attrs, CKA_VALUE_LEN)) return static_cast<std::size_t>(*len);
  const auto type = FindUlong(attrs, CKA_KEY_TYPE);
  return type ? FixedSecretLength(*type) : 0;
}

Status CheckClassAttr(const AttributeMap& attrs, CK_OBJECT_CLASS want) {
  auto cls = FindUlong(attrs, CKA_CLASS);
  if (cls && *cls != want) return MakeError(CKR_TEMPLATE_INCONSISTENT, "CKA_CLASS does not fit");
  return OkStatus();
}

}  // namespace

Result<std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE>> HsmImpl::GenerateKeyPair(
    ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m, const Template& pub_t,
    const Template& priv_t, bool unique_label) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  SIGNET_ASSIGN_OR_RETURN(const MechanismRow* rule, MechanismFor(m.type, CKF_GENERATE_KEY_PAIR));
  SIGNET_ASSIGN_OR_RETURN(AttributeMap pub, ValidateTemplate(pub_t));
  SIGNET_ASSIGN_OR_RETURN(AttributeMap priv, ValidateTemplate(priv_t));
  SIGNET_TRY(CheckNoComputedAttributes(pub, true));
  SIGNET_TRY(CheckNoComputedAttributes(priv, true));
  SIGNET_TRY(CheckClassAttr(pub, CKO_PUBLIC_KEY));
  SIGNET_TRY(CheckClassAttr(priv, CKO_PRIVATE_KEY));
  SIGNET_TRY(CheckKeyTypeAttr(pub, rule->key_type));
  SIGNET_TRY(CheckKeyTypeAttr(priv, rule->key_type));
  SIGNET_TRY(CheckFitsGeneratedClass(pub, CKO_PUBLIC_KEY, rule->key_type));
  SIGNET_TRY(CheckFitsGeneratedClass(priv, CKO_PRIVATE_KEY, rule->key_type));
  SIGNET_ASSIGN_OR_RETURN(crypto::KeySpec spec, KeySpecFromTemplates(*rule, pub));
  // Check permissions before the (possibly long) generation.
  bool any_token = BoolOr(pub, CKA_TOKEN, false) || BoolOr(priv, CKA_TOKEN, false);
  if (any_token) SIGNET_TRY(CheckTokenWrite(r, BoolOr(pub, CKA_PRIVATE, false)));
  if (BoolOr(priv, CKA_PRIVATE, true) && !r.logged_in_user) {
    return MakeError(CKR_USER_NOT_LOGGED_IN, "private keys need a user login");
  }
  std::optional<Bytes> label;
  if (unique_label) {
    bool token_pair = BoolOr(pub, CKA_TOKEN, false) && BoolOr(priv, CKA_TOKEN, false);
    if (!token_pair) {
      return MakeError(CKR_TEMPLATE_INCONSISTENT, "unique_label applies to token key pairs");
    }
    SIGNET_ASSIGN_OR_RETURN(label, CommonLabel({&pub, &priv}));
  }
  const Bytes* label_check = label ? &*label : nullptr;
  // A pooled type costs a database transaction instead (key_pool.h).
  SIGNET_ASSIGN_OR_RETURN(auto pooled,
                          GenerateKeyPairFromPool(c, s, r, spec, m.type, pub, priv, label_check));
  if (pooled) return *pooled;
  // CKA_VALUE_BITS asks for a DH private value's length (v2.40 section 2.5.5).
  const crypto::GenerateOptions options{
      .dh_private_bits = static_cast<std::size_t>(FindUlong(priv, CKA_VALUE_BITS).value_or(0))};
  SIGNET_ASSIGN_OR_RETURN(crypto::PrivateKey key, crypto::PrivateKey::Generate(spec, options));
  return StoreGeneratedKeyPair(c, s, r, m.type, std::move(key), std::move(pub), std::move(priv),
                               label_check);
}

Result<std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE>> HsmImpl::StoreGeneratedKeyPair(
    ClientState& c, CK_SESSION_HANDLE s, const Resolved& r, CK_MECHANISM_TYPE mechanism,
    crypto::PrivateKey key, AttributeMap pub, AttributeMap priv, const Bytes* unique_label) {
  SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey public_key, key.Public());
  SIGNET_ASSIGN_OR_RETURN(AttributeMap derived, PublicKeyAttributes(public_key));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes der, key.ToPkcs8Der());
  CompleteKeyPairAttributes(derived, mechanism, pub, priv);
  if (crypto::IsDh(key.spec().type)) {
    SIGNET_ASSIGN_OR_RETURN(std::size_t bits, crypto::DhPrivateValueBits(key));
    priv[CKA_VALUE_BITS] = UlongBytes(static_cast<CK_ULONG>(bits));
  }
  auto secret = std::make_shared<keystore::UnwrappedKey>();
  secret->value = std::move(der);
  secret->private_key = std::move(key);
  if (BoolOr(pub, CKA_TOKEN, false) && BoolOr(priv, CKA_TOKEN, false)) {
    // A token pair: both halves in one keystore transaction, so a crash
    // leaves both or neither (issue 10 defect 8).
    std::vector<PendingObject> halves;
    halves.push_back({std::move(priv), std::move(secret)});
    halves.push_back({std::move(pub), nullptr});
    SIGNET_ASSIGN_OR_RETURN(auto handles, StoreTokenObjects(c, r, std::move(halves), unique_label));
    return std::make_pair(handles[1], handles[0]);
  }
  if (unique_label != nullptr) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT, "unique_label applies to token key pairs");
  }
  // Session (or mixed) pairs live in memory: private first, so a failure
  // to store it leaves no orphan public key.
  SIGNET_ASSIGN_OR_RETURN(CK_OBJECT_HANDLE priv_h,
                          StoreObject(c, s, r, std::move(priv), std::move(secret)));
  auto pub_h = StoreObject(c, s, r, std::move(pub), nullptr);
  if (!pub_h.ok()) {
    (void)DestroyObject(c, s, priv_h);
    return std::move(pub_h).error();
  }
  return std::make_pair(*pub_h, priv_h);
}

Result<CK_OBJECT_HANDLE> HsmImpl::GenerateKey(ClientState& c, CK_SESSION_HANDLE s,
                                              const Mechanism& m, const Template& t) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  SIGNET_ASSIGN_OR_RETURN(const MechanismRow* rule, MechanismFor(m.type, CKF_GENERATE));
  SIGNET_ASSIGN_OR_RETURN(AttributeMap attrs, ValidateTemplate(t));
  SIGNET_TRY(CheckNoComputedAttributes(attrs, true));
  SIGNET_TRY(CheckClassAttr(attrs, CKO_SECRET_KEY));
  SIGNET_TRY(CheckKeyTypeAttr(attrs, rule->key_type));
  SIGNET_TRY(CheckFitsGeneratedClass(attrs, CKO_SECRET_KEY, rule->key_type));
  SIGNET_ASSIGN_OR_RETURN(std::size_t len, GeneratedSecretLength(*rule, attrs));
  auto secret = std::make_shared<keystore::UnwrappedKey>();
  SIGNET_ASSIGN_OR_RETURN(secret->value, NewSecretValue(rule->key_type, len));
  attrs[CKA_KEY_TYPE] = UlongBytes(rule->key_type);
  SIGNET_ASSIGN_OR_RETURN(attrs[CKA_CHECK_VALUE],
                          SecretKeyCheckValue(rule->key_type, secret->value));
  ApplyObjectDefaults(attrs, CKO_SECRET_KEY, KeyOrigin{true, m.type});
  return StoreObject(c, s, r, std::move(attrs), std::move(secret));
}

Result<Bytes> HsmImpl::WrapKey(ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m,
                               CK_OBJECT_HANDLE wrapping_key, CK_OBJECT_HANDLE key) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  SIGNET_ASSIGN_OR_RETURN(const MechanismRow* rule, MechanismFor(m.type, CKF_WRAP));
  auto wrapper = ResolveObject(c, r, wrapping_key);
  if (!wrapper.ok()) return MakeError(CKR_WRAPPING_KEY_HANDLE_INVALID, wrapper.error().message);
  SIGNET_ASSIGN_OR_RETURN(ResolvedObject target, ResolveObject(c, r, key));
  const AttributeMap& wa = wrapper->record->attributes;
  // A key pair's mechanism wraps under the public key, the others under a
  // secret key.
  if (!AcceptsKeyType(*rule, wrapper->record->key_type()) ||
      wrapper->record->object_class() != (UsesKeyPair(*rule) ? CKO_PUBLIC_KEY : CKO_SECRET_KEY)) {
    return MakeError(CKR_WRAPPING_KEY_TYPE_INCONSISTENT,
                     "the wrapping key's type does not fit " + std::string(rule->name));
  }
  if (!BoolOr(wa, CKA_WRAP, false))
    return MakeError(CKR_KEY_FUNCTION_NOT_PERMITTED, "CKA_WRAP is false");
  if (!CheckKeyRoles(wa).ok()) {
    return MakeError(CKR_KEY_FUNCTION_NOT_PERMITTED, "the wrapping key also encrypts data");
  }
  SIGNET_TRY(CheckMechanismAllowed(wa, m.type));
  if (!target.record->has_secret)
    return MakeError(CKR_KEY_NOT_WRAPPABLE, "only private and secret keys wrap");
  if (target.record->object_class() == CKO_PRIVATE_KEY && !WrapsPrivateKeys(*rule)) {
    return MakeError(CKR_KEY_NOT_WRAPPABLE,
                     std::string(rule->name) + " wraps secret keys only (docs/PKCS11.md)");
  }
  if (!BoolOr(target.record->attributes, CKA_EXTRACTABLE, false)) {
    return MakeError(CKR_KEY_UNEXTRACTABLE, "CKA_EXTRACTABLE is false");
  }
  // A sensitive key wraps only under a key whose value no one outside knows
  // (key_policy.h: the wrap-with-a-known-key attack).
  if (BoolOr(target.record->attributes, CKA_SENSITIVE, false) && !MayWrapSensitiveKeys(wa)) {
    return MakeError(CKR_KEY_NOT_WRAPPABLE,
                     "a sensitive key wraps only under a CKA_NEVER_EXTRACTABLE or CKA_TRUSTED key");
  }
  // CKA_WRAP_WITH_TRUSTED (§4.9, §4.10): such a key wraps only under a
  // CKA_TRUSTED key.
  if (BoolOr(target.record->attributes, CKA_WRAP_WITH_TRUSTED, false) &&
      !BoolOr(wa, CKA_TRUSTED, false)) {
    return MakeError(CKR_KEY_NOT_WRAPPABLE, "the key may be wrapped only with a trusted key");
  }
  // CKA_WRAP_TEMPLATE (§4.8, §4.10): keys that do not match it cannot be
  // wrapped with this key.
  SIGNET_ASSIGN_OR_RETURN(AttributeMap wrap_template, TemplateAttribute(wa, CKA_WRAP_TEMPLATE));
  if (!Matches(target.record->attributes, wrap_template)) {
    return MakeError(CKR_KEY_NOT_WRAPPABLE, "key does not match the wrapping key's template");
  }
  SIGNET_ASSIGN_OR_RETURN(auto value, FetchSecret(r, target));
  if (UsesKeyPair(*rule)) {
    SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey pub, PublicKeyFromAttributes(wa));
    return WrapWithPublic(*rule, m, pub, value->value);
  }
  SIGNET_ASSIGN_OR_RETURN(auto kek, FetchSecret(r, *wrapper));
  return WrapWith(*rule, m, kek->value, value->value);
}

Result<CK_OBJECT_HANDLE> HsmImpl::UnwrapKey(ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m,
                                            CK_OBJECT_HANDLE unwrapping_key, ByteView wrapped,
                                            const Template& t) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  SIGNET_ASSIGN_OR_RETURN(const MechanismRow* rule, MechanismFor(m.type, CKF_UNWRAP));
  auto unwrapper = ResolveObject(c, r, unwrapping_key);
  if (!unwrapper.ok())
    return MakeError(CKR_UNWRAPPING_KEY_HANDLE_INVALID, unwrapper.error().message);
  const bool key_pair = UsesKeyPair(*rule);
  if (!AcceptsKeyType(*rule, unwrapper->record->key_type()) ||
      unwrapper->record->object_class() != (key_pair ? CKO_PRIVATE_KEY : CKO_SECRET_KEY)) {
    return MakeError(CKR_UNWRAPPING_KEY_TYPE_INCONSISTENT,
                     "the unwrapping key's type does not fit " + std::string(rule->name));
  }
  if (!BoolOr(unwrapper->record->attributes, CKA_UNWRAP, false)) {
    return MakeError(CKR_KEY_FUNCTION_NOT_PERMITTED, "CKA_UNWRAP is false");
  }
  if (!CheckKeyRoles(unwrapper->record->attributes).ok()) {
    return MakeError(CKR_KEY_FUNCTION_NOT_PERMITTED, "the unwrapping key also encrypts data");
  }
  SIGNET_TRY(CheckMechanismAllowed(unwrapper->record->attributes, m.type));
  SIGNET_ASSIGN_OR_RETURN(AttributeMap attrs, ValidateTemplate(t));
  // CKA_UNWRAP_TEMPLATE (§4.9, §4.10) applies first; the caller's template
  // may repeat its values but not contradict them.
  SIGNET_ASSIGN_OR_RETURN(AttributeMap unwrap_template,
                          TemplateAttribute(unwrapper->record->attributes, CKA_UNWRAP_TEMPLATE));
  for (auto& [type, value] : unwrap_template) {
    auto [it, inserted] = attrs.emplace(type, value);
    if (!inserted && it->second != value) {
      return MakeError(CKR_TEMPLATE_INCONSISTENT,
                       "the template contradicts the unwrapping key's CKA_UNWRAP_TEMPLATE");
    }
  }
  SIGNET_TRY(CheckNoComputedAttributes(attrs, true));
  auto cls = FindUlong(attrs, CKA_CLASS);
  if (!cls || (*cls != CKO_PRIVATE_KEY && *cls != CKO_SECRET_KEY)) {
    return MakeError(CKR_TEMPLATE_INCOMPLETE, "CKA_CLASS (private or secret key) is required");
  }
  // The re-import attack (key_policy.h): what this key unwraps may be a
  // sensitive key it wrapped.
  SIGNET_TRY(CheckUnwrapSensitivity(unwrapper->record->attributes, attrs));
  if (*cls == CKO_PRIVATE_KEY && !WrapsPrivateKeys(*rule)) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT,
                     std::string(rule->name) + " unwraps secret keys only (docs/PKCS11.md)");
  }
  if (key_pair) return UnwrapUnderKeyPair(c, s, r, *rule, m, *unwrapper, wrapped, std::move(attrs));
  SIGNET_ASSIGN_OR_RETURN(auto kek, FetchSecret(r, *unwrapper));
  SecureBytes plain;
  {
    ScopedPhase phase(counters_, Phase::kUnwrap);
    SIGNET_ASSIGN_OR_RETURN(plain,
                            UnwrapWith(*rule, m, kek->value, wrapped, WrappedValueLength(attrs)));
  }
  attrs[CKA_VALUE] = Bytes(plain.begin(), plain.end());
  // ImportKeyMaterial-equivalent path: CreateObject's rules apply.
  Template as_template;
  for (auto& [type, value] : attrs) as_template.push_back({type, std::move(value)});
  auto handle = ImportObject(c, s, as_template, /*value_is_pkcs8=*/true);
  for (auto& a : as_template) WipeBytes(a.value);
  return handle;
}

Result<CK_OBJECT_HANDLE> HsmImpl::UnwrapUnderKeyPair(ClientState& c, CK_SESSION_HANDLE s,
                                                     const Resolved& r, const MechanismRow& rule,
                                                     const Mechanism& m,
                                                     const ResolvedObject& unwrapper,
                                                     ByteView wrapped, AttributeMap attrs) {
  // Everything that does not depend on the plaintext is checked before the
  // RSA decryption, so its errors come the same for every ciphertext.
  if (attrs.count(CKA_KEY_TYPE) != 0) {
    SIGNET_TRY(CheckTemplateFitsClass(attrs, /*check_required=*/false));
  }
  SIGNET_TRY(CheckMayStore(r, attrs));
  SIGNET_ASSIGN_OR_RETURN(auto secret, FetchSecret(r, unwrapper));
  if (!secret || !secret->private_key) return MakeError(CKR_KEY_HANDLE_INVALID, "no private key");
  SecureBytes plain;
  {
    ScopedPhase phase(counters_, Phase::kUnwrap);
    SIGNET_ASSIGN_OR_RETURN(plain, UnwrapWithPrivate(rule, m, *secret->private_key, wrapped));
  }
  // Then any failure that depends on the plaintext (a value the key type
  // cannot have, a CKA_CHECK_VALUE that differs) answers as a padding
  // failure does: one code, one message, so that C_UnwrapKey tells a caller
  // only what PKCS#11 itself implies, whether the unwrap succeeded
  // (docs/PKCS11.md "RSA decryption and padding oracles").
  attrs[CKA_VALUE] = Bytes(plain.begin(), plain.end());
  Template as_template;
  for (auto& [type, value] : attrs) as_template.push_back({type, std::move(value)});
  Result<PendingObject> object = PrepareImport(as_template, /*value_is_pkcs8=*/true);
  for (auto& a : as_template) WipeBytes(a.value);
  if (!object.ok()) return MakeError(CKR_WRAPPED_KEY_INVALID, "RSA decryption failed");
  return StoreObject(c, s, r, std::move(object->attrs), std::move(object->secret));
}

}  // namespace signet::core

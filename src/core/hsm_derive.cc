// Hsm: key derivation (C_DeriveKey, PKCS#11 v2.40 section 5.14). The
// mechanism's agreement and KDF are bound in core/mechanisms.cc; this file
// holds the object rules: which base key (and second key) may derive, and
// the attributes of the key it makes.
#include "core/hsm_internal.h"
#include "core/key_defaults.h"
#include "core/object_classes.h"
#include "core/secret_keys.h"

namespace signet::core {
namespace {

// CheckDerivingKey: a key a derivation reads - the base key, or the second
// key its parameter names - is of the class and a key type the mechanism
// accepts (CKR_KEY_TYPE_INCONSISTENT: a private key for key agreement, a
// secret key otherwise), allows derivation (CKA_DERIVE, else
// CKR_KEY_FUNCTION_NOT_PERMITTED) and this mechanism
// (CKA_ALLOWED_MECHANISMS).
Status CheckDerivingKey(const ObjectRecord& key, const MechanismRow& rule) {
  const bool agreement = DerivesFromPrivateKey(rule.family);
  const CK_OBJECT_CLASS needed = agreement ? CKO_PRIVATE_KEY : CKO_SECRET_KEY;
  const bool type_fits =
      DerivesFromAnySecretKey(rule.family) || AcceptsKeyType(rule, key.key_type());
  if (key.object_class() != needed || !type_fits) {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT, std::string(rule.name) + " needs a " +
                                                    (agreement ? "private" : "secret") +
                                                    " key of its key type");
  }
  if (!BoolOr(key.attributes, CKA_DERIVE, false)) {
    return MakeError(CKR_KEY_FUNCTION_NOT_PERMITTED, "CKA_DERIVE is false for a deriving key");
  }
  return CheckMechanismAllowed(key.attributes, rule.type);
}

}  // namespace

Result<CK_OBJECT_HANDLE> HsmImpl::DeriveKey(ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m,
                                            CK_OBJECT_HANDLE base_key, const Template& t) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  SIGNET_ASSIGN_OR_RETURN(const MechanismRow* rule, MechanismFor(m.type, CKF_DERIVE));
  SIGNET_ASSIGN_OR_RETURN(ResolvedObject base, ResolveObject(c, r, base_key));
  SIGNET_TRY(CheckDerivingKey(*base.record, *rule));
  // The second key (HKDF's salt key, the other key of a concatenation)
  // obeys the base key's rules.
  std::optional<ResolvedObject> second;
  if (std::optional<CK_OBJECT_HANDLE> handle = SecondKeyOf(*rule, m)) {
    SIGNET_ASSIGN_OR_RETURN(second, ResolveObject(c, r, *handle));
    SIGNET_TRY(CheckDerivingKey(*second->record, *rule));
  }
  SIGNET_ASSIGN_OR_RETURN(AttributeMap attrs, ValidateTemplate(t));
  SIGNET_TRY(CheckNoComputedAttributes(attrs, false));
  if (attrs.count(CKA_VALUE) != 0) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT, "CKA_VALUE of a derived key is computed");
  }
  // The new key is a secret key; CKK_GENERIC_SECRET unless the template
  // names another type (§5.14: the template's CKA_CLASS and CKA_KEY_TYPE).
  auto cls = FindUlong(attrs, CKA_CLASS);
  if (cls && *cls != CKO_SECRET_KEY) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT, "a derived key is a secret key");
  }
  attrs[CKA_CLASS] = UlongBytes(CKO_SECRET_KEY);
  if (attrs.count(CKA_KEY_TYPE) == 0) attrs[CKA_KEY_TYPE] = UlongBytes(CKK_GENERIC_SECRET);
  // CKA_VALUE_LEN asks for the length; the import below sets it from the
  // value, as for any secret key.
  std::size_t length = FindUlong(attrs, CKA_VALUE_LEN).value_or(0);
  attrs.erase(CKA_VALUE_LEN);
  const CK_KEY_TYPE new_type = FindUlong(attrs, CKA_KEY_TYPE).value_or(CKK_GENERIC_SECRET);
  if (length == 0 && !DerivesFromPrivateKey(rule->family)) length = FixedSecretLength(new_type);
  // v2.40 section 2.38: a key made from a sensitive key is sensitive, from
  // an unextractable key unextractable, whatever the template says.
  bool from_sensitive = BoolOr(base.record->attributes, CKA_SENSITIVE, false);
  bool from_unextractable = !BoolOr(base.record->attributes, CKA_EXTRACTABLE, true);
  if (second) {
    from_sensitive = from_sensitive || BoolOr(second->record->attributes, CKA_SENSITIVE, false);
    from_unextractable =
        from_unextractable || !BoolOr(second->record->attributes, CKA_EXTRACTABLE, true);
  }
  if (DerivedKeyInherits(rule->family)) {
    if (from_sensitive) attrs[CKA_SENSITIVE] = BoolBytes(true);
    if (from_unextractable) attrs[CKA_EXTRACTABLE] = BoolBytes(false);
  }
  // Check before the agreement that this session may store the key.
  SIGNET_TRY(CheckMayStore(r, attrs));

  SIGNET_ASSIGN_OR_RETURN(auto secret, FetchSecret(r, base));
  if (!secret) return MakeError(CKR_KEY_HANDLE_INVALID, "no key material");
  SecureBytes value;
  if (DerivesFromPrivateKey(rule->family)) {
    if (!secret->private_key) return MakeError(CKR_KEY_HANDLE_INVALID, "no private key");
    SIGNET_ASSIGN_OR_RETURN(value, DeriveWith(*rule, m, *secret->private_key, length));
  } else {
    std::shared_ptr<const keystore::UnwrappedKey> second_secret;
    if (second) {
      SIGNET_ASSIGN_OR_RETURN(second_secret, FetchSecret(r, *second));
      if (!second_secret) return MakeError(CKR_KEY_HANDLE_INVALID, "no key material");
    }
    SIGNET_ASSIGN_OR_RETURN(
        value, DeriveFromSecret(*rule, m, secret->value,
                                second_secret ? ByteView(second_secret->value) : ByteView{}, length,
                                new_type, from_sensitive));
  }
  Template as_template;
  for (auto& [type, v] : attrs) as_template.push_back({type, std::move(v)});
  as_template.push_back({CKA_VALUE, Bytes(value.begin(), value.end())});
  auto pending = PrepareImport(as_template, /*value_is_pkcs8=*/false);
  for (auto& a : as_template) WipeBytes(a.value);
  if (!pending.ok()) return std::move(pending).error();
  // §4.10 (secret keys): CKA_LOCAL false, since the key was not generated
  // here; CKA_ALWAYS_SENSITIVE and CKA_NEVER_EXTRACTABLE hold only when
  // they held for the base key (and the second key, whose value enters the
  // new one too) and hold for the new one.
  AttributeMap& made = pending->attrs;
  bool always_sensitive = BoolOr(base.record->attributes, CKA_ALWAYS_SENSITIVE, false);
  bool never_extractable = BoolOr(base.record->attributes, CKA_NEVER_EXTRACTABLE, false);
  if (second) {
    always_sensitive =
        always_sensitive && BoolOr(second->record->attributes, CKA_ALWAYS_SENSITIVE, false);
    never_extractable =
        never_extractable && BoolOr(second->record->attributes, CKA_NEVER_EXTRACTABLE, false);
  }
  made[CKA_ALWAYS_SENSITIVE] = BoolBytes(always_sensitive && BoolOr(made, CKA_SENSITIVE, false));
  made[CKA_NEVER_EXTRACTABLE] =
      BoolBytes(never_extractable && !BoolOr(made, CKA_EXTRACTABLE, true));
  return StoreObject(c, s, r, std::move(pending->attrs), std::move(pending->secret));
}

}  // namespace signet::core

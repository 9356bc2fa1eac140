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

// NewKey: the derived key as its template asks for it: the attributes
// (class and key type filled in, CKA_VALUE_LEN taken out), its length (0:
// the mechanism's own) and key type.
struct NewKey {
  AttributeMap attrs;
  std::size_t length = 0;
  CK_KEY_TYPE type = CKK_GENERIC_SECRET;
};

// ReadNewKey applies §5.14 to the template: the new key is a secret key
// (another class, or a CKA_VALUE, is CKR_TEMPLATE_INCONSISTENT) of the
// template's CKA_KEY_TYPE, CKK_GENERIC_SECRET when absent; CKA_VALUE_LEN
// asks for the length (the import sets it from the value, as for any
// secret key), else a secret-key derivation makes the key type's fixed
// length.
Result<NewKey> ReadNewKey(const Template& t, const MechanismRow& rule) {
  NewKey key;
  SIGNET_ASSIGN_OR_RETURN(key.attrs, ValidateTemplate(t));
  SIGNET_TRY(CheckNoComputedAttributes(key.attrs, false));
  if (key.attrs.count(CKA_VALUE) != 0) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT, "CKA_VALUE of a derived key is computed");
  }
  auto cls = FindUlong(key.attrs, CKA_CLASS);
  if (cls && *cls != CKO_SECRET_KEY) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT, "a derived key is a secret key");
  }
  key.attrs[CKA_CLASS] = UlongBytes(CKO_SECRET_KEY);
  key.type = FindUlong(key.attrs, CKA_KEY_TYPE).value_or(CKK_GENERIC_SECRET);
  key.attrs[CKA_KEY_TYPE] = UlongBytes(key.type);
  key.length = FindUlong(key.attrs, CKA_VALUE_LEN).value_or(0);
  key.attrs.erase(CKA_VALUE_LEN);
  if (key.length == 0 && !DerivesFromPrivateKey(rule.family)) {
    key.length = FixedSecretLength(key.type);
  }
  return key;
}

// ReadNewData applies PKCS#11 3.0 section 2.43.7 to CKM_HKDF_DATA's
// template: the new object is a data object (another class, or a
// CKA_VALUE, is CKR_TEMPLATE_INCONSISTENT); CKA_VALUE_LEN, which a data
// object does not have, asks for the length and is taken out. Derived
// secret bytes: CKA_PRIVATE defaults to TRUE (a data object's own default
// is FALSE, which would show them without a login).
Result<NewKey> ReadNewData(const Template& t) {
  NewKey data;
  SIGNET_ASSIGN_OR_RETURN(data.attrs, ValidateTemplate(t));
  SIGNET_TRY(CheckNoComputedAttributes(data.attrs, false));
  if (data.attrs.count(CKA_VALUE) != 0) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT, "CKA_VALUE of derived data is computed");
  }
  auto cls = FindUlong(data.attrs, CKA_CLASS);
  if (cls && *cls != CKO_DATA) {
    return MakeError(CKR_TEMPLATE_INCONSISTENT, "CKM_HKDF_DATA makes a data object");
  }
  data.attrs[CKA_CLASS] = UlongBytes(CKO_DATA);
  data.attrs.emplace(CKA_PRIVATE, BoolBytes(true));
  data.length = FindUlong(data.attrs, CKA_VALUE_LEN).value_or(0);
  data.attrs.erase(CKA_VALUE_LEN);
  return data;
}

// AnyOf / AllOf: whether `type` is TRUE for any / all of the keys a
// derivation reads (`fallback` when absent).
bool AnyOf(const ObjectRecord& base, const ObjectRecord* second, CK_ATTRIBUTE_TYPE type,
           bool fallback) {
  return BoolOr(base.attributes, type, fallback) ||
         (second != nullptr && BoolOr(second->attributes, type, fallback));
}
bool AllOf(const ObjectRecord& base, const ObjectRecord* second, CK_ATTRIBUTE_TYPE type) {
  return BoolOr(base.attributes, type, false) &&
         (second == nullptr || BoolOr(second->attributes, type, false));
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
  const ObjectRecord* second_record = second ? second->record.get() : nullptr;
  const bool data_out = DerivesData(rule->family);
  SIGNET_ASSIGN_OR_RETURN(NewKey key, data_out ? ReadNewData(t) : ReadNewKey(t, *rule));
  // v2.40 section 2.38: a key made from a sensitive key is sensitive, from
  // an unextractable key unextractable, whatever the template says.
  const bool from_sensitive = AnyOf(*base.record, second_record, CKA_SENSITIVE, false);
  if (DerivedKeyInherits(rule->family)) {
    if (from_sensitive) key.attrs[CKA_SENSITIVE] = BoolBytes(true);
    if (!AllOf(*base.record, second_record, CKA_EXTRACTABLE)) {
      key.attrs[CKA_EXTRACTABLE] = BoolBytes(false);
    }
  }
  // Check before the agreement that this session may store the key.
  SIGNET_TRY(CheckMayStore(r, key.attrs));

  SIGNET_ASSIGN_OR_RETURN(auto secret, FetchSecret(r, base));
  if (!secret) return MakeError(CKR_KEY_HANDLE_INVALID, "no key material");
  SecureBytes value;
  if (DerivesFromPrivateKey(rule->family)) {
    if (!secret->private_key) return MakeError(CKR_KEY_HANDLE_INVALID, "no private key");
    SIGNET_ASSIGN_OR_RETURN(value, DeriveWith(*rule, m, *secret->private_key, key.length));
  } else {
    std::shared_ptr<const keystore::UnwrappedKey> second_secret;
    if (second) {
      SIGNET_ASSIGN_OR_RETURN(second_secret, FetchSecret(r, *second));
      if (!second_secret) return MakeError(CKR_KEY_HANDLE_INVALID, "no key material");
    }
    SIGNET_ASSIGN_OR_RETURN(
        value, DeriveFromSecret(*rule, m, secret->value,
                                second_secret ? ByteView(second_secret->value) : ByteView{},
                                key.length, key.type, from_sensitive));
  }
  Template as_template;
  for (auto& [type, v] : key.attrs) as_template.push_back({type, std::move(v)});
  as_template.push_back({CKA_VALUE, Bytes(value.begin(), value.end())});
  auto pending = PrepareImport(as_template, /*value_is_pkcs8=*/false);
  for (auto& a : as_template) WipeBytes(a.value);
  if (!pending.ok()) return std::move(pending).error();
  if (data_out) return StoreObject(c, s, r, std::move(pending->attrs), nullptr);
  // §4.10 (secret keys): CKA_LOCAL false, since the key was not generated
  // here; CKA_ALWAYS_SENSITIVE and CKA_NEVER_EXTRACTABLE hold only when
  // they held for the base key (and the second key, whose value enters the
  // new one too) and hold for the new one.
  AttributeMap& made = pending->attrs;
  made[CKA_ALWAYS_SENSITIVE] = BoolBytes(AllOf(*base.record, second_record, CKA_ALWAYS_SENSITIVE) &&
                                         BoolOr(made, CKA_SENSITIVE, false));
  made[CKA_NEVER_EXTRACTABLE] =
      BoolBytes(AllOf(*base.record, second_record, CKA_NEVER_EXTRACTABLE) &&
                !BoolOr(made, CKA_EXTRACTABLE, true));
  return StoreObject(c, s, r, std::move(pending->attrs), std::move(pending->secret));
}

}  // namespace signet::core

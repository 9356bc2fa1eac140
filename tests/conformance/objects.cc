// [object.] Creating, copying, destroying and changing objects (§4.1,
// §5.7.1-5.7.4, §5.7.6): argument checks, the template rules of §4.1.1
// (type invalid, value invalid, read-only, incomplete, inconsistent), the
// session-state table for object access (issue 11 points 1 and 3), read-only
// and one-way attributes on copy and set (point 5), CKA_COPYABLE /
// CKA_DESTROYABLE / CKA_MODIFIABLE, and C_GetObjectSize (point 11).
#include "areas.h"

namespace signet::conformance {
namespace {

constexpr CK_ATTRIBUTE_TYPE kUndefinedAttribute = 0x0FFFFFF0;  // not in the specification

Template DataTemplate(const std::string& label, bool token = false, bool is_private = false) {
  Template t;
  t.Ulong(CKA_CLASS, CKO_DATA)
      .Bool(CKA_TOKEN, token)
      .Bool(CKA_PRIVATE, is_private)
      .Str(CKA_LABEL, label);
  return t;
}

Template AesTemplate() {
  Template t;
  t.Ulong(CKA_CLASS, CKO_SECRET_KEY)
      .Ulong(CKA_KEY_TYPE, CKK_AES)
      .Bool(CKA_TOKEN, false)
      .Bytes(CKA_VALUE, std::vector<CK_BYTE>(32, 0x42))
      .Bool(CKA_ENCRYPT, true);
  return t;
}

CK_RV Create(Fixture& f, CK_SESSION_HANDLE s, Template t, CK_OBJECT_HANDLE* out = nullptr) {
  CK_OBJECT_HANDLE object = CK_INVALID_HANDLE;
  CK_RV rv = f.p11()->C_CreateObject(s, t.data(), t.size(), &object);
  if (out != nullptr) *out = object;
  return rv;
}

CK_RV Set(Fixture& f, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE object, Template t) {
  return f.p11()->C_SetAttributeValue(s, object, t.data(), t.size());
}

CK_RV Copy(Fixture& f, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE object, Template t,
           CK_OBJECT_HANDLE* out = nullptr) {
  CK_OBJECT_HANDLE copy = CK_INVALID_HANDLE;
  CK_RV rv = f.p11()->C_CopyObject(s, object, t.data(), t.size(), &copy);
  if (out != nullptr) *out = copy;
  return rv;
}

void CheckCreateRules(Fixture& f, CK_SESSION_HANDLE s) {
  Suite& suite = f.suite();
  CK_OBJECT_HANDLE object;
  Template data = DataTemplate("conf-create");
  suite.Rv("object.create.null_template", "5.7.1", CKR_ARGUMENTS_BAD,
           f.p11()->C_CreateObject(s, nullptr, 2, &object));
  suite.Rv("object.create.null_handle", "5.7.1", CKR_ARGUMENTS_BAD,
           f.p11()->C_CreateObject(s, data.data(), data.size(), nullptr));
  suite.Rv("object.create.invalid_session", "5.1.2", CKR_SESSION_HANDLE_INVALID,
           Create(f, CK_INVALID_HANDLE, DataTemplate("conf-create")));
  suite.Rv("object.create.no_class", "4.1.1", CKR_TEMPLATE_INCOMPLETE,
           Create(f, s, Template().Bool(CKA_TOKEN, false).Str(CKA_LABEL, "conf-no-class")));
  suite.Rv("object.create.class_value_invalid", "4.1.1", CKR_ATTRIBUTE_VALUE_INVALID,
           Create(f, s, Template().Ulong(CKA_CLASS, 0x7fff0000).Bool(CKA_TOKEN, false)));
  suite.Rv("object.create.attribute_type_invalid", "4.1.1", CKR_ATTRIBUTE_TYPE_INVALID,
           Create(f, s, DataTemplate("conf-create").Str(kUndefinedAttribute, "x")));
  suite.Rv("object.create.bool_length_invalid", "4.1.1", CKR_ATTRIBUTE_VALUE_INVALID,
           Create(f, s, Template().Ulong(CKA_CLASS, CKO_DATA).Ulong(CKA_TOKEN, 0)));
  suite.Rv("object.create.attribute_of_other_class", "4.1.1", CKR_TEMPLATE_INCONSISTENT,
           Create(f, s, AesTemplate().Bytes(CKA_MODULUS, std::vector<CK_BYTE>(128, 0xC5))));
  for (auto [type, name] : {std::pair{CKA_LOCAL, "local"},
                            {CKA_ALWAYS_SENSITIVE, "always_sensitive"},
                            {CKA_NEVER_EXTRACTABLE, "never_extractable"}}) {
    suite.Rv(std::string("object.create.read_only.") + name, "4.1.1 / 4.7", CKR_ATTRIBUTE_READ_ONLY,
             Create(f, s, AesTemplate().Bool(type, true)));
  }
  suite.Rv("object.create.read_only.key_gen_mechanism", "4.1.1 / 4.7", CKR_ATTRIBUTE_READ_ONLY,
           Create(f, s, AesTemplate().Ulong(CKA_KEY_GEN_MECHANISM, CKM_AES_KEY_GEN)));
  suite.Rv("object.create.data_ok", "5.7.1", CKR_OK,
           Create(f, s, DataTemplate("conf-create"), &object));
}

// Required attributes (§4.1.1 rule 4; issue 11 point 6): each template
// lacks one attribute its class must be given.
void CheckRequired(Fixture& f, CK_SESSION_HANDLE s) {
  Suite& suite = f.suite();
  const std::vector<CK_BYTE> der = {0x30, 0x03, 0x02, 0x01, 0x01};
  auto cert = [&] {
    return Template()
        .Ulong(CKA_CLASS, CKO_CERTIFICATE)
        .Bool(CKA_TOKEN, false)
        .Str(CKA_LABEL, "conf-cert");
  };
  suite.Rv("object.required.certificate_type", "4.6.1", CKR_TEMPLATE_INCOMPLETE,
           Create(f, s, cert().Bytes(CKA_SUBJECT, der).Bytes(CKA_VALUE, der)));
  suite.Rv("object.required.x509_subject", "4.6.3", CKR_TEMPLATE_INCOMPLETE,
           Create(f, s, cert().Ulong(CKA_CERTIFICATE_TYPE, CKC_X_509).Bytes(CKA_VALUE, der)));
  suite.Rv("object.required.x509_value", "4.6.3", CKR_TEMPLATE_INCOMPLETE,
           Create(f, s, cert().Ulong(CKA_CERTIFICATE_TYPE, CKC_X_509).Bytes(CKA_SUBJECT, der)));
  auto secret = [] { return Template().Ulong(CKA_CLASS, CKO_SECRET_KEY).Bool(CKA_TOKEN, false); };
  suite.Rv("object.required.secret_key_type", "4.7.1", CKR_TEMPLATE_INCOMPLETE,
           Create(f, s, secret().Bytes(CKA_VALUE, std::vector<CK_BYTE>(32, 1))));
  suite.Rv("object.required.aes_value", "4.10 / AES", CKR_TEMPLATE_INCOMPLETE,
           Create(f, s, secret().Ulong(CKA_KEY_TYPE, CKK_AES)));
  auto pub = [](CK_KEY_TYPE type) {
    return Template()
        .Ulong(CKA_CLASS, CKO_PUBLIC_KEY)
        .Ulong(CKA_KEY_TYPE, type)
        .Bool(CKA_TOKEN, false);
  };
  const std::vector<CK_BYTE> point(67, 0x04);
  suite.Rv("object.required.ec_public_params", "4.8 / EC", CKR_TEMPLATE_INCOMPLETE,
           Create(f, s, pub(CKK_EC).Bytes(CKA_EC_POINT, point)));
  suite.Rv("object.required.ec_public_point", "4.8 / EC", CKR_TEMPLATE_INCOMPLETE,
           Create(f, s, pub(CKK_EC).Bytes(CKA_EC_PARAMS, kP256Params)));
  suite.Rv("object.required.rsa_public_modulus", "4.8 / RSA", CKR_TEMPLATE_INCOMPLETE,
           Create(f, s, pub(CKK_RSA).Bytes(CKA_PUBLIC_EXPONENT, {1, 0, 1})));
  suite.Rv("object.required.rsa_public_exponent", "4.8 / RSA", CKR_TEMPLATE_INCOMPLETE,
           Create(f, s, pub(CKK_RSA).Bytes(CKA_MODULUS, std::vector<CK_BYTE>(128, 0xC5))));
  suite.Rv("object.required.public_key_type", "4.7.1", CKR_TEMPLATE_INCOMPLETE,
           Create(f, s,
                  Template()
                      .Ulong(CKA_CLASS, CKO_PUBLIC_KEY)
                      .Bool(CKA_TOKEN, false)
                      .Bytes(CKA_EC_PARAMS, kP256Params)
                      .Bytes(CKA_EC_POINT, point)));
  suite.Rv("object.required.ec_private_value", "4.9 / EC", CKR_TEMPLATE_INCOMPLETE,
           Create(f, s,
                  Template()
                      .Ulong(CKA_CLASS, CKO_PRIVATE_KEY)
                      .Ulong(CKA_KEY_TYPE, CKK_EC)
                      .Bool(CKA_TOKEN, false)
                      .Bytes(CKA_EC_PARAMS, kP256Params)));
}

// The session-state table (§4.4 storage objects, session states; issue 11
// point 3): which session may create / change / destroy which objects.
// The public states: what R/O and R/W public sessions may do.
void CheckPublicStates(Fixture& f, CK_SESSION_HANDLE ro, CK_SESSION_HANDLE rw) {
  Suite& suite = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_OBJECT_HANDLE object = CK_INVALID_HANDLE;
  suite.Rv("object.state.ro_public.create_token", "5.7.1", CKR_SESSION_READ_ONLY,
           Create(f, ro, DataTemplate("conf-state", true)));
  suite.Rv("object.state.ro_public.create_session_public", "5.7.1", CKR_OK,
           Create(f, ro, DataTemplate("conf-state"), &object));
  suite.Rv("object.state.ro_public.set_session_public", "5.7.6", CKR_OK,
           Set(f, ro, object, Template().Str(CKA_LABEL, "conf-state-2")));
  suite.Rv("object.state.ro_public.destroy_session_public", "5.7.3", CKR_OK,
           p->C_DestroyObject(ro, object));
  suite.Rv("object.state.ro_public.create_session_private", "5.7.1", CKR_USER_NOT_LOGGED_IN,
           Create(f, ro, DataTemplate("conf-state", false, true)));
  CK_MECHANISM aes_gen = {CKM_AES_KEY_GEN, nullptr, 0};
  Template aes_token;
  aes_token.Bool(CKA_TOKEN, true).Ulong(CKA_VALUE_LEN, 32).Bool(CKA_PRIVATE, false);
  suite.Rv("object.state.ro_public.generate_token_key", "5.14.1", CKR_SESSION_READ_ONLY,
           p->C_GenerateKey(ro, &aes_gen, aes_token.data(), aes_token.size(), &object));
  suite.Rv("object.state.rw_public.create_token_private", "5.7.1", CKR_USER_NOT_LOGGED_IN,
           Create(f, rw, DataTemplate("conf-state", true, true)));
  if (suite.Rv("object.state.rw_public.create_token_public", "5.7.1 / 4.4", CKR_OK,
               Create(f, rw, DataTemplate("conf-state-public", true), &object))) {
    f.Track(object);
  }
  // A public token object the user made, changed from public sessions.
  f.LoginUser(rw);
  CK_OBJECT_HANDLE shared = f.CreateData(rw, "conf-state-shared", true, false);
  p->C_Logout(rw);
  if (shared != CK_INVALID_HANDLE) {
    suite.Rv("object.state.ro_public.set_token_public", "5.7.6", CKR_SESSION_READ_ONLY,
             Set(f, ro, shared, Template().Str(CKA_LABEL, "conf-x")));
    suite.Rv("object.state.rw_public.set_token_public", "5.7.6 / 4.4", CKR_OK,
             Set(f, rw, shared, Template().Str(CKA_LABEL, "conf-state-shared-2")));
    CK_OBJECT_HANDLE copy = CK_INVALID_HANDLE;
    if (suite.Rv("object.state.rw_public.copy_token_public", "5.7.2 / 4.4", CKR_OK,
                 Copy(f, rw, shared, Template().Str(CKA_LABEL, "conf-state-copy"), &copy))) {
      f.Track(copy);
    }
    suite.Rv("object.state.ro_public.copy_token_to_session", "5.7.2", CKR_OK,
             Copy(f, ro, shared, Template().Bool(CKA_TOKEN, false)));
    suite.Rv("object.state.ro_public.destroy_token_public", "5.7.3", CKR_SESSION_READ_ONLY,
             p->C_DestroyObject(ro, shared));
    suite.Rv("object.state.rw_public.destroy_token_public", "5.7.3 / 4.4", CKR_OK,
             p->C_DestroyObject(rw, shared));
  }
}

void CheckUserStates(Fixture& f, CK_SESSION_HANDLE ro, CK_SESSION_HANDLE rw) {
  Suite& suite = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_OBJECT_HANDLE object = CK_INVALID_HANDLE;
  // R/O and R/W user functions.
  f.LoginUser(rw);
  CK_OBJECT_HANDLE token_object = f.CreateData(rw, "conf-state-user", true, true);
  suite.True("object.state.rw_user.create_token_private", "5.7.1",
             token_object != CK_INVALID_HANDLE, "CKR_OK",
             token_object != CK_INVALID_HANDLE ? "CKR_OK" : "failed");
  suite.Rv("object.state.ro_user.create_token", "5.7.1", CKR_SESSION_READ_ONLY,
           Create(f, ro, DataTemplate("conf-state", true, true)));
  suite.Rv("object.state.ro_user.create_session_private", "5.7.1", CKR_OK,
           Create(f, ro, DataTemplate("conf-state", false, true), &object));
  if (token_object != CK_INVALID_HANDLE) {
    suite.Rv("object.state.ro_user.set_token", "5.7.6", CKR_SESSION_READ_ONLY,
             Set(f, ro, token_object, Template().Str(CKA_LABEL, "conf-x")));
    suite.Rv("object.state.ro_user.destroy_token", "5.7.3", CKR_SESSION_READ_ONLY,
             p->C_DestroyObject(ro, token_object));
    suite.Rv("object.state.ro_user.copy_token_to_session", "5.7.2", CKR_OK,
             Copy(f, ro, token_object, Template().Bool(CKA_TOKEN, false)));
    suite.Rv("object.state.ro_user.copy_to_token", "5.7.2", CKR_SESSION_READ_ONLY,
             Copy(f, ro, token_object, Template().Str(CKA_LABEL, "conf-copy")));
  }
  p->C_Logout(rw);
}

// What logging out and closing sessions do to objects (§5.6.2, §5.6.8).
void CheckLogoutRules(Fixture& f, CK_SESSION_HANDLE rw) {
  Suite& suite = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  // Issue 11 point 1: private session objects die with the login; public ones stay.
  f.LoginUser(rw);
  CK_OBJECT_HANDLE private_object = f.CreateData(rw, "conf-logout-private", false, true);
  CK_OBJECT_HANDLE public_object = f.CreateData(rw, "conf-logout-public", false, false);
  p->C_Logout(rw);
  f.LoginUser(rw);
  CK_RV rv;
  f.Attribute(rw, private_object, CKA_LABEL, &rv);
  suite.Rv("object.logout.private_session_object_destroyed", "5.6.8", CKR_OBJECT_HANDLE_INVALID,
           rv);
  suite.True("object.logout.private_session_object_not_found", "5.6.8",
             f.Count(rw, Template().Str(CKA_LABEL, "conf-logout-private")) == 0, "0 objects found",
             std::to_string(f.Count(rw, Template().Str(CKA_LABEL, "conf-logout-private"))));
  f.Attribute(rw, public_object, CKA_LABEL, &rv);
  suite.Rv("object.logout.public_session_object_kept", "5.6.8", CKR_OK, rv);
  suite.Rv("object.logout.destroy_after_logout", "5.7.3", CKR_OBJECT_HANDLE_INVALID,
           p->C_DestroyObject(rw, private_object));
  p->C_Logout(rw);
  // §5.6.8: after C_Logout the application's handles to private objects
  // are invalid, "even if a user is later logged back into the token".
  f.LoginUser(rw);
  CK_OBJECT_HANDLE private_token = f.CreateData(rw, "conf-logout-token", true, true);
  p->C_Logout(rw);
  f.Attribute(rw, private_token, CKA_LABEL, &rv);
  suite.Rv("object.logout.private_token_handle_invalid", "5.6.8", CKR_OBJECT_HANDLE_INVALID, rv);
  f.LoginUser(rw);
  f.Attribute(rw, private_token, CKA_LABEL, &rv);
  suite.Rv("object.logout.private_token_handle_stays_invalid", "5.6.8", CKR_OBJECT_HANDLE_INVALID,
           rv);
  p->C_Logout(rw);

  // Closing a session destroys its session objects (§5.6.2), also for the
  // application's other sessions.
  CK_SESSION_HANDLE maker = f.Open(true);
  CK_OBJECT_HANDLE short_lived = f.CreateData(maker, "conf-short-lived", false, false);
  p->C_CloseSession(maker);
  f.Attribute(rw, short_lived, CKA_LABEL, &rv);
  suite.Rv("object.session_object_dies_with_session", "5.6.2", CKR_OBJECT_HANDLE_INVALID, rv);
}

// R/W SO functions: public token objects only.
void CheckSoStates(Fixture& f, CK_SESSION_HANDLE rw) {
  Suite& suite = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_OBJECT_HANDLE object = CK_INVALID_HANDLE;
  if (f.Login(rw, CKU_SO) == CKR_OK) {
    suite.Rv("object.state.rw_so.create_token_private", "5.7.1", CKR_USER_NOT_LOGGED_IN,
             Create(f, rw, DataTemplate("conf-so", true, true)));
    suite.Rv("object.state.rw_so.create_session_private", "5.7.1", CKR_USER_NOT_LOGGED_IN,
             Create(f, rw, DataTemplate("conf-so", false, true)));
    if (suite.Rv("object.state.rw_so.create_token_public", "5.7.1", CKR_OK,
                 Create(f, rw, DataTemplate("conf-so", true), &object))) {
      suite.Rv("object.state.rw_so.destroy_token_public", "5.7.3", CKR_OK,
               p->C_DestroyObject(rw, object));
    }
    p->C_Logout(rw);
  }
}

void CheckSessionStates(Fixture& f) {
  f.CloseAll();
  CK_SESSION_HANDLE ro = f.Open(false), rw = f.Open(true);
  CheckPublicStates(f, ro, rw);
  CheckUserStates(f, ro, rw);
  CheckLogoutRules(f, rw);
  f.p11()->C_CloseSession(ro);
  CheckSoStates(f, rw);
  f.CloseAll();
}

void CheckDestroyAndSize(Fixture& f, CK_SESSION_HANDLE s) {
  Suite& suite = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_OBJECT_HANDLE object = f.CreateData(s, "conf-destroy", false, false);
  CK_ULONG size = 0;
  suite.RvIn("object.size.ok", "5.7.4", {CKR_OK}, p->C_GetObjectSize(s, object, &size));
  suite.Rv("object.size.null", "5.7.4", CKR_ARGUMENTS_BAD, p->C_GetObjectSize(s, object, nullptr));
  suite.Rv("object.size.invalid_handle", "5.7.4", CKR_OBJECT_HANDLE_INVALID,
           p->C_GetObjectSize(s, 0x7ffff00d, &size));
  suite.Rv("object.destroy.ok", "5.7.3", CKR_OK, p->C_DestroyObject(s, object));
  suite.Rv("object.destroy.twice", "5.7.3", CKR_OBJECT_HANDLE_INVALID,
           p->C_DestroyObject(s, object));
  suite.Rv("object.destroy.invalid_handle", "5.7.3", CKR_OBJECT_HANDLE_INVALID,
           p->C_DestroyObject(s, CK_INVALID_HANDLE));
  suite.Rv("object.destroy.then_used", "5.7.3", CKR_OBJECT_HANDLE_INVALID,
           Set(f, s, object, Template().Str(CKA_LABEL, "x")));
  if (Create(f, s, DataTemplate("conf-undestroyable").Bool(CKA_DESTROYABLE, false), &object) ==
      CKR_OK) {
    suite.Rv("object.destroy.not_destroyable", "4.4", CKR_ACTION_PROHIBITED,
             p->C_DestroyObject(s, object));
  } else {
    suite.Skip("object.destroy.not_destroyable", "CKA_DESTROYABLE false refused at creation");
  }
}

void CheckSetAndCopy(Fixture& f, CK_SESSION_HANDLE s) {
  Suite& suite = f.suite();
  CK_OBJECT_HANDLE data = f.CreateData(s, "conf-set", false, false), copy;
  suite.Rv("object.set.label", "5.7.6", CKR_OK,
           Set(f, s, data, Template().Str(CKA_LABEL, "conf-set-2")));
  suite.Rv("object.set.null_template", "5.7.6", CKR_ARGUMENTS_BAD,
           f.p11()->C_SetAttributeValue(s, data, nullptr, 1));
  suite.Rv("object.set.invalid_handle", "5.7.6", CKR_OBJECT_HANDLE_INVALID,
           Set(f, s, 0x7ffff00d, Template().Str(CKA_LABEL, "x")));
  suite.Rv("object.set.class", "4.1.2", CKR_ATTRIBUTE_READ_ONLY,
           Set(f, s, data, Template().Ulong(CKA_CLASS, CKO_SECRET_KEY)));
  suite.Rv("object.set.token", "4.4", CKR_ATTRIBUTE_READ_ONLY,
           Set(f, s, data, Template().Bool(CKA_TOKEN, true)));
  suite.Rv("object.set.attribute_type_invalid", "4.1.2", CKR_ATTRIBUTE_TYPE_INVALID,
           Set(f, s, data, Template().Str(kUndefinedAttribute, "x")));
  suite.Rv("object.copy.ok", "5.7.2", CKR_OK,
           Copy(f, s, data, Template().Str(CKA_LABEL, "conf-copy"), &copy));
  std::vector<CK_BYTE> label = f.Attribute(s, copy, CKA_LABEL);
  suite.True("object.copy.label_applied", "5.7.2",
             std::string(label.begin(), label.end()) == "conf-copy", "conf-copy",
             std::string(label.begin(), label.end()));
  suite.Rv("object.copy.null_handle", "5.7.2", CKR_ARGUMENTS_BAD,
           f.p11()->C_CopyObject(s, data, nullptr, 0, nullptr));
  suite.Rv("object.copy.invalid_handle", "5.7.2", CKR_OBJECT_HANDLE_INVALID,
           Copy(f, s, 0x7ffff00d, Template().Str(CKA_LABEL, "x")));
  suite.Rv("object.copy.class", "4.1.3", CKR_ATTRIBUTE_READ_ONLY,
           Copy(f, s, data, Template().Ulong(CKA_CLASS, CKO_CERTIFICATE)));
  if (Create(f, s, DataTemplate("conf-fixed").Bool(CKA_MODIFIABLE, false), &data) == CKR_OK) {
    suite.RvIn("object.set.not_modifiable", "4.4 / 5.7.6",
               {CKR_ACTION_PROHIBITED, CKR_ATTRIBUTE_READ_ONLY},
               Set(f, s, data, Template().Str(CKA_LABEL, "x")));
  }
  if (Create(f, s, DataTemplate("conf-uncopyable").Bool(CKA_COPYABLE, false), &data) == CKR_OK) {
    suite.Rv("object.copy.not_copyable", "4.4", CKR_ACTION_PROHIBITED,
             Copy(f, s, data, Template().Str(CKA_LABEL, "x")));
  } else {
    suite.Skip("object.copy.not_copyable", "CKA_COPYABLE false refused at creation");
  }

  // Keys: fixed attributes and the one-way sensitive / extractable rules.
  if (!f.Offers(CKM_AES_KEY_GEN)) return suite.Skip("object.key", "no CKM_AES_KEY_GEN");
  KeyPair open = f.Generate(
      s, KeyKind::kAes, {},
      Template().Bool(CKA_SENSITIVE, false).Bool(CKA_EXTRACTABLE, true).Bool(CKA_ENCRYPT, true));
  KeyPair closed = f.Generate(
      s, KeyKind::kAes, {},
      Template().Bool(CKA_SENSITIVE, true).Bool(CKA_EXTRACTABLE, false).Bool(CKA_ENCRYPT, true));
  if (!open.ok() || !closed.ok()) return suite.Skip("object.key", "AES key generation failed");
  suite.Rv("object.set.key_type", "4.7", CKR_ATTRIBUTE_READ_ONLY,
           Set(f, s, open.priv, Template().Ulong(CKA_KEY_TYPE, CKK_GENERIC_SECRET)));
  suite.Rv("object.copy.key_type", "4.1.3", CKR_ATTRIBUTE_READ_ONLY,
           Copy(f, s, open.priv, Template().Ulong(CKA_KEY_TYPE, CKK_GENERIC_SECRET)));
  suite.Rv("object.set.value_length_invalid", "4.1.2", CKR_ATTRIBUTE_VALUE_INVALID,
           Set(f, s, open.priv, Template().Ulong(CKA_ENCRYPT, 1)));
  suite.Rv("object.set.sensitive_true_to_false", "4.10", CKR_ATTRIBUTE_READ_ONLY,
           Set(f, s, closed.priv, Template().Bool(CKA_SENSITIVE, false)));
  suite.Rv("object.set.extractable_false_to_true", "4.10", CKR_ATTRIBUTE_READ_ONLY,
           Set(f, s, closed.priv, Template().Bool(CKA_EXTRACTABLE, true)));
  suite.Rv("object.copy.sensitive_true_to_false", "4.1.3 / 4.10", CKR_ATTRIBUTE_READ_ONLY,
           Copy(f, s, closed.priv, Template().Bool(CKA_SENSITIVE, false)));
  suite.Rv("object.copy.extractable_false_to_true", "4.1.3 / 4.10", CKR_ATTRIBUTE_READ_ONLY,
           Copy(f, s, closed.priv, Template().Bool(CKA_EXTRACTABLE, true)));
  suite.Rv("object.copy.sensitive_false_to_true", "4.1.3 / 4.10", CKR_OK,
           Copy(f, s, open.priv, Template().Bool(CKA_SENSITIVE, true)));
  suite.Rv("object.set.sensitive_false_to_true", "4.10", CKR_OK,
           Set(f, s, open.priv, Template().Bool(CKA_SENSITIVE, true)));
  suite.Rv("object.set.extractable_true_to_false", "4.10", CKR_OK,
           Set(f, s, open.priv, Template().Bool(CKA_EXTRACTABLE, false)));
  CK_RV rv;
  f.Attribute(s, open.priv, CKA_VALUE, &rv);
  suite.Rv("object.set.sensitive_now_hides_value", "4.10 / 5.7.5", CKR_ATTRIBUTE_SENSITIVE, rv);
  std::vector<CK_BYTE> always = f.Attribute(s, open.priv, CKA_ALWAYS_SENSITIVE);
  suite.True("object.set.always_sensitive_stays_false", "4.10",
             always == std::vector<CK_BYTE>{CK_FALSE}, "CK_FALSE",
             always.empty() ? "unreadable" : std::to_string(always[0]));
}

}  // namespace

void RunObjects(Fixture& f) {
  CheckSessionStates(f);
  CK_SESSION_HANDLE s = f.Open(true);
  if (s == CK_INVALID_HANDLE) return f.suite().Skip("object.", "no session");
  f.LoginUser(s);
  CheckCreateRules(f, s);
  CheckRequired(f, s);
  CheckDestroyAndSize(f, s);
  CheckSetAndCopy(f, s);
  f.CloseAll();
}

}  // namespace signet::conformance

// [attr.] C_GetAttributeValue's rules (§5.7.5): every attribute of the
// template is processed; an attribute the object lacks is
// CKR_ATTRIBUTE_TYPE_INVALID, a sensitive one CKR_ATTRIBUTE_SENSITIVE, a
// short buffer CKR_BUFFER_TOO_SMALL, each with ulValueLen set to
// CK_UNAVAILABLE_INFORMATION, while the other attributes get their values;
// a NULL pValue asks for the length.
// [class.] Every attribute the specification defines for an object's class
// has a value, its default when the template gave none (§4.4-4.10; issue 11
// point 4); the defaults the specification fixes have their values.
#include <cstring>

#include "areas.h"

namespace signet::conformance {
namespace {

void CheckGetAttributeRules(Fixture& f, CK_SESSION_HANDLE s) {
  Suite& suite = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_OBJECT_HANDLE data = f.CreateData(s, "conf-attr", false, false);
  CK_ATTRIBUTE one = {CKA_LABEL, nullptr, 0};
  suite.Rv("attr.get.null_template", "5.7.5", CKR_ARGUMENTS_BAD,
           p->C_GetAttributeValue(s, data, nullptr, 1));
  suite.Rv("attr.get.invalid_handle", "5.7.5", CKR_OBJECT_HANDLE_INVALID,
           p->C_GetAttributeValue(s, 0x7ffff00d, &one, 1));
  suite.Rv("attr.get.length_query", "5.7.5", CKR_OK, p->C_GetAttributeValue(s, data, &one, 1));
  suite.True("attr.get.length_query_value", "5.7.5", one.ulValueLen == 9, "9 (conf-attr)",
             std::to_string(one.ulValueLen));

  // A valid, an invalid and a short attribute in one call.
  CK_BYTE label[32], value[2];
  CK_BBOOL token = 7;
  CK_ATTRIBUTE mixed[] = {
      {CKA_LABEL, label, sizeof label},
      {CKA_MODULUS, label, sizeof label},  // data objects have no modulus
      {CKA_TOKEN, &token, sizeof token},
  };
  suite.Rv("attr.get.type_invalid", "5.7.5", CKR_ATTRIBUTE_TYPE_INVALID,
           p->C_GetAttributeValue(s, data, mixed, 3));
  suite.True("attr.get.type_invalid_length", "5.7.5",
             mixed[1].ulValueLen == CK_UNAVAILABLE_INFORMATION, "CK_UNAVAILABLE_INFORMATION",
             Hex(mixed[1].ulValueLen));
  suite.True(
      "attr.get.type_invalid_others_filled", "5.7.5",
      mixed[0].ulValueLen == 9 && std::memcmp(label, "conf-attr", 9) == 0 && token == CK_FALSE,
      "CKA_LABEL and CKA_TOKEN still returned",
      "label length " + std::to_string(mixed[0].ulValueLen) + ", token " + std::to_string(token));

  CK_ATTRIBUTE small[] = {{CKA_VALUE, value, sizeof value}, {CKA_TOKEN, &token, sizeof token}};
  token = 7;
  suite.Rv("attr.get.buffer_too_small", "5.7.5", CKR_BUFFER_TOO_SMALL,
           p->C_GetAttributeValue(s, data, small, 2));
  suite.True("attr.get.buffer_too_small_length", "5.7.5",
             small[0].ulValueLen == CK_UNAVAILABLE_INFORMATION, "CK_UNAVAILABLE_INFORMATION",
             Hex(small[0].ulValueLen));
  suite.True("attr.get.buffer_too_small_others_filled", "5.7.5", token == CK_FALSE,
             "CKA_TOKEN still returned", std::to_string(token));

  if (!f.Offers(CKM_EC_KEY_PAIR_GEN)) return;
  KeyPair key = f.Generate(s, KeyKind::kEc, Template().Bool(CKA_VERIFY, true),
                           Template().Bool(CKA_SIGN, true).Bool(CKA_SENSITIVE, true));
  if (!key.ok()) return;
  CK_BYTE scalar[64];
  CK_ATTRIBUTE secret[] = {{CKA_VALUE, scalar, sizeof scalar}, {CKA_SIGN, &token, sizeof token}};
  token = 7;
  suite.Rv("attr.get.sensitive", "5.7.5", CKR_ATTRIBUTE_SENSITIVE,
           p->C_GetAttributeValue(s, key.priv, secret, 2));
  suite.True("attr.get.sensitive_length", "5.7.5",
             secret[0].ulValueLen == CK_UNAVAILABLE_INFORMATION, "CK_UNAVAILABLE_INFORMATION",
             Hex(secret[0].ulValueLen));
  suite.True("attr.get.sensitive_others_filled", "5.7.5", token == CK_TRUE,
             "CKA_SIGN still returned", std::to_string(token));
  secret[0].pValue = nullptr;
  suite.Rv("attr.get.sensitive_length_query", "5.7.5", CKR_ATTRIBUTE_SENSITIVE,
           p->C_GetAttributeValue(s, key.priv, secret, 1));
}

struct ClassCase {
  const char* name;
  std::vector<CK_ATTRIBUTE_TYPE> attributes;
};

const char* AttributeName(CK_ATTRIBUTE_TYPE type) {
  switch (type) {
#define NAME(a) \
  case a:       \
    return #a;
    NAME(CKA_CLASS)
    NAME(CKA_TOKEN)
    NAME(CKA_PRIVATE)
    NAME(CKA_MODIFIABLE)
    NAME(CKA_LABEL)
    NAME(CKA_COPYABLE)
    NAME(CKA_DESTROYABLE)
    NAME(CKA_APPLICATION)
    NAME(CKA_OBJECT_ID)
    NAME(CKA_VALUE)
    NAME(CKA_CERTIFICATE_TYPE)
    NAME(CKA_TRUSTED)
    NAME(CKA_CERTIFICATE_CATEGORY) NAME(CKA_CHECK_VALUE) NAME(CKA_START_DATE) NAME(CKA_END_DATE)
        NAME(CKA_SUBJECT) NAME(CKA_ID) NAME(CKA_ISSUER) NAME(CKA_SERIAL_NUMBER) NAME(CKA_URL)
            NAME(CKA_HASH_OF_SUBJECT_PUBLIC_KEY) NAME(CKA_HASH_OF_ISSUER_PUBLIC_KEY)
                NAME(CKA_JAVA_MIDP_SECURITY_DOMAIN) NAME(CKA_NAME_HASH_ALGORITHM) NAME(CKA_KEY_TYPE)
                    NAME(CKA_DERIVE) NAME(CKA_LOCAL) NAME(CKA_KEY_GEN_MECHANISM)
                        NAME(CKA_ALLOWED_MECHANISMS) NAME(CKA_ENCRYPT) NAME(CKA_VERIFY)
                            NAME(CKA_VERIFY_RECOVER) NAME(CKA_WRAP) NAME(CKA_WRAP_TEMPLATE)
                                NAME(CKA_PUBLIC_KEY_INFO) NAME(CKA_SENSITIVE) NAME(CKA_DECRYPT)
                                    NAME(CKA_SIGN) NAME(CKA_SIGN_RECOVER) NAME(CKA_UNWRAP)
                                        NAME(CKA_EXTRACTABLE) NAME(CKA_ALWAYS_SENSITIVE) NAME(
                                            CKA_NEVER_EXTRACTABLE) NAME(CKA_WRAP_WITH_TRUSTED)
                                            NAME(CKA_UNWRAP_TEMPLATE) NAME(CKA_ALWAYS_AUTHENTICATE)
                                                NAME(CKA_VALUE_LEN) NAME(CKA_EC_PARAMS)
                                                    NAME(CKA_EC_POINT) NAME(CKA_DERIVE_TEMPLATE)
                                                        NAME(CKA_MODULUS) NAME(CKA_MODULUS_BITS)
                                                            NAME(CKA_PUBLIC_EXPONENT)
#undef NAME
                                                                default : return "CKA_?";
  }
}

// Exists: the attribute has a value (a length query answers CKR_OK).
void CheckExists(Fixture& f, CK_SESSION_HANDLE s, const std::string& cls, CK_OBJECT_HANDLE object,
                 const std::vector<CK_ATTRIBUTE_TYPE>& types, const char* section) {
  for (CK_ATTRIBUTE_TYPE type : types) {
    CK_ATTRIBUTE attribute = {type, nullptr, 0};
    f.suite().Rv("class." + cls + ".has." + AttributeName(type), section, CKR_OK,
                 f.p11()->C_GetAttributeValue(s, object, &attribute, 1));
  }
}

void CheckBool(Fixture& f, CK_SESSION_HANDLE s, const std::string& cls, CK_OBJECT_HANDLE object,
               CK_ATTRIBUTE_TYPE type, bool expected, const char* section) {
  std::vector<CK_BYTE> value = f.Attribute(s, object, type);
  bool ok = value.size() == 1 && value[0] == (expected ? CK_TRUE : CK_FALSE);
  f.suite().True("class." + cls + ".default." + AttributeName(type), section, ok,
                 expected ? "CK_TRUE" : "CK_FALSE",
                 value.size() == 1 ? (value[0] ? "CK_TRUE" : "CK_FALSE") : "no 1-byte value");
}

void CheckUlong(Fixture& f, CK_SESSION_HANDLE s, const std::string& cls, CK_OBJECT_HANDLE object,
                CK_ATTRIBUTE_TYPE type, CK_ULONG expected, const char* section) {
  std::vector<CK_BYTE> value = f.Attribute(s, object, type);
  CK_ULONG got = 0;
  bool sized = value.size() == sizeof got;
  if (sized) std::memcpy(&got, value.data(), sizeof got);
  f.suite().True("class." + cls + ".default." + AttributeName(type), section,
                 sized && got == expected, Hex(expected), sized ? Hex(got) : "no CK_ULONG value");
}

const std::vector<CK_ATTRIBUTE_TYPE> kStorage = {
    CKA_CLASS, CKA_TOKEN, CKA_PRIVATE, CKA_MODIFIABLE, CKA_LABEL, CKA_COPYABLE, CKA_DESTROYABLE};
const std::vector<CK_ATTRIBUTE_TYPE> kKey = {
    CKA_KEY_TYPE, CKA_ID,    CKA_START_DATE,        CKA_END_DATE,
    CKA_DERIVE,   CKA_LOCAL, CKA_KEY_GEN_MECHANISM, CKA_ALLOWED_MECHANISMS};
const std::vector<CK_ATTRIBUTE_TYPE> kPublic = {CKA_SUBJECT,        CKA_ENCRYPT,        CKA_VERIFY,
                                                CKA_VERIFY_RECOVER, CKA_WRAP,           CKA_TRUSTED,
                                                CKA_WRAP_TEMPLATE,  CKA_PUBLIC_KEY_INFO};
const std::vector<CK_ATTRIBUTE_TYPE> kPrivate = {CKA_SUBJECT,           CKA_SENSITIVE,
                                                 CKA_DECRYPT,           CKA_SIGN,
                                                 CKA_SIGN_RECOVER,      CKA_UNWRAP,
                                                 CKA_EXTRACTABLE,       CKA_ALWAYS_SENSITIVE,
                                                 CKA_NEVER_EXTRACTABLE, CKA_WRAP_WITH_TRUSTED,
                                                 CKA_UNWRAP_TEMPLATE,   CKA_ALWAYS_AUTHENTICATE,
                                                 CKA_PUBLIC_KEY_INFO};
const std::vector<CK_ATTRIBUTE_TYPE> kSecret = {CKA_SENSITIVE,        CKA_ENCRYPT,
                                                CKA_DECRYPT,          CKA_SIGN,
                                                CKA_VERIFY,           CKA_WRAP,
                                                CKA_UNWRAP,           CKA_EXTRACTABLE,
                                                CKA_ALWAYS_SENSITIVE, CKA_NEVER_EXTRACTABLE,
                                                CKA_CHECK_VALUE,      CKA_WRAP_WITH_TRUSTED,
                                                CKA_TRUSTED,          CKA_WRAP_TEMPLATE,
                                                CKA_UNWRAP_TEMPLATE,  CKA_VALUE_LEN};

void CheckClasses(Fixture& f, CK_SESSION_HANDLE s) {
  // Data object (§4.5): only the class and the label given.
  Template data;
  data.Ulong(CKA_CLASS, CKO_DATA).Bool(CKA_TOKEN, false);
  CK_OBJECT_HANDLE object = CK_INVALID_HANDLE;
  if (f.suite().Rv("class.data.create_minimal", "4.5", CKR_OK,
                   f.p11()->C_CreateObject(s, data.data(), data.size(), &object))) {
    CheckExists(f, s, "data", object, kStorage, "4.4");
    CheckExists(f, s, "data", object, {CKA_APPLICATION, CKA_OBJECT_ID, CKA_VALUE}, "4.5");
    CheckBool(f, s, "data", object, CKA_MODIFIABLE, true, "4.4");
    CheckBool(f, s, "data", object, CKA_COPYABLE, true, "4.4");
    CheckBool(f, s, "data", object, CKA_DESTROYABLE, true, "4.4");
    CheckBool(f, s, "data", object, CKA_TOKEN, false, "4.4");
    CK_ATTRIBUTE label = {CKA_LABEL, nullptr, 0};
    f.p11()->C_GetAttributeValue(s, object, &label, 1);
    f.suite().True("class.data.default.CKA_LABEL", "4.4", label.ulValueLen == 0, "empty",
                   std::to_string(label.ulValueLen) + " bytes");
  }

  // X.509 certificate (§4.6): the required attributes only.
  const std::vector<CK_BYTE> der = {0x30, 0x03, 0x02, 0x01, 0x01};
  Template cert;
  cert.Ulong(CKA_CLASS, CKO_CERTIFICATE)
      .Bool(CKA_TOKEN, false)
      .Ulong(CKA_CERTIFICATE_TYPE, CKC_X_509)
      .Bytes(CKA_SUBJECT, der)
      .Bytes(CKA_VALUE, der);
  if (f.suite().Rv("class.x509.create_minimal", "4.6.3", CKR_OK,
                   f.p11()->C_CreateObject(s, cert.data(), cert.size(), &object))) {
    CheckExists(f, s, "x509", object, kStorage, "4.4");
    CheckExists(f, s, "x509", object,
                {CKA_CERTIFICATE_TYPE, CKA_TRUSTED, CKA_CERTIFICATE_CATEGORY, CKA_CHECK_VALUE,
                 CKA_START_DATE, CKA_END_DATE, CKA_PUBLIC_KEY_INFO},
                "4.6.2");
    CheckExists(f, s, "x509", object,
                {CKA_SUBJECT, CKA_ID, CKA_ISSUER, CKA_SERIAL_NUMBER, CKA_VALUE, CKA_URL,
                 CKA_HASH_OF_SUBJECT_PUBLIC_KEY, CKA_HASH_OF_ISSUER_PUBLIC_KEY,
                 CKA_JAVA_MIDP_SECURITY_DOMAIN, CKA_NAME_HASH_ALGORITHM},
                "4.6.3");
    CheckBool(f, s, "x509", object, CKA_TRUSTED, false, "4.6.2");
    CheckUlong(f, s, "x509", object, CKA_CERTIFICATE_CATEGORY, 0, "4.6.2");
    CheckUlong(f, s, "x509", object, CKA_JAVA_MIDP_SECURITY_DOMAIN, 0, "4.6.3");
    CheckUlong(f, s, "x509", object, CKA_NAME_HASH_ALGORITHM, CKM_SHA_1, "4.6.3");
  }

  // Generated keys (§4.7-4.10): every common, public, private and secret attribute.
  if (f.Offers(CKM_EC_KEY_PAIR_GEN)) {
    KeyPair ec = f.Generate(s, KeyKind::kEc, Template().Bool(CKA_VERIFY, true),
                            Template().Bool(CKA_SIGN, true).Bool(CKA_SENSITIVE, true));
    if (ec.ok()) {
      CheckExists(f, s, "ec_public", ec.pub, kStorage, "4.4");
      CheckExists(f, s, "ec_public", ec.pub, kKey, "4.7.2");
      CheckExists(f, s, "ec_public", ec.pub, kPublic, "4.8");
      CheckExists(f, s, "ec_public", ec.pub, {CKA_EC_PARAMS, CKA_EC_POINT}, "EC public key");
      CheckExists(f, s, "ec_private", ec.priv, kStorage, "4.4");
      CheckExists(f, s, "ec_private", ec.priv, kKey, "4.7.2");
      CheckExists(f, s, "ec_private", ec.priv, kPrivate, "4.9");
      CheckExists(f, s, "ec_private", ec.priv, {CKA_EC_PARAMS}, "EC private key");
      CheckBool(f, s, "ec_private", ec.priv, CKA_LOCAL, true, "4.7.2");
      CheckBool(f, s, "ec_private", ec.priv, CKA_ALWAYS_SENSITIVE, true, "4.9");
      CheckBool(f, s, "ec_private", ec.priv, CKA_DERIVE, false, "4.7.2");
      CheckBool(f, s, "ec_private", ec.priv, CKA_ALWAYS_AUTHENTICATE, false, "4.9");
      CheckBool(f, s, "ec_public", ec.pub, CKA_LOCAL, true, "4.7.2");
    }
  }
  if (f.Offers(CKM_RSA_PKCS_KEY_PAIR_GEN)) {
    KeyPair rsa = f.Generate(s, KeyKind::kRsa, Template().Bool(CKA_VERIFY, true),
                             Template().Bool(CKA_SIGN, true).Bool(CKA_SENSITIVE, true));
    if (rsa.ok()) {
      CheckExists(f, s, "rsa_public", rsa.pub, {CKA_MODULUS, CKA_MODULUS_BITS, CKA_PUBLIC_EXPONENT},
                  "RSA public key");
      CheckExists(f, s, "rsa_private", rsa.priv, {CKA_MODULUS, CKA_PUBLIC_EXPONENT},
                  "RSA private key");
      for (CK_ATTRIBUTE_TYPE type : {CKA_PRIVATE_EXPONENT, CKA_PRIME_1, CKA_PRIME_2, CKA_EXPONENT_1,
                                     CKA_EXPONENT_2, CKA_COEFFICIENT}) {
        CK_ATTRIBUTE attribute = {type, nullptr, 0};
        f.suite().Rv("class.rsa_private.sensitive." + Hex(type), "4.9 / 5.7.5",
                     CKR_ATTRIBUTE_SENSITIVE,
                     f.p11()->C_GetAttributeValue(s, rsa.priv, &attribute, 1));
      }
      CheckUlong(f, s, "rsa_public", rsa.pub, CKA_MODULUS_BITS, 2048, "RSA public key");
      CheckUlong(f, s, "rsa_private", rsa.priv, CKA_KEY_GEN_MECHANISM, CKM_RSA_PKCS_KEY_PAIR_GEN,
                 "4.7.2");
    }
  }
  if (f.Offers(CKM_EC_EDWARDS_KEY_PAIR_GEN)) {
    KeyPair ed = f.Generate(s, KeyKind::kEd25519, Template().Bool(CKA_VERIFY, true),
                            Template().Bool(CKA_SIGN, true));
    if (ed.ok()) {
      CheckExists(f, s, "ed25519_public", ed.pub, {CKA_EC_PARAMS, CKA_EC_POINT},
                  "EdDSA public key");
      CheckExists(f, s, "ed25519_private", ed.priv, {CKA_EC_PARAMS}, "EdDSA private key");
    }
  }
  // An AES key given by value: not local, never "always sensitive".
  Template imported;
  imported.Ulong(CKA_CLASS, CKO_SECRET_KEY)
      .Ulong(CKA_KEY_TYPE, CKK_AES)
      .Bool(CKA_TOKEN, false)
      .Bytes(CKA_VALUE, std::vector<CK_BYTE>(16, 0x11))
      .Bool(CKA_ENCRYPT, true);
  if (f.p11()->C_CreateObject(s, imported.data(), imported.size(), &object) == CKR_OK) {
    CheckBool(f, s, "aes_imported", object, CKA_LOCAL, false, "4.7.2");
    CheckBool(f, s, "aes_imported", object, CKA_ALWAYS_SENSITIVE, false, "4.10");
    CheckBool(f, s, "aes_imported", object, CKA_NEVER_EXTRACTABLE, false, "4.10");
    CheckUlong(f, s, "aes_imported", object, CKA_KEY_GEN_MECHANISM, CK_UNAVAILABLE_INFORMATION,
               "4.7.2");
    CheckUlong(f, s, "aes_imported", object, CKA_VALUE_LEN, 16, "4.10 / AES");
  }
  if (f.Offers(CKM_AES_KEY_GEN)) {
    KeyPair aes = f.Generate(s, KeyKind::kAes, {}, Template().Bool(CKA_ENCRYPT, true));
    if (aes.ok()) {
      CheckExists(f, s, "aes", aes.priv, kStorage, "4.4");
      CheckExists(f, s, "aes", aes.priv, kKey, "4.7.2");
      CheckExists(f, s, "aes", aes.priv, kSecret, "4.10");
      CheckBool(f, s, "aes", aes.priv, CKA_LOCAL, true, "4.7.2");
      CheckBool(f, s, "aes", aes.priv, CKA_DERIVE, false, "4.7.2");
      CheckUlong(f, s, "aes", aes.priv, CKA_KEY_GEN_MECHANISM, CKM_AES_KEY_GEN, "4.7.2");
      CheckUlong(f, s, "aes", aes.priv, CKA_VALUE_LEN, 32, "4.10 / AES");
    }
  }
}

}  // namespace

void RunAttributes(Fixture& f) {
  CK_SESSION_HANDLE s = f.Open(true);
  if (s == CK_INVALID_HANDLE) return f.suite().Skip("attr.", "no session");
  f.LoginUser(s);
  CheckGetAttributeRules(f, s);
  CheckClasses(f, s);
  f.CloseAll();
}

}  // namespace signet::conformance

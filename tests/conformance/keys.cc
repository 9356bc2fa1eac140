// [key.] Key management (§5.14) and key-specific rules: key generation
// arguments and templates, raw ECDSA of any input length (issue 11 point 8),
// RSA private keys from n and d only (point 7), CKA_ALLOWED_MECHANISMS
// (point 13), non-sensitive keys (point 14), CKA_ALWAYS_AUTHENTICATE and
// CKU_CONTEXT_SPECIFIC (point 15), key wrapping's length rules (§5.2).
#include <cstring>

#include "areas.h"

namespace signet::conformance {
namespace {

#ifndef CKM_AES_KEY_WRAP_KWP
#define CKM_AES_KEY_WRAP_KWP 0x210BUL
#endif

// A 1024-bit RSA test key (modulus and private exponent; e = 65537).
const std::vector<CK_BYTE> kRsaModulus = {
    0xbf, 0xe3, 0x8f, 0x86, 0x4e, 0xee, 0xc3, 0xfb, 0x21, 0x1d, 0xd4, 0x89, 0x1e, 0x0e, 0xa8, 0xc3,
    0x31, 0x07, 0xf6, 0x45, 0xfc, 0xd0, 0x26, 0xcc, 0xd3, 0x68, 0x22, 0x88, 0x74, 0x5c, 0x17, 0x9e,
    0x4c, 0xe0, 0x77, 0x80, 0x82, 0xfa, 0x3e, 0xae, 0x1b, 0x23, 0xea, 0xe0, 0x61, 0xdf, 0x16, 0x3e,
    0x10, 0xfc, 0xdc, 0xf6, 0xa6, 0xed, 0xff, 0xde, 0x93, 0x4f, 0xf4, 0xe3, 0x03, 0x85, 0x3c, 0xc2,
    0xec, 0x19, 0x7b, 0xd9, 0x48, 0x74, 0xdd, 0x53, 0x11, 0x10, 0x46, 0x8a, 0xd8, 0x1b, 0x15, 0x54,
    0x53, 0x36, 0xa2, 0x13, 0x40, 0x8a, 0x38, 0x89, 0x64, 0xfd, 0x51, 0x9c, 0x4e, 0xff, 0xed, 0x02,
    0xed, 0x7c, 0xd0, 0x60, 0xae, 0x87, 0xf5, 0xb5, 0x66, 0x16, 0x81, 0xc4, 0x17, 0xe1, 0xe3, 0xe5,
    0xd1, 0x3e, 0x0d, 0x95, 0xb0, 0xad, 0x90, 0xf6, 0x13, 0xeb, 0x5e, 0x37, 0x27, 0x5e, 0x1d, 0xa7};
const std::vector<CK_BYTE> kRsaPrivateExponent = {
    0x87, 0x70, 0xe5, 0xb3, 0x55, 0x2f, 0x6e, 0xa1, 0x69, 0x44, 0x96, 0xe9, 0x99, 0x8f, 0x9b, 0x4a,
    0xfa, 0xe6, 0xb5, 0xcb, 0xbc, 0xa0, 0x67, 0x62, 0x97, 0xad, 0x9f, 0x02, 0x55, 0xaf, 0x52, 0xf4,
    0x67, 0x2a, 0xe0, 0xee, 0x92, 0x84, 0x73, 0x8d, 0x8c, 0x96, 0x93, 0x88, 0x81, 0x4c, 0x67, 0x74,
    0xb3, 0xa4, 0xe7, 0x8a, 0x29, 0x55, 0x40, 0x0f, 0x28, 0x47, 0x7d, 0x80, 0x66, 0xd1, 0xba, 0x8a,
    0x57, 0xd2, 0x68, 0xa6, 0x57, 0x4e, 0xe6, 0x84, 0x78, 0x74, 0x0d, 0xa7, 0xea, 0x8d, 0x80, 0x00,
    0x06, 0x9f, 0x7a, 0xbd, 0xfa, 0xb4, 0x92, 0xe7, 0x20, 0x4e, 0xe3, 0x5c, 0x60, 0x33, 0x13, 0x3f,
    0x3a, 0x6a, 0x6d, 0x3b, 0xd3, 0xb6, 0x34, 0xc2, 0xb6, 0x7e, 0x2d, 0x22, 0xca, 0xef, 0x50, 0x81,
    0x1f, 0x37, 0xc4, 0x23, 0x3d, 0xcc, 0xf8, 0xcc, 0xdd, 0xd8, 0xa8, 0x3a, 0xf3, 0x1c, 0x86, 0x61};

// SignVerify signs `data` with `priv` and checks the signature with `pub`;
// returns the first failing call's code (CKR_OK when both worked).
CK_RV SignVerify(Fixture& f, CK_SESSION_HANDLE s, CK_MECHANISM_TYPE type, CK_OBJECT_HANDLE priv,
                 CK_OBJECT_HANDLE pub, std::vector<CK_BYTE> data) {
  CK_MECHANISM m = {type, nullptr, 0};
  CK_BYTE signature[512];
  CK_ULONG length = sizeof signature;
  CK_RV rv = f.p11()->C_SignInit(s, &m, priv);
  if (rv == CKR_OK) rv = f.p11()->C_Sign(s, data.data(), data.size(), signature, &length);
  if (rv == CKR_OK) rv = f.p11()->C_VerifyInit(s, &m, pub);
  if (rv == CKR_OK) rv = f.p11()->C_Verify(s, data.data(), data.size(), signature, length);
  return rv;
}

void CheckGenerateArguments(Fixture& f, CK_SESSION_HANDLE s) {
  Suite& suite = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_OBJECT_HANDLE key, key2;
  CK_MECHANISM aes = {CKM_AES_KEY_GEN, nullptr, 0}, sha = {CKM_SHA256, nullptr, 0};
  Template t;
  t.Bool(CKA_TOKEN, false).Ulong(CKA_VALUE_LEN, 32);
  suite.Rv("key.generate.null_mechanism", "5.14.1", CKR_ARGUMENTS_BAD,
           p->C_GenerateKey(s, nullptr, t.data(), t.size(), &key));
  suite.Rv("key.generate.null_handle", "5.14.1", CKR_ARGUMENTS_BAD,
           p->C_GenerateKey(s, &aes, t.data(), t.size(), nullptr));
  suite.Rv("key.generate.mechanism_invalid", "5.14.1", CKR_MECHANISM_INVALID,
           p->C_GenerateKey(s, &sha, t.data(), t.size(), &key));
  Template no_length;
  no_length.Bool(CKA_TOKEN, false);
  suite.Rv("key.generate.aes_without_value_len", "5.14.1 / AES", CKR_TEMPLATE_INCOMPLETE,
           p->C_GenerateKey(s, &aes, no_length.data(), no_length.size(), &key));
  Template wrong_class;
  wrong_class.Bool(CKA_TOKEN, false).Ulong(CKA_VALUE_LEN, 32).Ulong(CKA_CLASS, CKO_PUBLIC_KEY);
  suite.Rv("key.generate.class_inconsistent", "5.14.1", CKR_TEMPLATE_INCONSISTENT,
           p->C_GenerateKey(s, &aes, wrong_class.data(), wrong_class.size(), &key));
  Template read_only;
  read_only.Bool(CKA_TOKEN, false).Ulong(CKA_VALUE_LEN, 32).Bool(CKA_LOCAL, false);
  suite.Rv("key.generate.read_only_attribute", "5.14.1 / 4.1.1", CKR_ATTRIBUTE_READ_ONLY,
           p->C_GenerateKey(s, &aes, read_only.data(), read_only.size(), &key));

  CK_MECHANISM ec = {CKM_EC_KEY_PAIR_GEN, nullptr, 0},
               rsa = {CKM_RSA_PKCS_KEY_PAIR_GEN, nullptr, 0};
  Template pub, priv;
  pub.Bool(CKA_TOKEN, false);
  priv.Bool(CKA_TOKEN, false);
  suite.Rv("key.generate_pair.null_mechanism", "5.14.2", CKR_ARGUMENTS_BAD,
           p->C_GenerateKeyPair(s, nullptr, pub.data(), pub.size(), priv.data(), priv.size(), &key,
                                &key2));
  suite.Rv("key.generate_pair.null_handles", "5.14.2", CKR_ARGUMENTS_BAD,
           p->C_GenerateKeyPair(s, &ec, pub.data(), pub.size(), priv.data(), priv.size(), nullptr,
                                nullptr));
  suite.Rv(
      "key.generate_pair.ec_without_params", "5.14.2 / EC", CKR_TEMPLATE_INCOMPLETE,
      p->C_GenerateKeyPair(s, &ec, pub.data(), pub.size(), priv.data(), priv.size(), &key, &key2));
  suite.Rv(
      "key.generate_pair.rsa_without_modulus_bits", "5.14.2 / RSA", CKR_TEMPLATE_INCOMPLETE,
      p->C_GenerateKeyPair(s, &rsa, pub.data(), pub.size(), priv.data(), priv.size(), &key, &key2));
}

void CheckMechanismRules(Fixture& f, CK_SESSION_HANDLE s) {
  Suite& suite = f.suite();
  // Issue 11 point 8: raw ECDSA signs input of any length (FIPS 186-4 truncation).
  if (f.Offers(CKM_ECDSA, CKF_SIGN)) {
    KeyPair ec = f.Generate(s, KeyKind::kEc, Template().Bool(CKA_VERIFY, true),
                            Template().Bool(CKA_SIGN, true));
    if (ec.ok()) {
      suite.Rv("key.ecdsa_raw.short_input", "EC mechanisms (CKM_ECDSA)", CKR_OK,
               SignVerify(f, s, CKM_ECDSA, ec.priv, ec.pub, std::vector<CK_BYTE>(15, 0x5a)));
      suite.Rv("key.ecdsa_raw.long_input", "EC mechanisms (CKM_ECDSA)", CKR_OK,
               SignVerify(f, s, CKM_ECDSA, ec.priv, ec.pub, std::vector<CK_BYTE>(64, 0x5a)));
    }
  }

  // Issue 11 point 7: an RSA private key needs only CKA_MODULUS and CKA_PRIVATE_EXPONENT.
  if (f.Offers(CKM_RSA_PKCS, CKF_SIGN)) {
    Template priv, pub;
    priv.Ulong(CKA_CLASS, CKO_PRIVATE_KEY)
        .Ulong(CKA_KEY_TYPE, CKK_RSA)
        .Bool(CKA_TOKEN, false)
        .Bool(CKA_SIGN, true)
        .Bytes(CKA_MODULUS, kRsaModulus)
        .Bytes(CKA_PRIVATE_EXPONENT, kRsaPrivateExponent);
    pub.Ulong(CKA_CLASS, CKO_PUBLIC_KEY)
        .Ulong(CKA_KEY_TYPE, CKK_RSA)
        .Bool(CKA_TOKEN, false)
        .Bool(CKA_VERIFY, true)
        .Bytes(CKA_MODULUS, kRsaModulus)
        .Bytes(CKA_PUBLIC_EXPONENT, {1, 0, 1});
    CK_OBJECT_HANDLE priv_key = CK_INVALID_HANDLE, pub_key = CK_INVALID_HANDLE;
    f.p11()->C_CreateObject(s, pub.data(), pub.size(), &pub_key);
    if (suite.Rv("key.rsa_private_n_d.create", "4.9 / RSA private key", CKR_OK,
                 f.p11()->C_CreateObject(s, priv.data(), priv.size(), &priv_key))) {
      suite.Rv("key.rsa_private_n_d.sign", "RSA PKCS #1 v1.5", CKR_OK,
               SignVerify(f, s, CKM_RSA_PKCS, priv_key, pub_key, std::vector<CK_BYTE>(32, 0x33)));
    }
  }

  if (!f.Offers(CKM_EC_KEY_PAIR_GEN)) return;
  // Issue 11 point 13: CKA_ALLOWED_MECHANISMS is kept and enforced at *Init.
  CK_MECHANISM_TYPE allowed = CKM_ECDSA_SHA256;
  if (!f.Offers(allowed, CKF_SIGN)) allowed = CKM_ECDSA;
  std::vector<CK_BYTE> list(sizeof allowed);
  std::memcpy(list.data(), &allowed, sizeof allowed);
  KeyPair limited = f.Generate(s, KeyKind::kEc, Template().Bool(CKA_VERIFY, true),
                               Template().Bool(CKA_SIGN, true).Bytes(CKA_ALLOWED_MECHANISMS, list));
  suite.True("key.allowed_mechanisms.accepted", "4.7.2", limited.ok(), "key generated",
             limited.ok() ? "generated" : "refused");
  if (limited.ok()) {
    bool same = f.Attribute(s, limited.priv, CKA_ALLOWED_MECHANISMS) == list;
    suite.True("key.allowed_mechanisms.stored", "4.7.2", same, "the list given",
               same ? "the list given" : "another value");
    CK_MECHANISM other = {allowed == CKM_ECDSA ? CKM_ECDSA_SHA256 : CKM_ECDSA, nullptr, 0};
    if (f.Offers(other.mechanism, CKF_SIGN)) {
      suite.Rv("key.allowed_mechanisms.enforced", "4.7.2 / 5.11.1", CKR_MECHANISM_INVALID,
               f.p11()->C_SignInit(s, &other, limited.priv));
    }
    CK_MECHANISM ok = {allowed, nullptr, 0};
    suite.Rv("key.allowed_mechanisms.allowed_one", "5.11.1", CKR_OK,
             f.p11()->C_SignInit(s, &ok, limited.priv));
    f.p11()->C_CloseSession(s);  // ends the operation; RunKeys opens the next session
  }
}

void CheckKeyPolicies(Fixture& f) {
  Suite& suite = f.suite();
  CK_SESSION_HANDLE s = f.Open(true);
  f.LoginUser(s);
  if (!f.Offers(CKM_EC_KEY_PAIR_GEN)) return;
  // Issue 11 point 14: a key generated non-sensitive has readable components.
  KeyPair open = f.Generate(
      s, KeyKind::kEc, Template().Bool(CKA_VERIFY, true),
      Template().Bool(CKA_SIGN, true).Bool(CKA_SENSITIVE, false).Bool(CKA_EXTRACTABLE, true));
  if (open.ok()) {
    CK_RV rv;
    f.Attribute(s, open.priv, CKA_VALUE, &rv);
    suite.Rv("key.non_sensitive.value_readable", "4.9 / 5.7.5", CKR_OK, rv);
  } else {
    suite.Skip("key.non_sensitive.value_readable", "the token refuses non-sensitive private keys");
  }

  // Issue 11 point 15: CKA_ALWAYS_AUTHENTICATE needs CKU_CONTEXT_SPECIFIC before each use.
  KeyPair always = f.Generate(s, KeyKind::kEc, Template().Bool(CKA_VERIFY, true),
                              Template().Bool(CKA_SIGN, true).Bool(CKA_ALWAYS_AUTHENTICATE, true));
  if (!always.ok()) {
    suite.Skip("key.always_authenticate", "the token refuses CKA_ALWAYS_AUTHENTICATE");
    return;
  }
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_MECHANISM m = {CKM_ECDSA, nullptr, 0};
  CK_BYTE data[32] = {}, signature[128];
  CK_ULONG length = sizeof signature;
  if (!f.Offers(CKM_ECDSA, CKF_SIGN)) return;
  p->C_SignInit(s, &m, always.priv);
  suite.Rv("key.always_authenticate.sign_without_context_login", "4.9 / 5.6.7",
           CKR_USER_NOT_LOGGED_IN, p->C_Sign(s, data, sizeof data, signature, &length));
  CK_SESSION_HANDLE s2 = f.Open(true);
  p->C_SignInit(s2, &m, always.priv);
  const std::string wrong = f.options().user_pin + "x";
  suite.Rv(
      "key.always_authenticate.context_login_wrong_pin", "5.6.7", CKR_PIN_INCORRECT,
      p->C_Login(s2, CKU_CONTEXT_SPECIFIC,
                 reinterpret_cast<CK_UTF8CHAR_PTR>(const_cast<char*>(wrong.data())), wrong.size()));
  suite.Rv("key.always_authenticate.context_login", "5.6.7", CKR_OK,
           f.Login(s2, CKU_CONTEXT_SPECIFIC));
  length = sizeof signature;
  suite.Rv("key.always_authenticate.sign_after_context_login", "4.9", CKR_OK,
           p->C_Sign(s2, data, sizeof data, signature, &length));
  f.CloseAll();
}

// Issue 11 point 13: CKA_WRAP_TEMPLATE limits what a key wraps (§5.14.3:
// CKR_KEY_NOT_WRAPPABLE), CKA_UNWRAP_TEMPLATE is applied to what it unwraps
// and conflicts with the caller's template are CKR_TEMPLATE_INCONSISTENT
// (§5.14.4, §4.1.1).
void CheckWrapTemplates(Fixture& f, CK_SESSION_HANDLE s, CK_MECHANISM& m, CK_OBJECT_HANDLE target) {
  Suite& suite = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
  CK_ATTRIBUTE wrap_only[] = {{CKA_DECRYPT, &yes, 1}};  // the target (encrypt only) does not match
  CK_ATTRIBUTE unwrap_as[] = {{CKA_EXTRACTABLE, &no, 1}};
  KeyPair kek = f.Generate(s, KeyKind::kAes, {},
                           Template()
                               .Bool(CKA_WRAP, true)
                               .Bool(CKA_UNWRAP, true)
                               .Raw(CKA_WRAP_TEMPLATE, wrap_only, sizeof wrap_only)
                               .Raw(CKA_UNWRAP_TEMPLATE, unwrap_as, sizeof unwrap_as));
  if (!suite.True("key.wrap_template.accepted", "4.10", kek.ok(), "key generated",
                  kek.ok() ? "generated" : "refused"))
    return;
  CK_ATTRIBUTE stored = {CKA_WRAP_TEMPLATE, nullptr, 0};
  suite.Rv("key.wrap_template.stored", "4.10 / 5.7.5", CKR_OK,
           p->C_GetAttributeValue(s, kek.priv, &stored, 1));
  suite.True("key.wrap_template.stored_length", "5.7.5", stored.ulValueLen == sizeof wrap_only,
             std::to_string(sizeof wrap_only) + " (one CK_ATTRIBUTE)",
             std::to_string(stored.ulValueLen));
  // An array attribute is read like a template (§5.7.5, CKF_ARRAY_ATTRIBUTE):
  // element lengths first, then element values.
  CK_ATTRIBUTE element = {0, nullptr, 0};
  stored = {CKA_WRAP_TEMPLATE, &element, sizeof element};
  CK_RV rv = p->C_GetAttributeValue(s, kek.priv, &stored, 1);
  suite.True(
      "key.wrap_template.read_element_length", "5.7.5 / 4.1.4",
      rv == CKR_OK && element.type == CKA_DECRYPT && element.ulValueLen == 1,
      "CKR_OK, CKA_DECRYPT of length 1",
      RvName(rv) + ", " + Hex(element.type) + " of length " + std::to_string(element.ulValueLen));
  CK_BBOOL value = 7;
  element.pValue = &value;
  element.ulValueLen = sizeof value;
  rv = p->C_GetAttributeValue(s, kek.priv, &stored, 1);
  suite.True("key.wrap_template.read_element_value", "5.7.5 / 4.1.4",
             rv == CKR_OK && value == CK_TRUE, "CKR_OK, CK_TRUE",
             RvName(rv) + ", " + std::to_string(value));
  std::vector<CK_BYTE> wrapped(512);
  CK_ULONG size = wrapped.size();
  suite.Rv("key.wrap_template.enforced", "5.14.3", CKR_KEY_NOT_WRAPPABLE,
           p->C_WrapKey(s, &m, kek.priv, target, wrapped.data(), &size));
  KeyPair matching = f.Generate(s, KeyKind::kAes, {},
                                Template().Bool(CKA_DECRYPT, true).Bool(CKA_EXTRACTABLE, true));
  if (!matching.ok()) return;
  size = wrapped.size();
  if (!suite.Rv("key.wrap_template.matching_key", "5.14.3", CKR_OK,
                p->C_WrapKey(s, &m, kek.priv, matching.priv, wrapped.data(), &size))) {
    return;
  }
  Template conflict;
  conflict.Ulong(CKA_CLASS, CKO_SECRET_KEY)
      .Ulong(CKA_KEY_TYPE, CKK_AES)
      .Bool(CKA_TOKEN, false)
      .Bool(CKA_EXTRACTABLE, true);
  CK_OBJECT_HANDLE unwrapped = CK_INVALID_HANDLE;
  suite.Rv("key.unwrap_template.conflict", "5.14.4 / 4.1.1", CKR_TEMPLATE_INCONSISTENT,
           p->C_UnwrapKey(s, &m, kek.priv, wrapped.data(), size, conflict.data(), conflict.size(),
                          &unwrapped));
  Template fine;
  fine.Ulong(CKA_CLASS, CKO_SECRET_KEY).Ulong(CKA_KEY_TYPE, CKK_AES).Bool(CKA_TOKEN, false);
  if (suite.Rv("key.unwrap_template.ok", "5.14.4", CKR_OK,
               p->C_UnwrapKey(s, &m, kek.priv, wrapped.data(), size, fine.data(), fine.size(),
                              &unwrapped))) {
    bool applied = f.Attribute(s, unwrapped, CKA_EXTRACTABLE) == std::vector<CK_BYTE>{CK_FALSE};
    suite.True("key.unwrap_template.applied", "5.14.4", applied,
               "CKA_EXTRACTABLE CK_FALSE from the unwrap template",
               applied ? "CK_FALSE" : "another value");
  }
}

void CheckWrap(Fixture& f) {
  Suite& suite = f.suite();
  CK_MECHANISM_TYPE type = f.Offers(CKM_AES_KEY_WRAP_KWP, CKF_WRAP)   ? CKM_AES_KEY_WRAP_KWP
                           : f.Offers(CKM_AES_KEY_WRAP_PAD, CKF_WRAP) ? CKM_AES_KEY_WRAP_PAD
                                                                      : 0;
  if (type == 0 || !f.Offers(CKM_AES_KEY_GEN))
    return suite.Skip("key.wrap", "no AES key wrap with padding");
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_SESSION_HANDLE s = f.Open(true);
  f.LoginUser(s);
  KeyPair kek =
      f.Generate(s, KeyKind::kAes, {}, Template().Bool(CKA_WRAP, true).Bool(CKA_UNWRAP, true));
  KeyPair target = f.Generate(
      s, KeyKind::kAes, {},
      Template().Bool(CKA_EXTRACTABLE, true).Bool(CKA_ENCRYPT, true).Bool(CKA_DECRYPT, false));
  KeyPair fixed = f.Generate(s, KeyKind::kAes, {},
                             Template().Bool(CKA_EXTRACTABLE, false).Bool(CKA_ENCRYPT, true));
  if (!kek.ok() || !target.ok() || !fixed.ok())
    return suite.Skip("key.wrap", "AES key generation failed");
  CK_MECHANISM m = {type, nullptr, 0};
  CK_ULONG length = 0;
  suite.Rv("key.wrap.null_length", "5.14.3", CKR_ARGUMENTS_BAD,
           p->C_WrapKey(s, &m, kek.priv, target.priv, nullptr, nullptr));
  suite.Rv("key.wrap.length_query", "5.2", CKR_OK,
           p->C_WrapKey(s, &m, kek.priv, target.priv, nullptr, &length));
  CK_BYTE small[1];
  CK_ULONG one = 1;
  suite.Rv("key.wrap.buffer_too_small", "5.2", CKR_BUFFER_TOO_SMALL,
           p->C_WrapKey(s, &m, kek.priv, target.priv, small, &one));
  suite.True("key.wrap.buffer_too_small_length", "5.2",
             one >= 40 && one != CK_UNAVAILABLE_INFORMATION, ">= 40", std::to_string(one));
  std::vector<CK_BYTE> wrapped(std::max<CK_ULONG>(length, 64));
  CK_ULONG size = wrapped.size();
  suite.Rv("key.wrap.ok", "5.14.3", CKR_OK,
           p->C_WrapKey(s, &m, kek.priv, target.priv, wrapped.data(), &size));
  size_t got = size;
  size = wrapped.size();
  suite.Rv("key.wrap.unextractable", "5.14.3", CKR_KEY_UNEXTRACTABLE,
           p->C_WrapKey(s, &m, kek.priv, fixed.priv, wrapped.data() + 0, &size));
  suite.Rv("key.wrap.wrapping_key_handle_invalid", "5.14.3", CKR_WRAPPING_KEY_HANDLE_INVALID,
           p->C_WrapKey(s, &m, 0x7ffff00d, target.priv, wrapped.data(), &size));
  Template unwrap;
  unwrap.Ulong(CKA_CLASS, CKO_SECRET_KEY)
      .Ulong(CKA_KEY_TYPE, CKK_AES)
      .Bool(CKA_TOKEN, false)
      .Bool(CKA_ENCRYPT, true);
  CK_OBJECT_HANDLE unwrapped;
  suite.Rv("key.unwrap.ok", "5.14.4", CKR_OK,
           p->C_UnwrapKey(s, &m, kek.priv, wrapped.data(), got, unwrap.data(), unwrap.size(),
                          &unwrapped));
  suite.Rv("key.unwrap.null_wrapped_key", "5.14.4", CKR_ARGUMENTS_BAD,
           p->C_UnwrapKey(s, &m, kek.priv, nullptr, got, unwrap.data(), unwrap.size(), &unwrapped));
  suite.Rv(
      "key.unwrap.null_handle", "5.14.4", CKR_ARGUMENTS_BAD,
      p->C_UnwrapKey(s, &m, kek.priv, wrapped.data(), got, unwrap.data(), unwrap.size(), nullptr));
  suite.Rv("key.unwrap.unwrapping_key_handle_invalid", "5.14.4", CKR_UNWRAPPING_KEY_HANDLE_INVALID,
           p->C_UnwrapKey(s, &m, 0x7ffff00d, wrapped.data(), got, unwrap.data(), unwrap.size(),
                          &unwrapped));
  CheckWrapTemplates(f, s, m, target.priv);
  f.CloseAll();
}

}  // namespace

void RunKeys(Fixture& f) {
  CK_SESSION_HANDLE s = f.Open(true);
  if (s == CK_INVALID_HANDLE) return f.suite().Skip("key.", "no session");
  f.LoginUser(s);
  CheckGenerateArguments(f, s);
  CheckMechanismRules(f, s);
  f.CloseAll();
  CheckKeyPolicies(f);
  CheckWrap(f);
}

}  // namespace signet::conformance

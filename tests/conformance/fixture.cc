#include "fixture.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace signet::conformance {

const std::vector<CK_BYTE> kP256Params = {0x06, 0x08, 0x2a, 0x86, 0x48,
                                          0xce, 0x3d, 0x03, 0x01, 0x07};
const std::vector<CK_BYTE> kEd25519Params = {0x13, 0x0c, 'e', 'd', 'w', 'a', 'r',
                                             'd',  's',  '2', '5', '5', '1', '9'};

Template::Template(const Template& other) { *this = other; }

Template& Template::operator=(const Template& other) {
  if (this == &other) return *this;
  values_ = other.values_;
  attributes_ = other.attributes_;
  for (CK_ATTRIBUTE& a : attributes_) {
    for (std::size_t i = 0; i < other.values_.size(); ++i) {
      if (a.pValue != nullptr && a.pValue == other.values_[i].data()) a.pValue = values_[i].data();
    }
  }
  return *this;
}

Template& Template::Raw(CK_ATTRIBUTE_TYPE type, void* value, CK_ULONG length) {
  attributes_.push_back({type, value, length});
  return *this;
}

Template& Template::Bytes(CK_ATTRIBUTE_TYPE type, const std::vector<CK_BYTE>& value) {
  values_.push_back(value);
  std::vector<CK_BYTE>& stored = values_.back();
  attributes_.push_back({type, stored.empty() ? nullptr : stored.data(), stored.size()});
  return *this;
}

Template& Template::Bool(CK_ATTRIBUTE_TYPE type, bool value) {
  return Bytes(type, {static_cast<CK_BYTE>(value ? CK_TRUE : CK_FALSE)});
}

Template& Template::Ulong(CK_ATTRIBUTE_TYPE type, CK_ULONG value) {
  std::vector<CK_BYTE> bytes(sizeof value);
  std::memcpy(bytes.data(), &value, sizeof value);
  return Bytes(type, bytes);
}

Template& Template::Str(CK_ATTRIBUTE_TYPE type, const std::string& value) {
  return Bytes(type, std::vector<CK_BYTE>(value.begin(), value.end()));
}

std::string Hex(CK_ULONG value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%lX", static_cast<unsigned long>(value));
  return text;
}

std::string Blank(const CK_UTF8CHAR* field, size_t size) {
  std::string text(reinterpret_cast<const char*>(field), size);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

Fixture::Fixture(Suite& suite) : suite_(suite) {}

bool Fixture::FindToken() {
  CK_ULONG count = 0;
  if (p11()->C_GetSlotList(CK_TRUE, nullptr, &count) != CKR_OK) return false;
  std::vector<CK_SLOT_ID> slots(count);
  if (p11()->C_GetSlotList(CK_TRUE, slots.data(), &count) != CKR_OK) return false;
  for (CK_ULONG i = 0; i < count; ++i) {
    CK_TOKEN_INFO info;
    if (p11()->C_GetTokenInfo(slots[i], &info) != CKR_OK) continue;
    if (Blank(info.label, sizeof info.label) == options().token_label) {
      slot_ = slots[i];
      return true;
    }
  }
  return false;
}

CK_SESSION_HANDLE Fixture::Open(bool read_write) {
  CK_SESSION_HANDLE session = CK_INVALID_HANDLE;
  CK_FLAGS flags = CKF_SERIAL_SESSION | (read_write ? CKF_RW_SESSION : 0);
  CK_RV rv = p11()->C_OpenSession(slot_, flags, nullptr, nullptr, &session);
  if (rv != CKR_OK) {
    std::printf("note: C_OpenSession failed: %s\n", RvName(rv).c_str());
    return CK_INVALID_HANDLE;
  }
  return session;
}

CK_RV Fixture::Login(CK_SESSION_HANDLE session, CK_USER_TYPE user) {
  const std::string& pin = user == CKU_SO ? options().so_pin : options().user_pin;
  return p11()->C_Login(
      session, user, reinterpret_cast<CK_UTF8CHAR_PTR>(const_cast<char*>(pin.data())), pin.size());
}

void Fixture::CloseAll() { p11()->C_CloseAllSessions(slot_); }

CK_STATE Fixture::SessionState(CK_SESSION_HANDLE session) {
  CK_SESSION_INFO info;
  if (p11()->C_GetSessionInfo(session, &info) != CKR_OK) return ~CK_STATE{0};
  return info.state;
}

KeyPair Fixture::Generate(CK_SESSION_HANDLE session, KeyKind kind, Template pub, Template priv,
                          bool token) {
  KeyPair pair;
  CK_MECHANISM mechanism = {CKM_RSA_PKCS_KEY_PAIR_GEN, nullptr, 0};
  pub.Bool(CKA_TOKEN, token).Str(CKA_LABEL, "conformance");
  priv.Bool(CKA_TOKEN, token).Str(CKA_LABEL, "conformance");
  switch (kind) {
    case KeyKind::kRsa:
      pub.Ulong(CKA_MODULUS_BITS, 2048).Bytes(CKA_PUBLIC_EXPONENT, {0x01, 0x00, 0x01});
      break;
    case KeyKind::kEc:
      mechanism.mechanism = CKM_EC_KEY_PAIR_GEN;
      pub.Bytes(CKA_EC_PARAMS, kP256Params);
      break;
    case KeyKind::kEd25519:
      mechanism.mechanism = CKM_EC_EDWARDS_KEY_PAIR_GEN;
      pub.Bytes(CKA_EC_PARAMS, kEd25519Params);
      break;
    case KeyKind::kAes:
      mechanism.mechanism = CKM_AES_KEY_GEN;
      priv.Ulong(CKA_VALUE_LEN, 32);
      break;
  }
  CK_RV rv;
  if (kind == KeyKind::kAes) {
    rv = p11()->C_GenerateKey(session, &mechanism, priv.data(), priv.size(), &pair.priv);
  } else {
    rv = p11()->C_GenerateKeyPair(session, &mechanism, pub.data(), pub.size(), priv.data(),
                                  priv.size(), &pair.pub, &pair.priv);
  }
  if (rv != CKR_OK) {
    std::printf("note: key generation (mechanism %s) failed: %s\n",
                Hex(mechanism.mechanism).c_str(), RvName(rv).c_str());
    return KeyPair{};
  }
  if (token) {
    Track(pair.priv);
    if (pair.pub != CK_INVALID_HANDLE) Track(pair.pub);
  }
  return pair;
}

CK_OBJECT_HANDLE Fixture::CreateData(CK_SESSION_HANDLE session, const std::string& label,
                                     bool token, bool is_private) {
  Template tmpl;
  tmpl.Ulong(CKA_CLASS, CKO_DATA)
      .Bool(CKA_TOKEN, token)
      .Bool(CKA_PRIVATE, is_private)
      .Str(CKA_LABEL, label)
      .Str(CKA_VALUE, "conformance data");
  CK_OBJECT_HANDLE object = CK_INVALID_HANDLE;
  CK_RV rv = p11()->C_CreateObject(session, tmpl.data(), tmpl.size(), &object);
  if (rv != CKR_OK) {
    std::printf("note: C_CreateObject(data %s) failed: %s\n", label.c_str(), RvName(rv).c_str());
    return CK_INVALID_HANDLE;
  }
  if (token) Track(object);
  return object;
}

std::vector<CK_BYTE> Fixture::Attribute(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object,
                                        CK_ATTRIBUTE_TYPE type, CK_RV* rv_out) {
  CK_ATTRIBUTE attribute = {type, nullptr, 0};
  CK_RV rv = p11()->C_GetAttributeValue(session, object, &attribute, 1);
  std::vector<CK_BYTE> value;
  if (rv == CKR_OK && attribute.ulValueLen != CK_UNAVAILABLE_INFORMATION) {
    value.resize(std::min<CK_ULONG>(attribute.ulValueLen, 1u << 20));  // never an absurd allocation
    attribute.ulValueLen = value.size();
    attribute.pValue = value.data();
    rv = p11()->C_GetAttributeValue(session, object, &attribute, 1);
    value.resize(rv == CKR_OK ? attribute.ulValueLen : 0);
  }
  if (rv_out != nullptr) *rv_out = rv;
  return value;
}

int Fixture::Count(CK_SESSION_HANDLE session, Template tmpl) {
  if (p11()->C_FindObjectsInit(session, tmpl.data(), tmpl.size()) != CKR_OK) return -1;
  int total = 0;
  CK_OBJECT_HANDLE found[16];
  CK_ULONG count = 0;
  CK_RV rv;
  while ((rv = p11()->C_FindObjects(session, found, 16, &count)) == CKR_OK && count > 0) {
    total += static_cast<int>(count);
  }
  p11()->C_FindObjectsFinal(session);
  return rv == CKR_OK ? total : -1;
}

void Fixture::Cleanup() {
  if (!token_objects_.empty()) {
    CloseAll();
    CK_SESSION_HANDLE session = Open(true);
    if (session != CK_INVALID_HANDLE) {
      LoginUser(session);
      for (CK_OBJECT_HANDLE object : token_objects_) p11()->C_DestroyObject(session, object);
    }
    token_objects_.clear();
  }
  CloseAll();
}

const std::vector<CK_MECHANISM_TYPE>& Fixture::Mechanisms() {
  if (!mechanisms_read_) {
    mechanisms_read_ = true;
    CK_ULONG count = 0;
    if (p11()->C_GetMechanismList(slot_, nullptr, &count) == CKR_OK) {
      mechanisms_.resize(count);
      if (p11()->C_GetMechanismList(slot_, mechanisms_.data(), &count) != CKR_OK) count = 0;
      mechanisms_.resize(count);
    }
  }
  return mechanisms_;
}

bool Fixture::Offers(CK_MECHANISM_TYPE mechanism, CK_FLAGS flags) {
  for (CK_MECHANISM_TYPE offered : Mechanisms()) {
    if (offered != mechanism) continue;
    CK_MECHANISM_INFO info;
    if (p11()->C_GetMechanismInfo(slot_, mechanism, &info) != CKR_OK) return false;
    return (info.flags & flags) == flags;
  }
  return false;
}

}  // namespace signet::conformance

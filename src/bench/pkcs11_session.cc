#include "bench/pkcs11_session.h"

#include <dlfcn.h>

#include <cstdio>

namespace signet::bench {
namespace {

std::string TrimLabel(const CK_UTF8CHAR (&label)[32]) {
  std::string s(reinterpret_cast<const char*>(label), 32);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

}  // namespace

Error P11Error(const char* what, CK_RV rv) {
  char code[32];
  std::snprintf(code, sizeof(code), "0x%08lx", static_cast<unsigned long>(rv));
  return MakeError(rv, std::string(what) + " failed: CK_RV " + code);
}

Status Load(Module& m, const Pkcs11BackendOptions& options) {
  m.handle = dlopen(options.module_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (m.handle == nullptr) return MakeError(CKR_GENERAL_ERROR, std::string("dlopen: ") + dlerror());
  auto get_list = reinterpret_cast<CK_C_GetFunctionList>(dlsym(m.handle, "C_GetFunctionList"));
  if (get_list == nullptr) {
    return MakeError(CKR_GENERAL_ERROR, options.module_path + " has no C_GetFunctionList");
  }
  P11_TRY("C_GetFunctionList", get_list(&m.f));
  CK_C_INITIALIZE_ARGS args{};
  args.flags = CKF_OS_LOCKING_OK;
  P11_TRY("C_Initialize", m.f->C_Initialize(&args));
  m.initialized = true;
  CK_ULONG count = 0;
  P11_TRY("C_GetSlotList", m.f->C_GetSlotList(CK_TRUE, nullptr, &count));
  std::vector<CK_SLOT_ID> slots(count);
  P11_TRY("C_GetSlotList", m.f->C_GetSlotList(CK_TRUE, slots.data(), &count));
  for (CK_ULONG i = 0; i < count; ++i) {
    CK_TOKEN_INFO info{};
    if (m.f->C_GetTokenInfo(slots[i], &info) != CKR_OK) continue;
    if (!(info.flags & CKF_TOKEN_INITIALIZED)) continue;
    if (options.token_label.empty() || TrimLabel(info.label) == options.token_label) {
      m.slot = slots[i];
      return OkStatus();
    }
  }
  return MakeError(CKR_TOKEN_NOT_PRESENT, options.token_label.empty()
                                              ? "the module has no initialised token"
                                              : "no token labelled '" + options.token_label + "'");
}

Result<std::vector<CK_OBJECT_HANDLE>> Find(Session& s, const std::string& label,
                                           CK_OBJECT_CLASS cls) {
  CK_ATTRIBUTE t[] = {{CKA_CLASS, &cls, sizeof(cls)},
                      {CKA_LABEL, const_cast<char*>(label.data()), label.size()}};
  P11_TRY("C_FindObjectsInit", s.f()->C_FindObjectsInit(s.h(), t, 2));
  std::vector<CK_OBJECT_HANDLE> out(16);
  CK_ULONG n = 0;
  CK_RV rv = s.f()->C_FindObjects(s.h(), out.data(), out.size(), &n);
  s.f()->C_FindObjectsFinal(s.h());
  if (rv != CKR_OK) return P11Error("C_FindObjects", rv);
  out.resize(n);
  return out;
}

// Attribute reads one attribute (empty when the object lacks it).
Bytes Attribute(Session& s, CK_OBJECT_HANDLE o, CK_ATTRIBUTE_TYPE type) {
  CK_ATTRIBUTE a{type, nullptr, 0};
  if (s.f()->C_GetAttributeValue(s.h(), o, &a, 1) != CKR_OK ||
      a.ulValueLen == CK_UNAVAILABLE_INFORMATION) {
    return {};
  }
  Bytes value(a.ulValueLen);
  a.pValue = value.data();
  if (s.f()->C_GetAttributeValue(s.h(), o, &a, 1) != CKR_OK) return {};
  value.resize(a.ulValueLen);
  return value;
}

}  // namespace signet::bench

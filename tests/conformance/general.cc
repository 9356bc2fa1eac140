// [general.] Before C_Initialize every function but C_GetFunctionList and
// C_Initialize answers CKR_CRYPTOKI_NOT_INITIALIZED (§5.1.1; issue 11
// point 10), including those the module does not implement: the check for
// initialisation comes first. Then C_Initialize / C_Finalize / C_GetInfo
// (§5.4).
#include <cstring>
#include <functional>
#include <string>

#include "areas.h"

namespace signet::conformance {
namespace {

CK_RV DummyCreateMutex(CK_VOID_PTR_PTR) { return CKR_OK; }

// Scratch: harmless, non-NULL arguments for every function (so a module
// that checks arguments first cannot crash).
struct Scratch {
  CK_BYTE buffer[256] = {};
  CK_ULONG length = sizeof buffer;
  CK_SLOT_ID slot = 0;
  CK_OBJECT_HANDLE object = 1, object2 = 0;
  CK_MECHANISM mechanism = {CKM_SHA256, nullptr, 0};
  CK_ATTRIBUTE attribute = {CKA_LABEL, buffer, 8};
  CK_INFO info;
  CK_SLOT_INFO slot_info;
  CK_TOKEN_INFO token_info;
  CK_MECHANISM_INFO mechanism_info;
  CK_SESSION_INFO session_info;
  CK_MECHANISM_TYPE mechanisms[8];
  CK_UTF8CHAR pin[4] = {'1', '2', '3', '4'};
  CK_UTF8CHAR label[32];
};

struct Call {
  const char* name;
  std::function<CK_RV()> call;
};

// TakesSession: whether the function's first argument is a session handle.
bool TakesSession(const std::string& name) {
  for (const char* other :
       {"C_Finalize", "C_GetInfo", "C_GetSlotList", "C_GetSlotInfo", "C_GetTokenInfo",
        "C_GetMechanismList", "C_GetMechanismInfo", "C_InitToken", "C_OpenSession",
        "C_CloseAllSessions", "C_WaitForSlotEvent"}) {
    if (name == other) return false;
  }
  return true;
}

// EveryFunction: each function of the list but C_GetFunctionList and
// C_Initialize, called on `session` / `x.slot` with the scratch arguments.
std::vector<Call> EveryFunction(CK_FUNCTION_LIST_PTR f, Scratch& x, CK_SESSION_HANDLE session) {
  std::memset(x.label, ' ', sizeof x.label);
  CK_BYTE* buffer = x.buffer;
  CK_UTF8CHAR* pin = x.pin;
  CK_UTF8CHAR* label = x.label;
  CK_MECHANISM_TYPE* mechanisms = x.mechanisms;
  return {
      {"C_Finalize", [=, &x] { return f->C_Finalize(nullptr); }},
      {"C_GetInfo", [=, &x] { return f->C_GetInfo(&x.info); }},
      {"C_GetSlotList", [=, &x] { return f->C_GetSlotList(CK_FALSE, &x.slot, &x.length); }},
      {"C_GetSlotInfo", [=, &x] { return f->C_GetSlotInfo(x.slot, &x.slot_info); }},
      {"C_GetTokenInfo", [=, &x] { return f->C_GetTokenInfo(x.slot, &x.token_info); }},
      {"C_GetMechanismList",
       [=, &x] {
         CK_ULONG count = 8;
         return f->C_GetMechanismList(x.slot, mechanisms, &count);
       }},
      {"C_GetMechanismInfo",
       [=, &x] { return f->C_GetMechanismInfo(x.slot, CKM_SHA256, &x.mechanism_info); }},
      {"C_InitToken", [=, &x] { return f->C_InitToken(x.slot, pin, 4, label); }},
      {"C_InitPIN", [=, &x] { return f->C_InitPIN(session, pin, 4); }},
      {"C_SetPIN", [=, &x] { return f->C_SetPIN(session, pin, 4, pin, 4); }},
      {"C_OpenSession",
       [=, &x] {
         CK_SESSION_HANDLE opened;
         return f->C_OpenSession(x.slot, CKF_SERIAL_SESSION, nullptr, nullptr, &opened);
       }},
      {"C_CloseSession", [=, &x] { return f->C_CloseSession(session); }},
      {"C_CloseAllSessions", [=, &x] { return f->C_CloseAllSessions(x.slot); }},
      {"C_GetSessionInfo", [=, &x] { return f->C_GetSessionInfo(session, &x.session_info); }},
      {"C_GetOperationState",
       [=, &x] { return f->C_GetOperationState(session, buffer, &x.length); }},
      {"C_SetOperationState",
       [=, &x] { return f->C_SetOperationState(session, buffer, 16, x.object2, x.object2); }},
      {"C_Login", [=, &x] { return f->C_Login(session, CKU_USER, pin, 4); }},
      {"C_Logout", [=, &x] { return f->C_Logout(session); }},
      {"C_CreateObject",
       [=, &x] { return f->C_CreateObject(session, &x.attribute, 1, &x.object); }},
      {"C_CopyObject", [=, &x] { return f->C_CopyObject(session, 1, &x.attribute, 1, &x.object); }},
      {"C_DestroyObject", [=, &x] { return f->C_DestroyObject(session, 1); }},
      {"C_GetObjectSize", [=, &x] { return f->C_GetObjectSize(session, 1, &x.length); }},
      {"C_GetAttributeValue",
       [=, &x] { return f->C_GetAttributeValue(session, 1, &x.attribute, 1); }},
      {"C_SetAttributeValue",
       [=, &x] { return f->C_SetAttributeValue(session, 1, &x.attribute, 1); }},
      {"C_FindObjectsInit", [=, &x] { return f->C_FindObjectsInit(session, &x.attribute, 1); }},
      {"C_FindObjects",
       [=, &x] {
         CK_ULONG count;
         return f->C_FindObjects(session, &x.object, 1, &count);
       }},
      {"C_FindObjectsFinal", [=, &x] { return f->C_FindObjectsFinal(session); }},
      {"C_EncryptInit", [=, &x] { return f->C_EncryptInit(session, &x.mechanism, 1); }},
      {"C_Encrypt", [=, &x] { return f->C_Encrypt(session, buffer, 16, buffer, &x.length); }},
      {"C_EncryptUpdate",
       [=, &x] { return f->C_EncryptUpdate(session, buffer, 16, buffer, &x.length); }},
      {"C_EncryptFinal", [=, &x] { return f->C_EncryptFinal(session, buffer, &x.length); }},
      {"C_DecryptInit", [=, &x] { return f->C_DecryptInit(session, &x.mechanism, 1); }},
      {"C_Decrypt", [=, &x] { return f->C_Decrypt(session, buffer, 16, buffer, &x.length); }},
      {"C_DecryptUpdate",
       [=, &x] { return f->C_DecryptUpdate(session, buffer, 16, buffer, &x.length); }},
      {"C_DecryptFinal", [=, &x] { return f->C_DecryptFinal(session, buffer, &x.length); }},
      {"C_DigestInit", [=, &x] { return f->C_DigestInit(session, &x.mechanism); }},
      {"C_Digest", [=, &x] { return f->C_Digest(session, buffer, 16, buffer, &x.length); }},
      {"C_DigestUpdate", [=, &x] { return f->C_DigestUpdate(session, buffer, 16); }},
      {"C_DigestKey", [=, &x] { return f->C_DigestKey(session, 1); }},
      {"C_DigestFinal", [=, &x] { return f->C_DigestFinal(session, buffer, &x.length); }},
      {"C_SignInit", [=, &x] { return f->C_SignInit(session, &x.mechanism, 1); }},
      {"C_Sign", [=, &x] { return f->C_Sign(session, buffer, 16, buffer, &x.length); }},
      {"C_SignUpdate", [=, &x] { return f->C_SignUpdate(session, buffer, 16); }},
      {"C_SignFinal", [=, &x] { return f->C_SignFinal(session, buffer, &x.length); }},
      {"C_SignRecoverInit", [=, &x] { return f->C_SignRecoverInit(session, &x.mechanism, 1); }},
      {"C_SignRecover",
       [=, &x] { return f->C_SignRecover(session, buffer, 16, buffer, &x.length); }},
      {"C_VerifyInit", [=, &x] { return f->C_VerifyInit(session, &x.mechanism, 1); }},
      {"C_Verify", [=, &x] { return f->C_Verify(session, buffer, 16, buffer, 16); }},
      {"C_VerifyUpdate", [=, &x] { return f->C_VerifyUpdate(session, buffer, 16); }},
      {"C_VerifyFinal", [=, &x] { return f->C_VerifyFinal(session, buffer, 16); }},
      {"C_VerifyRecoverInit", [=, &x] { return f->C_VerifyRecoverInit(session, &x.mechanism, 1); }},
      {"C_VerifyRecover",
       [=, &x] { return f->C_VerifyRecover(session, buffer, 16, buffer, &x.length); }},
      {"C_DigestEncryptUpdate",
       [=, &x] { return f->C_DigestEncryptUpdate(session, buffer, 16, buffer, &x.length); }},
      {"C_DecryptDigestUpdate",
       [=, &x] { return f->C_DecryptDigestUpdate(session, buffer, 16, buffer, &x.length); }},
      {"C_SignEncryptUpdate",
       [=, &x] { return f->C_SignEncryptUpdate(session, buffer, 16, buffer, &x.length); }},
      {"C_DecryptVerifyUpdate",
       [=, &x] { return f->C_DecryptVerifyUpdate(session, buffer, 16, buffer, &x.length); }},
      {"C_GenerateKey",
       [=, &x] { return f->C_GenerateKey(session, &x.mechanism, &x.attribute, 1, &x.object); }},
      {"C_GenerateKeyPair",
       [=, &x] {
         return f->C_GenerateKeyPair(session, &x.mechanism, &x.attribute, 1, &x.attribute, 1,
                                     &x.object, &x.object2);
       }},
      {"C_WrapKey",
       [=, &x] { return f->C_WrapKey(session, &x.mechanism, 1, 2, buffer, &x.length); }},
      {"C_UnwrapKey",
       [=, &x] {
         return f->C_UnwrapKey(session, &x.mechanism, 1, buffer, 16, &x.attribute, 1, &x.object);
       }},
      {"C_DeriveKey",
       [=, &x] { return f->C_DeriveKey(session, &x.mechanism, 1, &x.attribute, 1, &x.object); }},
      {"C_SeedRandom", [=, &x] { return f->C_SeedRandom(session, buffer, 16); }},
      {"C_GenerateRandom", [=, &x] { return f->C_GenerateRandom(session, buffer, 16); }},
      {"C_GetFunctionStatus", [=, &x] { return f->C_GetFunctionStatus(session); }},
      {"C_CancelFunction", [=, &x] { return f->C_CancelFunction(session); }},
      {"C_WaitForSlotEvent",
       [=, &x] { return f->C_WaitForSlotEvent(CKF_DONT_BLOCK, &x.slot, nullptr); }},
  };
}

void CheckEveryFunctionNotInitialized(Suite& suite) {
  Scratch scratch;
  for (const Call& c : EveryFunction(suite.p11(), scratch, 1)) {
    suite.Rv(std::string("general.not_initialized.") + c.name, "5.1.1",
             CKR_CRYPTOKI_NOT_INITIALIZED, c.call());
  }
}

void CheckInitialize(Suite& suite) {
  CK_FUNCTION_LIST_PTR f = suite.p11();
  CK_C_INITIALIZE_ARGS args = {};
  int reserved = 0;
  args.pReserved = &reserved;
  if (!suite.Rv("general.initialize.reserved_not_null", "5.4.1", CKR_ARGUMENTS_BAD,
                f->C_Initialize(&args))) {
    f->C_Finalize(nullptr);  // in case it initialised
  }

  CK_C_INITIALIZE_ARGS partial = {};
  partial.CreateMutex = DummyCreateMutex;  // but no DestroyMutex / LockMutex / UnlockMutex
  if (!suite.Rv("general.initialize.some_mutex_functions", "5.4.1", CKR_ARGUMENTS_BAD,
                f->C_Initialize(&partial))) {
    f->C_Finalize(nullptr);
  }

  CK_C_INITIALIZE_ARGS os_locking = {};
  os_locking.flags = CKF_OS_LOCKING_OK;
  suite.Rv("general.initialize.ok", "5.4.1", CKR_OK, f->C_Initialize(&os_locking));
  suite.Rv("general.initialize.already_initialized", "5.4.1", CKR_CRYPTOKI_ALREADY_INITIALIZED,
           f->C_Initialize(nullptr));
  int finalize_reserved = 0;
  suite.Rv("general.finalize.reserved_not_null", "5.4.2", CKR_ARGUMENTS_BAD,
           f->C_Finalize(&finalize_reserved));
  suite.Rv("general.finalize.ok", "5.4.2", CKR_OK, f->C_Finalize(nullptr));
  suite.Rv("general.finalize.twice", "5.4.2", CKR_CRYPTOKI_NOT_INITIALIZED, f->C_Finalize(nullptr));
  suite.Rv("general.initialize.null_args", "5.4.1", CKR_OK, f->C_Initialize(nullptr));
}

void CheckGetInfo(Suite& suite) {
  CK_FUNCTION_LIST_PTR f = suite.p11();
  suite.Rv("general.get_info.null", "5.4.3", CKR_ARGUMENTS_BAD, f->C_GetInfo(nullptr));
  CK_INFO info;
  std::memset(&info, 0, sizeof info);
  if (!suite.Rv("general.get_info.ok", "5.4.3", CKR_OK, f->C_GetInfo(&info))) return;
  const CK_BYTE major = info.cryptokiVersion.major;
  suite.True("general.get_info.cryptoki_version", "3.1 CK_INFO", major == 2 || major == 3,
             "2.x or 3.x",
             std::to_string(major) + "." + std::to_string(info.cryptokiVersion.minor));
  suite.True("general.get_info.flags_zero", "3.1 CK_INFO", info.flags == 0, "0", Hex(info.flags));
  bool padded = std::memchr(info.manufacturerID, 0, sizeof info.manufacturerID) == nullptr &&
                std::memchr(info.libraryDescription, 0, sizeof info.libraryDescription) == nullptr;
  suite.True("general.get_info.blank_padded", "3.1 CK_INFO", padded, "blank padded, no NUL",
             padded ? "blank padded" : "contains NUL");

  CK_C_GetFunctionList get_list = f->C_GetFunctionList;
  suite.Rv("general.get_function_list.null", "5.4.4", CKR_ARGUMENTS_BAD, get_list(nullptr));
  CK_FUNCTION_LIST_PTR again = nullptr;
  suite.Rv("general.get_function_list.ok", "5.4.4", CKR_OK, get_list(&again));
  suite.True("general.get_function_list.same_version", "5.4.4",
             again != nullptr && again->version.major == f->version.major, "the same list version",
             again == nullptr ? "NULL" : std::to_string(again->version.major));
}

}  // namespace

void RunInvalidSessionHandles(Fixture& fixture) {
  // A handle that was valid once: closed sessions' handles must not work.
  CK_SESSION_HANDLE closed = fixture.Open(true);
  fixture.p11()->C_CloseSession(closed);
  Scratch scratch;
  scratch.slot = fixture.slot();
  for (const Call& c : EveryFunction(fixture.p11(), scratch, closed)) {
    if (!TakesSession(c.name)) continue;
    fixture.suite().Rv(std::string("session.handle_invalid.") + c.name, "5.1.2",
                       CKR_SESSION_HANDLE_INVALID, c.call());
  }
}

void RunGeneral(Suite& suite) {
  CheckEveryFunctionNotInitialized(suite);
  CheckInitialize(suite);
  CheckGetInfo(suite);
}

}  // namespace signet::conformance

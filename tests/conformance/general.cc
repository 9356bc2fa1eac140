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

// NotInitialized calls every function of the list with harmless, non-NULL
// arguments (so a module that checks arguments first cannot crash).
void CheckEveryFunctionNotInitialized(Suite& suite) {
  CK_FUNCTION_LIST_PTR f = suite.p11();
  CK_BYTE buffer[256] = {};
  CK_ULONG length = sizeof buffer;
  CK_SLOT_ID slot = 0;
  CK_SESSION_HANDLE session = 1;
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
  std::memset(label, ' ', sizeof label);
  const std::pair<const char*, std::function<CK_RV()>> calls[] = {
      {"C_Finalize", [&] { return f->C_Finalize(nullptr); }},
      {"C_GetInfo", [&] { return f->C_GetInfo(&info); }},
      {"C_GetSlotList", [&] { return f->C_GetSlotList(CK_FALSE, &slot, &length); }},
      {"C_GetSlotInfo", [&] { return f->C_GetSlotInfo(slot, &slot_info); }},
      {"C_GetTokenInfo", [&] { return f->C_GetTokenInfo(slot, &token_info); }},
      {"C_GetMechanismList",
       [&] {
         CK_ULONG count = 8;
         return f->C_GetMechanismList(slot, mechanisms, &count);
       }},
      {"C_GetMechanismInfo",
       [&] { return f->C_GetMechanismInfo(slot, CKM_SHA256, &mechanism_info); }},
      {"C_InitToken", [&] { return f->C_InitToken(slot, pin, 4, label); }},
      {"C_InitPIN", [&] { return f->C_InitPIN(session, pin, 4); }},
      {"C_SetPIN", [&] { return f->C_SetPIN(session, pin, 4, pin, 4); }},
      {"C_OpenSession",
       [&] {
         CK_SESSION_HANDLE opened;
         return f->C_OpenSession(slot, CKF_SERIAL_SESSION, nullptr, nullptr, &opened);
       }},
      {"C_CloseSession", [&] { return f->C_CloseSession(session); }},
      {"C_CloseAllSessions", [&] { return f->C_CloseAllSessions(slot); }},
      {"C_GetSessionInfo", [&] { return f->C_GetSessionInfo(session, &session_info); }},
      {"C_GetOperationState", [&] { return f->C_GetOperationState(session, buffer, &length); }},
      {"C_SetOperationState",
       [&] { return f->C_SetOperationState(session, buffer, 16, object2, object2); }},
      {"C_Login", [&] { return f->C_Login(session, CKU_USER, pin, 4); }},
      {"C_Logout", [&] { return f->C_Logout(session); }},
      {"C_CreateObject", [&] { return f->C_CreateObject(session, &attribute, 1, &object); }},
      {"C_CopyObject", [&] { return f->C_CopyObject(session, 1, &attribute, 1, &object); }},
      {"C_DestroyObject", [&] { return f->C_DestroyObject(session, 1); }},
      {"C_GetObjectSize", [&] { return f->C_GetObjectSize(session, 1, &length); }},
      {"C_GetAttributeValue", [&] { return f->C_GetAttributeValue(session, 1, &attribute, 1); }},
      {"C_SetAttributeValue", [&] { return f->C_SetAttributeValue(session, 1, &attribute, 1); }},
      {"C_FindObjectsInit", [&] { return f->C_FindObjectsInit(session, &attribute, 1); }},
      {"C_FindObjects",
       [&] {
         CK_ULONG count;
         return f->C_FindObjects(session, &object, 1, &count);
       }},
      {"C_FindObjectsFinal", [&] { return f->C_FindObjectsFinal(session); }},
      {"C_EncryptInit", [&] { return f->C_EncryptInit(session, &mechanism, 1); }},
      {"C_Encrypt", [&] { return f->C_Encrypt(session, buffer, 16, buffer, &length); }},
      {"C_EncryptUpdate", [&] { return f->C_EncryptUpdate(session, buffer, 16, buffer, &length); }},
      {"C_EncryptFinal", [&] { return f->C_EncryptFinal(session, buffer, &length); }},
      {"C_DecryptInit", [&] { return f->C_DecryptInit(session, &mechanism, 1); }},
      {"C_Decrypt", [&] { return f->C_Decrypt(session, buffer, 16, buffer, &length); }},
      {"C_DecryptUpdate", [&] { return f->C_DecryptUpdate(session, buffer, 16, buffer, &length); }},
      {"C_DecryptFinal", [&] { return f->C_DecryptFinal(session, buffer, &length); }},
      {"C_DigestInit", [&] { return f->C_DigestInit(session, &mechanism); }},
      {"C_Digest", [&] { return f->C_Digest(session, buffer, 16, buffer, &length); }},
      {"C_DigestUpdate", [&] { return f->C_DigestUpdate(session, buffer, 16); }},
      {"C_DigestKey", [&] { return f->C_DigestKey(session, 1); }},
      {"C_DigestFinal", [&] { return f->C_DigestFinal(session, buffer, &length); }},
      {"C_SignInit", [&] { return f->C_SignInit(session, &mechanism, 1); }},
      {"C_Sign", [&] { return f->C_Sign(session, buffer, 16, buffer, &length); }},
      {"C_SignUpdate", [&] { return f->C_SignUpdate(session, buffer, 16); }},
      {"C_SignFinal", [&] { return f->C_SignFinal(session, buffer, &length); }},
      {"C_SignRecoverInit", [&] { return f->C_SignRecoverInit(session, &mechanism, 1); }},
      {"C_SignRecover", [&] { return f->C_SignRecover(session, buffer, 16, buffer, &length); }},
      {"C_VerifyInit", [&] { return f->C_VerifyInit(session, &mechanism, 1); }},
      {"C_Verify", [&] { return f->C_Verify(session, buffer, 16, buffer, 16); }},
      {"C_VerifyUpdate", [&] { return f->C_VerifyUpdate(session, buffer, 16); }},
      {"C_VerifyFinal", [&] { return f->C_VerifyFinal(session, buffer, 16); }},
      {"C_VerifyRecoverInit", [&] { return f->C_VerifyRecoverInit(session, &mechanism, 1); }},
      {"C_VerifyRecover", [&] { return f->C_VerifyRecover(session, buffer, 16, buffer, &length); }},
      {"C_DigestEncryptUpdate",
       [&] { return f->C_DigestEncryptUpdate(session, buffer, 16, buffer, &length); }},
      {"C_DecryptDigestUpdate",
       [&] { return f->C_DecryptDigestUpdate(session, buffer, 16, buffer, &length); }},
      {"C_SignEncryptUpdate",
       [&] { return f->C_SignEncryptUpdate(session, buffer, 16, buffer, &length); }},
      {"C_DecryptVerifyUpdate",
       [&] { return f->C_DecryptVerifyUpdate(session, buffer, 16, buffer, &length); }},
      {"C_GenerateKey",
       [&] { return f->C_GenerateKey(session, &mechanism, &attribute, 1, &object); }},
      {"C_GenerateKeyPair",
       [&] {
         return f->C_GenerateKeyPair(session, &mechanism, &attribute, 1, &attribute, 1, &object,
                                     &object2);
       }},
      {"C_WrapKey", [&] { return f->C_WrapKey(session, &mechanism, 1, 2, buffer, &length); }},
      {"C_UnwrapKey",
       [&] { return f->C_UnwrapKey(session, &mechanism, 1, buffer, 16, &attribute, 1, &object); }},
      {"C_DeriveKey",
       [&] { return f->C_DeriveKey(session, &mechanism, 1, &attribute, 1, &object); }},
      {"C_SeedRandom", [&] { return f->C_SeedRandom(session, buffer, 16); }},
      {"C_GenerateRandom", [&] { return f->C_GenerateRandom(session, buffer, 16); }},
      {"C_GetFunctionStatus", [&] { return f->C_GetFunctionStatus(session); }},
      {"C_CancelFunction", [&] { return f->C_CancelFunction(session); }},
      {"C_WaitForSlotEvent", [&] { return f->C_WaitForSlotEvent(CKF_DONT_BLOCK, &slot, nullptr); }},
  };
  for (const auto& [name, call] : calls) {
    suite.Rv(std::string("general.not_initialized.") + name, "5.1.1", CKR_CRYPTOKI_NOT_INITIALIZED,
             call());
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

void RunGeneral(Suite& suite) {
  CheckEveryFunctionNotInitialized(suite);
  CheckInitialize(suite);
  CheckGetInfo(suite);
}

}  // namespace signet::conformance

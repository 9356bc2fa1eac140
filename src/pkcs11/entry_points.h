// The module's implementations of the PKCS#11 functions, one per C_* name,
// in namespace signet::pkcs11::entry so they never clash with another
// module's exported C_* symbols in the same process: the host reaches them
// only through the function list (function_list.cc). Each is safe from any
// thread and catches everything at its boundary (guard.h).
#pragma once

#include <p11-kit/pkcs11.h>

namespace signet::pkcs11::entry {

// General (fn_general.cc): library, slots, tokens, mechanisms.
CK_RV C_Initialize(CK_VOID_PTR init_args);
CK_RV C_Finalize(CK_VOID_PTR reserved);
CK_RV C_GetInfo(CK_INFO_PTR info);
CK_RV C_GetSlotList(CK_BBOOL token_present, CK_SLOT_ID_PTR slots, CK_ULONG_PTR count);
CK_RV C_GetSlotInfo(CK_SLOT_ID slot, CK_SLOT_INFO_PTR info);
CK_RV C_GetTokenInfo(CK_SLOT_ID slot, CK_TOKEN_INFO_PTR info);
CK_RV C_GetMechanismList(CK_SLOT_ID slot, CK_MECHANISM_TYPE_PTR list, CK_ULONG_PTR count);
CK_RV C_GetMechanismInfo(CK_SLOT_ID slot, CK_MECHANISM_TYPE type, CK_MECHANISM_INFO_PTR info);
CK_RV C_InitToken(CK_SLOT_ID slot, CK_UTF8CHAR_PTR pin, CK_ULONG pin_len, CK_UTF8CHAR_PTR label);

// Sessions and login (fn_session.cc).
CK_RV C_OpenSession(CK_SLOT_ID slot, CK_FLAGS flags, CK_VOID_PTR application, CK_NOTIFY notify,
                    CK_SESSION_HANDLE_PTR session);
CK_RV C_CloseSession(CK_SESSION_HANDLE session);
CK_RV C_CloseAllSessions(CK_SLOT_ID slot);
CK_RV C_GetSessionInfo(CK_SESSION_HANDLE session, CK_SESSION_INFO_PTR info);
CK_RV C_Login(CK_SESSION_HANDLE session, CK_USER_TYPE user, CK_UTF8CHAR_PTR pin, CK_ULONG pin_len);
CK_RV C_Logout(CK_SESSION_HANDLE session);
CK_RV C_InitPIN(CK_SESSION_HANDLE session, CK_UTF8CHAR_PTR pin, CK_ULONG pin_len);
CK_RV C_SetPIN(CK_SESSION_HANDLE session, CK_UTF8CHAR_PTR old_pin, CK_ULONG old_len,
               CK_UTF8CHAR_PTR new_pin, CK_ULONG new_len);

// Objects (fn_object.cc).
CK_RV C_CreateObject(CK_SESSION_HANDLE session, CK_ATTRIBUTE_PTR tmpl, CK_ULONG count,
                     CK_OBJECT_HANDLE_PTR object);
CK_RV C_CopyObject(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object, CK_ATTRIBUTE_PTR tmpl,
                   CK_ULONG count, CK_OBJECT_HANDLE_PTR new_object);
CK_RV C_DestroyObject(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object);
CK_RV C_GetObjectSize(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object, CK_ULONG_PTR size);
CK_RV C_GetAttributeValue(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object,
                          CK_ATTRIBUTE_PTR tmpl, CK_ULONG count);
CK_RV C_SetAttributeValue(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object,
                          CK_ATTRIBUTE_PTR tmpl, CK_ULONG count);
CK_RV C_FindObjectsInit(CK_SESSION_HANDLE session, CK_ATTRIBUTE_PTR tmpl, CK_ULONG count);
CK_RV C_FindObjects(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE_PTR objects, CK_ULONG max_count,
                    CK_ULONG_PTR count);
CK_RV C_FindObjectsFinal(CK_SESSION_HANDLE session);

// Key management and random numbers (fn_keys.cc).
CK_RV C_GenerateKey(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism, CK_ATTRIBUTE_PTR tmpl,
                    CK_ULONG count, CK_OBJECT_HANDLE_PTR key);
CK_RV C_GenerateKeyPair(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
                        CK_ATTRIBUTE_PTR public_tmpl, CK_ULONG public_count,
                        CK_ATTRIBUTE_PTR private_tmpl, CK_ULONG private_count,
                        CK_OBJECT_HANDLE_PTR public_key, CK_OBJECT_HANDLE_PTR private_key);
CK_RV C_WrapKey(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism, CK_OBJECT_HANDLE wrapping_key,
                CK_OBJECT_HANDLE key, CK_BYTE_PTR wrapped, CK_ULONG_PTR wrapped_len);
CK_RV C_UnwrapKey(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism,
                  CK_OBJECT_HANDLE unwrapping_key, CK_BYTE_PTR wrapped, CK_ULONG wrapped_len,
                  CK_ATTRIBUTE_PTR tmpl, CK_ULONG count, CK_OBJECT_HANDLE_PTR key);
CK_RV C_DeriveKey(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism, CK_OBJECT_HANDLE base_key,
                  CK_ATTRIBUTE_PTR tmpl, CK_ULONG count, CK_OBJECT_HANDLE_PTR key);
CK_RV C_SeedRandom(CK_SESSION_HANDLE session, CK_BYTE_PTR seed, CK_ULONG seed_len);
CK_RV C_GenerateRandom(CK_SESSION_HANDLE session, CK_BYTE_PTR out, CK_ULONG len);

// Cryptographic operations (fn_crypto.cc).
CK_RV C_EncryptInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism, CK_OBJECT_HANDLE key);
CK_RV C_Encrypt(CK_SESSION_HANDLE session, CK_BYTE_PTR data, CK_ULONG data_len, CK_BYTE_PTR out,
                CK_ULONG_PTR out_len);
CK_RV C_EncryptUpdate(CK_SESSION_HANDLE session, CK_BYTE_PTR data, CK_ULONG data_len,
                      CK_BYTE_PTR out, CK_ULONG_PTR out_len);
CK_RV C_EncryptFinal(CK_SESSION_HANDLE session, CK_BYTE_PTR out, CK_ULONG_PTR out_len);
CK_RV C_DecryptInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism, CK_OBJECT_HANDLE key);
CK_RV C_Decrypt(CK_SESSION_HANDLE session, CK_BYTE_PTR data, CK_ULONG data_len, CK_BYTE_PTR out,
                CK_ULONG_PTR out_len);
CK_RV C_DecryptUpdate(CK_SESSION_HANDLE session, CK_BYTE_PTR data, CK_ULONG data_len,
                      CK_BYTE_PTR out, CK_ULONG_PTR out_len);
CK_RV C_DecryptFinal(CK_SESSION_HANDLE session, CK_BYTE_PTR out, CK_ULONG_PTR out_len);
CK_RV C_DigestInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism);
CK_RV C_Digest(CK_SESSION_HANDLE session, CK_BYTE_PTR data, CK_ULONG data_len, CK_BYTE_PTR out,
               CK_ULONG_PTR out_len);
CK_RV C_DigestUpdate(CK_SESSION_HANDLE session, CK_BYTE_PTR data, CK_ULONG data_len);
CK_RV C_DigestFinal(CK_SESSION_HANDLE session, CK_BYTE_PTR out, CK_ULONG_PTR out_len);
CK_RV C_SignInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism, CK_OBJECT_HANDLE key);
CK_RV C_Sign(CK_SESSION_HANDLE session, CK_BYTE_PTR data, CK_ULONG data_len, CK_BYTE_PTR out,
             CK_ULONG_PTR out_len);
CK_RV C_SignUpdate(CK_SESSION_HANDLE session, CK_BYTE_PTR data, CK_ULONG data_len);
CK_RV C_SignFinal(CK_SESSION_HANDLE session, CK_BYTE_PTR out, CK_ULONG_PTR out_len);
CK_RV C_VerifyInit(CK_SESSION_HANDLE session, CK_MECHANISM_PTR mechanism, CK_OBJECT_HANDLE key);
CK_RV C_Verify(CK_SESSION_HANDLE session, CK_BYTE_PTR data, CK_ULONG data_len,
               CK_BYTE_PTR signature, CK_ULONG signature_len);
CK_RV C_VerifyUpdate(CK_SESSION_HANDLE session, CK_BYTE_PTR data, CK_ULONG data_len);
CK_RV C_VerifyFinal(CK_SESSION_HANDLE session, CK_BYTE_PTR signature, CK_ULONG signature_len);

}  // namespace signet::pkcs11::entry

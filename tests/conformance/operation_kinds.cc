// [op.] The operation checks that do not depend on the mechanism: calls
// without an operation, *Init's argument, mechanism, handle and key checks
// (§5.8.1-5.12.1), FIPS 180-4 digest known answers, and operations kept per
// session (§5.6).
#include <algorithm>
#include <string>
#include <tuple>

#include "base/hex.h"
#include "operation_calls.h"

namespace signet::conformance::op {

namespace {

// Calls without an operation; *Init's argument, mechanism, handle and key checks.
void CheckWithoutOperationAndInit(Fixture& f, const Keys& keys) {
  Suite& s = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_SESSION_HANDLE session = f.Open(true);
  Bytes data = Data(32), out(512);
  for (Kind kind : {Kind::kSign, Kind::kVerify, Kind::kEncrypt, Kind::kDecrypt, Kind::kDigest}) {
    Calls calls(p, kind);
    const std::string id = std::string("op.") + KindName(kind) + ".";
    CK_ULONG length = out.size();
    s.Rv(id + "single_not_initialized", Section(kind), CKR_OPERATION_NOT_INITIALIZED,
         calls.Single(session, data, out.data(), &length));
    s.Rv(id + "update_not_initialized", Section(kind), CKR_OPERATION_NOT_INITIALIZED,
         calls.Update(session, data.data(), data.size(), nullptr));
    length = out.size();
    s.Rv(id + "final_not_initialized", Section(kind), CKR_OPERATION_NOT_INITIALIZED,
         calls.Final(session, out.data(), &length));
    CK_MECHANISM bogus = {CKM_VENDOR_DEFINED + 0x5157, nullptr, 0};
    CK_OBJECT_HANDLE key = kind == Kind::kDigest   ? CK_INVALID_HANDLE
                           : kind == Kind::kSign   ? keys.ec.priv
                           : kind == Kind::kVerify ? keys.ec.pub
                                                   : keys.aes.priv;
    s.Rv(id + "init_mechanism_invalid", Section(kind), CKR_MECHANISM_INVALID,
         calls.Init(session, &bogus, key));
    // A mechanism the module has, but not for this function.
    CK_MECHANISM other_function = {kind == Kind::kDigest ? CKM_ECDSA : CKM_SHA256, nullptr, 0};
    if (f.Offers(other_function.mechanism)) {
      s.Rv(id + "init_mechanism_of_other_function", Section(kind), CKR_MECHANISM_INVALID,
           calls.Init(session, &other_function, key));
    }
    CK_MECHANISM sha = {CKM_SHA256, nullptr, 0};
    s.Rv(id + "init_session_handle_invalid", "5.1.2", CKR_SESSION_HANDLE_INVALID,
         calls.Init(CK_INVALID_HANDLE, &sha, key));
    if (kind == Kind::kDigest) continue;
    bool signing = kind == Kind::kSign || kind == Kind::kVerify;
    CK_MECHANISM real = {signing ? CKM_ECDSA_SHA256 : CKM_AES_GCM, nullptr, 0};
    CK_GCM_PARAMS gcm = {};
    CK_BYTE iv[12] = {};
    gcm.pIv = iv;
    gcm.ulIvLen = 12;
    gcm.ulIvBits = 96;
    gcm.ulTagBits = 128;
    if (!signing) {
      real.pParameter = &gcm;
      real.ulParameterLen = sizeof gcm;
    }
    if (!f.Offers(real.mechanism) || (signing ? !keys.ec.ok() : !keys.aes.ok())) continue;
    if (!signing) {
      CK_MECHANISM no_params = {CKM_AES_GCM, nullptr, 0};
      s.Rv(id + "init_mechanism_param_invalid", Section(kind), CKR_MECHANISM_PARAM_INVALID,
           calls.Init(session, &no_params, keys.aes.priv));
    }
    s.Rv(id + "init_key_handle_invalid", Section(kind), CKR_KEY_HANDLE_INVALID,
         calls.Init(session, &real, 0x7ffff00d));
    // A key of another type that has the usage flag (so only one rule applies).
    CK_OBJECT_HANDLE wrong_type = kind == Kind::kSign      ? keys.rsa_sign.priv
                                  : kind == Kind::kVerify  ? keys.rsa_sign.pub
                                  : kind == Kind::kEncrypt ? keys.rsa_crypt.pub
                                                           : keys.rsa_crypt.priv;
    if (wrong_type != CK_INVALID_HANDLE) {
      s.Rv(id + "init_key_type_inconsistent", Section(kind), CKR_KEY_TYPE_INCONSISTENT,
           calls.Init(session, &real, wrong_type));
    }
    CK_OBJECT_HANDLE no_usage = kind == Kind::kSign     ? keys.ec_no_usage.priv
                                : kind == Kind::kVerify ? keys.ec_no_usage.pub
                                                        : keys.aes_no_usage.priv;
    if (no_usage != CK_INVALID_HANDLE) {
      s.Rv(id + "init_key_function_not_permitted", Section(kind), CKR_KEY_FUNCTION_NOT_PERMITTED,
           calls.Init(session, &real, no_usage));
    }
  }
  p->C_CloseSession(session);
}

void CheckKnownAnswers(Fixture& f) {
  Suite& s = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  Bytes out(512);
  // Known answers (FIPS 180-4 examples: the digest of "abc").
  const std::tuple<CK_MECHANISM_TYPE, const char*, const char*> known[] = {
      {CKM_SHA_1, "SHA_1", "a9993e364706816aba3e25717850c26c9cd0d89d"},
      {CKM_SHA256, "SHA256", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {CKM_SHA384, "SHA384",
       "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c"
       "825a7"},
      {CKM_SHA512, "SHA512",
       "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3f"
       "eebbd"
       "454d4423643ce80e2a9ac94fa54ca49f"},
  };
  for (const auto& [mechanism, name, hex] : known) {
    if (!f.Offers(mechanism, CKF_DIGEST)) continue;
    CK_SESSION_HANDLE d = f.Open(false);
    CK_MECHANISM m = {mechanism, nullptr, 0};
    CK_BYTE abc[] = {'a', 'b', 'c'};
    CK_ULONG length = out.size();
    std::string got = "error";
    if (p->C_DigestInit(d, &m) == CKR_OK &&
        p->C_Digest(d, abc, sizeof abc, out.data(), &length) == CKR_OK) {
      got = signet::ToHex(ByteView(out.data(), std::min<std::size_t>(length, out.size())));
    }
    s.True(std::string("op.digest.") + name + ".known_answer", "5.10.2", got == hex, hex, got);
    p->C_CloseSession(d);
  }
}

void CheckPerSession(Fixture& f) {
  Suite& s = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  Bytes data = Data(32), out(512);
  // Operations belong to their session (§5.6: each session has its own state).
  CK_SESSION_HANDLE a = f.Open(true), b = f.Open(true);
  CK_MECHANISM sha = {CKM_SHA256, nullptr, 0};
  if (f.Offers(CKM_SHA256, CKF_DIGEST) && p->C_DigestInit(a, &sha) == CKR_OK) {
    s.Rv("op.digest.other_session_not_initialized", "5.10.3", CKR_OPERATION_NOT_INITIALIZED,
         p->C_DigestUpdate(b, data.data(), data.size()));
    s.Rv("op.digest.other_session_own_operation", "5.10.1", CKR_OK, p->C_DigestInit(b, &sha));
    CK_ULONG length = out.size();
    s.Rv("op.digest.session_keeps_operation", "5.10.2", CKR_OK,
         p->C_Digest(a, data.data(), data.size(), out.data(), &length));
    // Closing a session ends its operation; the other session's stays.
    p->C_CloseSession(a);
    length = out.size();
    s.Rv("op.digest.close_other_session_keeps_operation", "5.6.2", CKR_OK,
         p->C_Digest(b, data.data(), data.size(), out.data(), &length));
  }
  p->C_CloseSession(b);
}

}  // namespace

void CheckOperationKinds(Fixture& f, const Keys& keys) {
  CheckWithoutOperationAndInit(f, keys);
  CheckKnownAnswers(f);
  CheckPerSession(f);
}

}  // namespace signet::conformance::op

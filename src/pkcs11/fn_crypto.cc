// Cryptographic operations (PKCS#11 v2.40 §5.8-5.12): sign, verify, digest,
// encrypt and decrypt, single- and multi-part. A single-part call is one
// round trip. Multi-part: for the mechanisms whose state the daemon keeps
// (MultiPartInDaemon: block ciphers, AES-GCM, MACs, digests), each C_*Update is one
// StreamUpdate round trip that returns its output, and Final one
// StreamFinal; for the others C_*Update buffers input (bounded by
// kMaxBufferedInput) and the Final call sends it single-part. Which call may follow which is
// op_state.h's table, the same for every kind. Init checks what PKCS#11 reports at init time
// (mechanism, key handle, key type, usage flag) once per key and kind per
// session; the daemon enforces policy again on every use.
#include <string.h>

#include <algorithm>

#include "base/mechanism_table.h"
#include "base/operation_rules.h"
#include "pkcs11/abi.h"
#include "pkcs11/entry_points.h"
#include "pkcs11/op_state.h"
#include "pkcs11/session_ops.h"

namespace signet::pkcs11::entry {
namespace {

// OpRules: what each operation kind requires of its mechanism and key
// (base/operation_rules.h, the daemon's multi-part start reads it too).
using OpRules = OperationRule;

// OfferedMechanism returns the daemon's description of `mech` when it
// offers it for this operation (CKR_MECHANISM_INVALID otherwise).
Result<client::MechanismInfo> OfferedMechanism(ModuleState& state, const client::Mechanism& mech,
                                               const OpRules& rules) {
  SIGNET_ASSIGN_OR_RETURN(std::vector<client::MechanismInfo> list, state.Mechanisms());
  for (const client::MechanismInfo& m : list) {
    if (m.type == mech.type && (m.flags & rules.mechanism_flag) != 0) return m;
  }
  return MakeError(CKR_MECHANISM_INVALID, "mechanism not offered for this operation");
}

// KeyFits: the mechanism's key type (when it has one) or its second key
// type (HMAC's 3.0 key type) is the key's, and the key's
// CKA_ALLOWED_MECHANISMS (when not empty) lists the mechanism
// (CKR_MECHANISM_INVALID, PKCS#11 v2.40 §4.7; the daemon checks it again).
Status KeyFits(const Session::CheckedKey& key, const client::MechanismInfo& mech) {
  const bool alt_fits =
      mech.alt_key_type != CK_UNAVAILABLE_INFORMATION && mech.alt_key_type == key.key_type;
  if (mech.key_type != CK_UNAVAILABLE_INFORMATION && mech.key_type != key.key_type && !alt_fits) {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT, "key type does not fit the mechanism");
  }
  if (!key.allowed.empty() &&
      std::find(key.allowed.begin(), key.allowed.end(), mech.type) == key.allowed.end()) {
    return MakeError(CKR_MECHANISM_INVALID, "mechanism not in the key's CKA_ALLOWED_MECHANISMS");
  }
  return OkStatus();
}

// CheckKey reads the key's type and usage flag (one round trip; the answer
// is cached per key and kind, the mechanism fit is checked every time).
Status CheckKey(ModuleState& state, Session& s, client::Handle key,
                const client::MechanismInfo& mech, const OpRules& rules) REQUIRES(s.mu) {
  if (const std::uint64_t generation = state.key_generation();
      generation != s.checked_generation) {
    s.checked_keys.clear();
    s.checked_generation = generation;
  }
  if (auto it = s.checked_keys.find({key, rules.kind}); it != s.checked_keys.end()) {
    return KeyFits(it->second, mech);
  }
  const CK_ATTRIBUTE_TYPE types[] = {CKA_KEY_TYPE, rules.key_usage, CKA_ALLOWED_MECHANISMS};
  Result<std::vector<client::AttributeValue>> got =
      Repeatable(state, s, [&](client::Client& conn, client::Handle remote) {
        return conn.GetAttributeValue(remote, key, types);
      });
  if (!got.ok()) return MakeError(KeyHandleRv(got.error().code), got.error().message);
  if (got->size() != 3) return MakeError(CKR_DEVICE_ERROR, "short attribute answer");
  const std::optional<CK_ULONG> key_type = UlongFromBytes((*got)[0].value);
  if ((*got)[0].rv != CKR_OK || !key_type) {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT, "object is not a key");
  }
  const std::optional<bool> allowed = BoolFromBytes((*got)[1].value);
  if ((*got)[1].rv != CKR_OK || !allowed || !*allowed) {
    return MakeError(CKR_KEY_FUNCTION_NOT_PERMITTED, "key usage attribute is false");
  }
  Session::CheckedKey checked{*key_type, {}};
  if ((*got)[2].rv == CKR_OK) {
    const client::Bytes& list = (*got)[2].value;
    checked.allowed.resize(list.size() / sizeof(CK_MECHANISM_TYPE));
    if (!checked.allowed.empty()) {
      std::memcpy(checked.allowed.data(), list.data(), checked.allowed.size() * sizeof(CK_ULONG));
    }
  }
  const Status fits = KeyFits(checked, mech);
  s.checked_keys[{key, rules.kind}] = std::move(checked);
  return fits;
}

CK_RV InitOp(CK_SESSION_HANDLE handle, OpKind kind, CK_MECHANISM_PTR mechanism,
             CK_OBJECT_HANDLE key) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    Operation& op = s.op(kind);
    if (std::optional<CK_RV> done = BeginInit(op, mechanism)) return *done;
    Result<client::Mechanism> mech = ToMechanism(mechanism);
    if (!mech.ok()) return mech.error().code;
    const OpRules& rules = RuleFor(kind);
    Result<client::MechanismInfo> offered = OfferedMechanism(state, *mech, rules);
    if (!offered.ok()) return offered.error().code;
    if (rules.key_usage != 0) {
      if (Status st = CheckKey(state, s, key, *offered, rules); !st.ok()) return st.error().code;
    }
    op = Operation{};
    op.phase = OpPhase::kReady;
    op.mechanism = std::move(*mech);
    op.key = key;
    const MechanismRow* row = FindMechanismRow(op.mechanism.type);
    op.in_daemon = row != nullptr && MultiPartInDaemon(*row);
    return CKR_OK;
  });
}

// Execute runs a one-shot request for `kind` over `data`, or ends the
// daemon's multi-part operation when one was started.
Result<SecureBytes> Execute(ModuleState& state, Session& s, OpKind kind, const Operation& op,
                            ByteView data) REQUIRES(s.mu) {
  Result<client::Bytes> out = [&]() -> Result<client::Bytes> {
    s.mu.AssertHeld();  // called right here, under Execute's s.mu
    if (op.streaming) return s.conn->StreamFinal(s.remote, kind);
    // One request over the whole input: safe to repeat on another node.
    return Repeatable(state, s, [&](client::Client& conn, client::Handle remote) {
      switch (kind) {
        case OpKind::kSign:
          return conn.Sign(remote, op.key, op.mechanism, data);
        case OpKind::kDigest:
          return conn.Digest(remote, op.mechanism, data);
        case OpKind::kEncrypt:
          return conn.Encrypt(remote, op.key, op.mechanism, data);
        case OpKind::kDecrypt:
          return conn.Decrypt(remote, op.key, op.mechanism, data);
        case OpKind::kVerify:
          break;
      }
      return Result<client::Bytes>(MakeError(CKR_GENERAL_ERROR, "no one-shot output for verify"));
    });
  }();
  if (!out.ok()) return MakeError(KeyHandleRv(out.error().code), out.error().message);
  SecureBytes secure(out->begin(), out->end());
  if (!out->empty()) explicit_bzero(out->data(), out->size());  // decrypt output is secret
  return secure;
}

// FinalOutputBound: how many bytes the daemon's multi-part operation can
// release at its Final (§5.2 lets a length query answer "a number of bytes
// which would suffice", so it need not end the operation to learn the
// exact one): a digest's or MAC's size, a GCM tag or GCM's held plaintext,
// at most one block for the other cipher modes.
std::size_t FinalOutputBound(const Operation& op, OpKind kind) {
  const MechanismRow* row = FindMechanismRow(op.mechanism.type);
  if (row == nullptr) return 0;
  switch (row->family) {
    case MechanismFamily::kDigest:
      return FactsOf(row->digest).size;
    case MechanismFamily::kAesGcm:
      if (kind == OpKind::kDecrypt) return op.streamed;
      return op.mechanism.gcm ? op.mechanism.gcm->tag_bits / 8 : 16;
    case MechanismFamily::kHmac:
      return op.mechanism.mac_length.value_or(FactsOf(row->digest).size);
    case MechanismFamily::kAesCmac:
      return op.mechanism.mac_length.value_or(16);
    case MechanismFamily::kDes3Cmac:
      return op.mechanism.mac_length.value_or(8);
    default:
      return 16;  // a cipher's last block (8 or 16 bytes)
  }
}

// Finish computes (once) the operation's output over `data` (the
// single-part input or the buffered one) and returns it by §5.2's rules;
// `kept` tells RunOpCall the caller only learnt the length. A length query
// on the daemon's multi-part operation answers its bound and leaves the
// operation going (more Updates may follow).
CK_RV Finish(ModuleState& state, Session& s, OpKind kind, Operation& op, ByteView data,
             CK_BYTE_PTR out, CK_ULONG_PTR out_len, bool& kept) REQUIRES(s.mu) {
  if (out_len == nullptr) return CKR_ARGUMENTS_BAD;
  if (op.streaming && !op.output && out == nullptr) {
    *out_len = FinalOutputBound(op, kind);
    kept = true;
    return CKR_OK;
  }
  if (!op.output) {
    Result<SecureBytes> result = Execute(state, s, kind, op, data);
    if (!result.ok()) return result.error().code;
    op.output = std::move(*result);
  }
  const CK_RV rv = WriteOutput(*op.output, out, out_len);
  kept = KeepsOperation(rv, out);
  return rv;
}

CK_RV SinglePart(CK_SESSION_HANDLE handle, OpKind kind, CK_BYTE_PTR data, CK_ULONG data_len,
                 CK_BYTE_PTR out, CK_ULONG_PTR out_len) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    return RunOpCall(s.op(kind), OpCall::kSingle, [&](Operation& op, bool& kept) -> CK_RV {
      s.mu.AssertHeld();  // RunOpCall calls it at once
      if (data == nullptr && data_len != 0) return CKR_ARGUMENTS_BAD;
      return Finish(state, s, kind, op, ToView(data, data_len), out, out_len, kept);
    });
  });
}

// Buffer appends Update input (bounded by kMaxBufferedInput). A result
// computed for a C_*Final length query no longer holds.
CK_RV Buffer(Operation& op, CK_BYTE_PTR data, CK_ULONG data_len) {
  if (data == nullptr && data_len != 0) return CKR_ARGUMENTS_BAD;
  if (op.buffered.size() + data_len > kMaxBufferedInput) return CKR_DATA_LEN_RANGE;
  const ByteView view = ToView(data, data_len);
  op.buffered.insert(op.buffered.end(), view.begin(), view.end());
  op.output.reset();
  return CKR_OK;
}

// SendPart gives one Update's input to the daemon's multi-part operation
// (starting it with the first part) and keeps what it releases in
// op.update_output until the caller has taken it. A retry after a length
// query or a too-small buffer (§5.2: the same input again) sends nothing.
CK_RV SendPart(Session& s, OpKind kind, Operation& op, CK_BYTE_PTR data, CK_ULONG data_len)
    REQUIRES(s.mu) {
  if (op.update_output) return CKR_OK;
  if (data == nullptr && data_len != 0) return CKR_ARGUMENTS_BAD;
  Result<client::Bytes> out = s.conn->StreamUpdate(s.remote, kind, !op.streaming, op.key,
                                                   op.mechanism, ToView(data, data_len));
  if (!out.ok()) return KeyHandleRv(out.error().code);
  op.streaming = true;
  op.streamed += data_len;
  op.update_output = SecureBytes(out->begin(), out->end());
  if (!out->empty()) explicit_bzero(out->data(), out->size());  // decrypt output is secret
  return CKR_OK;
}

// Update: C_SignUpdate, C_VerifyUpdate, C_DigestUpdate (no output).
CK_RV Update(CK_SESSION_HANDLE handle, OpKind kind, CK_BYTE_PTR data, CK_ULONG data_len) {
  return WithSession(handle, [&](ModuleState&, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    return RunOpCall(s.op(kind), OpCall::kUpdate, [&](Operation& op, bool&) -> CK_RV {
      s.mu.AssertHeld();  // RunOpCall calls it at once
      if (!op.in_daemon) return Buffer(op, data, data_len);
      const CK_RV rv = SendPart(s, kind, op, data, data_len);
      op.update_output.reset();  // a digest part releases nothing
      return rv;
    });
  });
}

// UpdateWithOutput: C_EncryptUpdate / C_DecryptUpdate. A mechanism the
// daemon runs in parts returns what each part releases (AES-GCM decryption
// releases nothing before Final: PKCS#11 v3.0 §2.14.4 allows it); a
// buffered one returns nothing before Final.
CK_RV UpdateWithOutput(CK_SESSION_HANDLE handle, OpKind kind, CK_BYTE_PTR data, CK_ULONG data_len,
                       CK_BYTE_PTR out, CK_ULONG_PTR out_len) {
  return WithSession(handle, [&](ModuleState&, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    return RunOpCall(s.op(kind), OpCall::kUpdate, [&](Operation& op, bool& kept) -> CK_RV {
      s.mu.AssertHeld();  // RunOpCall calls it at once
      if (out_len == nullptr) return CKR_ARGUMENTS_BAD;
      if (!op.in_daemon) {
        const CK_RV rv = Buffer(op, data, data_len);
        if (rv == CKR_OK) *out_len = 0;
        return rv;
      }
      if (const CK_RV rv = SendPart(s, kind, op, data, data_len); rv != CKR_OK) return rv;
      const CK_RV rv = WriteOutput(*op.update_output, out, out_len);
      kept = KeepsOperation(rv, out);
      if (!kept) op.update_output.reset();
      return rv;
    });
  });
}

CK_RV Final(CK_SESSION_HANDLE handle, OpKind kind, CK_BYTE_PTR out, CK_ULONG_PTR out_len) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    return RunOpCall(s.op(kind), OpCall::kFinal, [&](Operation& op, bool& kept) -> CK_RV {
      s.mu.AssertHeld();  // RunOpCall calls it at once
      return Finish(state, s, kind, op, op.buffered, out, out_len, kept);
    });
  });
}

// VerifyWith checks `signature` over `data` (RunOpCall then ends the
// operation: verification has no length query).
CK_RV VerifyWith(ModuleState& state, Session& s, const Operation& op, ByteView data,
                 CK_BYTE_PTR signature, CK_ULONG sig_len) REQUIRES(s.mu) {
  if (signature == nullptr && sig_len != 0) return CKR_ARGUMENTS_BAD;
  Status ok = Repeatable(state, s, [&](client::Client& conn, client::Handle remote) {
    return conn.Verify(remote, op.key, op.mechanism, data, ToView(signature, sig_len));
  });
  return ok.ok() ? CKR_OK : KeyHandleRv(ok.error().code);
}

}  // namespace

CK_RV C_SignInit(CK_SESSION_HANDLE h, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE key) {
  return InitOp(h, OpKind::kSign, m, key);
}
CK_RV C_Sign(CK_SESSION_HANDLE h, CK_BYTE_PTR data, CK_ULONG len, CK_BYTE_PTR out,
             CK_ULONG_PTR out_len) {
  return SinglePart(h, OpKind::kSign, data, len, out, out_len);
}
CK_RV C_SignUpdate(CK_SESSION_HANDLE h, CK_BYTE_PTR data, CK_ULONG len) {
  return Update(h, OpKind::kSign, data, len);
}
CK_RV C_SignFinal(CK_SESSION_HANDLE h, CK_BYTE_PTR out, CK_ULONG_PTR out_len) {
  return Final(h, OpKind::kSign, out, out_len);
}

CK_RV C_VerifyInit(CK_SESSION_HANDLE h, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE key) {
  return InitOp(h, OpKind::kVerify, m, key);
}
CK_RV C_Verify(CK_SESSION_HANDLE h, CK_BYTE_PTR data, CK_ULONG len, CK_BYTE_PTR sig,
               CK_ULONG sig_len) {
  return WithSession(h, [&](ModuleState& state, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    return RunOpCall(s.op(OpKind::kVerify), OpCall::kSingle, [&](Operation& op, bool&) -> CK_RV {
      s.mu.AssertHeld();  // RunOpCall calls it at once
      if (data == nullptr && len != 0) return CKR_ARGUMENTS_BAD;
      return VerifyWith(state, s, op, ToView(data, len), sig, sig_len);
    });
  });
}
CK_RV C_VerifyUpdate(CK_SESSION_HANDLE h, CK_BYTE_PTR data, CK_ULONG len) {
  return Update(h, OpKind::kVerify, data, len);
}
CK_RV C_VerifyFinal(CK_SESSION_HANDLE h, CK_BYTE_PTR sig, CK_ULONG sig_len) {
  return WithSession(h, [&](ModuleState& state, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    return RunOpCall(s.op(OpKind::kVerify), OpCall::kFinal, [&](Operation& op, bool&) -> CK_RV {
      s.mu.AssertHeld();  // RunOpCall calls it at once
      if (op.streaming) {
        if (sig == nullptr && sig_len != 0) return CKR_ARGUMENTS_BAD;
        Result<client::Bytes> done =
            s.conn->StreamFinal(s.remote, OpKind::kVerify, ToView(sig, sig_len));
        return done.ok() ? CKR_OK : KeyHandleRv(done.error().code);
      }
      return VerifyWith(state, s, op, op.buffered, sig, sig_len);
    });
  });
}

CK_RV C_DigestInit(CK_SESSION_HANDLE h, CK_MECHANISM_PTR m) {
  return InitOp(h, OpKind::kDigest, m, CK_INVALID_HANDLE);
}
CK_RV C_Digest(CK_SESSION_HANDLE h, CK_BYTE_PTR data, CK_ULONG len, CK_BYTE_PTR out,
               CK_ULONG_PTR out_len) {
  return SinglePart(h, OpKind::kDigest, data, len, out, out_len);
}
CK_RV C_DigestUpdate(CK_SESSION_HANDLE h, CK_BYTE_PTR data, CK_ULONG len) {
  return Update(h, OpKind::kDigest, data, len);
}
CK_RV C_DigestFinal(CK_SESSION_HANDLE h, CK_BYTE_PTR out, CK_ULONG_PTR out_len) {
  return Final(h, OpKind::kDigest, out, out_len);
}

CK_RV C_EncryptInit(CK_SESSION_HANDLE h, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE key) {
  return InitOp(h, OpKind::kEncrypt, m, key);
}
CK_RV C_Encrypt(CK_SESSION_HANDLE h, CK_BYTE_PTR data, CK_ULONG len, CK_BYTE_PTR out,
                CK_ULONG_PTR out_len) {
  return SinglePart(h, OpKind::kEncrypt, data, len, out, out_len);
}
CK_RV C_EncryptUpdate(CK_SESSION_HANDLE h, CK_BYTE_PTR data, CK_ULONG len, CK_BYTE_PTR out,
                      CK_ULONG_PTR out_len) {
  return UpdateWithOutput(h, OpKind::kEncrypt, data, len, out, out_len);
}
CK_RV C_EncryptFinal(CK_SESSION_HANDLE h, CK_BYTE_PTR out, CK_ULONG_PTR out_len) {
  return Final(h, OpKind::kEncrypt, out, out_len);
}

CK_RV C_DecryptInit(CK_SESSION_HANDLE h, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE key) {
  return InitOp(h, OpKind::kDecrypt, m, key);
}
CK_RV C_Decrypt(CK_SESSION_HANDLE h, CK_BYTE_PTR data, CK_ULONG len, CK_BYTE_PTR out,
                CK_ULONG_PTR out_len) {
  return SinglePart(h, OpKind::kDecrypt, data, len, out, out_len);
}
CK_RV C_DecryptUpdate(CK_SESSION_HANDLE h, CK_BYTE_PTR data, CK_ULONG len, CK_BYTE_PTR out,
                      CK_ULONG_PTR out_len) {
  return UpdateWithOutput(h, OpKind::kDecrypt, data, len, out, out_len);
}
CK_RV C_DecryptFinal(CK_SESSION_HANDLE h, CK_BYTE_PTR out, CK_ULONG_PTR out_len) {
  return Final(h, OpKind::kDecrypt, out, out_len);
}

}  // namespace signet::pkcs11::entry

// Hsm: multi-part operations whose state the daemon keeps per session
// (C_EncryptUpdate, C_DecryptUpdate, C_DigestUpdate and their Final calls),
// so an input of any size passes through in bounded memory and every part
// is one round trip that returns its output at once.
//
// Concurrency: a connection's requests run on several workers at once, so
// two parts of one operation may arrive together (a client that pipelines
// them). A request takes the operation out of ClientState::multi_parts
// under c.mu, runs the crypto unlocked, and puts it back only if its entry
// is still the one it took it from (same generation): a part that finds the
// operation out gets CKR_OPERATION_ACTIVE, and an operation whose session
// closed meanwhile is dropped.
#include <openssl/crypto.h>

#include "base/operation_rules.h"
#include "core/hsm_internal.h"

namespace signet::core {
namespace {

using Key = std::pair<CK_SESSION_HANDLE, OperationKind>;

// LengthCode: the code for an input that is too long for `kind`.
CK_RV LengthCode(OperationKind kind) {
  return kind == OperationKind::kDecrypt ? CKR_ENCRYPTED_DATA_LEN_RANGE : CKR_DATA_LEN_RANGE;
}

// ForgetLocked removes the entry at `it`, giving its held bytes back.
void ForgetLocked(ClientState& c, std::map<Key, MultiPartState>::iterator it) REQUIRES(c.mu) {
  c.multi_part_held_bytes -= std::min(it->second.held, c.multi_part_held_bytes);
  c.multi_parts.erase(it);
}

}  // namespace

void HsmImpl::DropMultiPartsLocked(ClientState& c, CK_SESSION_HANDLE s, CK_SLOT_ID slot) {
  for (auto it = c.multi_parts.begin(); it != c.multi_parts.end();) {
    bool drop = it->first.first == s;
    if (s == 0) {
      auto session = c.sessions.find(it->first.first);
      drop = session == c.sessions.end() || session->second.slot == slot;
    }
    auto next = std::next(it);
    if (drop) ForgetLocked(c, it);
    it = next;
  }
}

Result<Bytes> HsmImpl::StreamUpdate(ClientState& c, CK_SESSION_HANDLE s, OperationKind kind,
                                    bool start, CK_OBJECT_HANDLE key, const Mechanism& m,
                                    ByteView part) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  const Key at{s, kind};
  MultiPartState taken;
  if (start) {
    const OperationRule& usage = RuleFor(kind);  // what the single-part call checks
    SIGNET_ASSIGN_OR_RETURN(const MechanismRow* rule, MechanismFor(m.type, usage.mechanism_flag));
    if (!MultiPartInDaemon(*rule)) {
      return MakeError(CKR_MECHANISM_INVALID, std::string(rule->name) + " is single-part only");
    }
    if (kind == OperationKind::kEncrypt || kind == OperationKind::kDecrypt) {
      SIGNET_TRY(CheckCipherParams(*rule, m));
    }
    std::size_t mac_length = 0;  // a MAC's length, checked before the key
    if (IsMac(rule->family)) {
      SIGNET_ASSIGN_OR_RETURN(mac_length, MacLengthFor(*rule, m));
    }
    ByteView secret_value;
    std::shared_ptr<const keystore::UnwrappedKey> secret;
    if (usage.key_usage != 0) {
      SIGNET_ASSIGN_OR_RETURN(ResolvedObject obj, ResolveObject(c, r, key));
      SIGNET_TRY(CheckKeyUse(*obj.record, *rule, CKO_SECRET_KEY, usage.key_usage));
      SIGNET_ASSIGN_OR_RETURN(secret, FetchSecret(r, obj));
      secret_value = secret->value;
    }
    SIGNET_ASSIGN_OR_RETURN(
        taken.op, StartMultiPart(*rule, m, secret_value, kind != OperationKind::kDecrypt));
    taken.row = rule;
    base::MutexLock lock(&c.mu);
    // A new operation replaces the kind's old one (the module starts one
    // only when it has none: the old one was abandoned).
    if (auto old = c.multi_parts.find(at); old != c.multi_parts.end()) ForgetLocked(c, old);
    taken.generation = ++c.multi_part_generation;
    c.multi_parts[at] = MultiPartState{rule, nullptr, mac_length, 0, taken.generation};
  } else {
    base::MutexLock lock(&c.mu);
    auto it = c.multi_parts.find(at);
    if (it == c.multi_parts.end()) {
      return MakeError(CKR_OPERATION_NOT_INITIALIZED, "no multi-part operation of this kind");
    }
    if (!it->second.op) {
      return MakeError(CKR_OPERATION_ACTIVE, "another part of this operation is in progress");
    }
    taken.row = it->second.row;
    taken.generation = it->second.generation;
    taken.held = it->second.held;
    taken.op = std::move(it->second.op);
  }
  // Bound what the operation may hold back (only GCM decryption holds its
  // input): per operation, and over the connection's operations.
  const Limits& limits = options_.limits;
  const std::size_t held_after = taken.op->HeldBytes() + part.size();
  const bool holds =
      taken.row->family == MechanismFamily::kAesGcm && kind == OperationKind::kDecrypt;
  if (holds) {
    base::MutexLock lock(&c.mu);
    Error too_much{CKR_OK, {}};
    if (held_after > limits.max_held_per_operation) {
      too_much = MakeError(LengthCode(kind), "a multi-part operation holds at most " +
                                                 std::to_string(limits.max_held_per_operation) +
                                                 " bytes before its Final");
    } else if (c.multi_part_held_bytes - taken.held + held_after >
               limits.max_multi_part_held_bytes) {
      too_much = MakeError(CKR_DEVICE_MEMORY,
                           "this connection's multi-part operations would hold more than " +
                               std::to_string(limits.max_multi_part_held_bytes) + " bytes");
    }
    if (too_much.code != CKR_OK) {
      auto it = c.multi_parts.find(at);
      if (it != c.multi_parts.end() && it->second.generation == taken.generation) {
        ForgetLocked(c, it);
      }
      return too_much;
    }
  }
  Result<SecureBytes> out = taken.op->Update(part);
  base::MutexLock lock(&c.mu);
  auto it = c.multi_parts.find(at);
  const bool still_ours = it != c.multi_parts.end() && it->second.generation == taken.generation;
  if (!out.ok()) {
    if (still_ours) ForgetLocked(c, it);
    return out.error();
  }
  if (still_ours) {
    const std::size_t held = taken.op->HeldBytes();
    c.multi_part_held_bytes -= std::min(it->second.held, c.multi_part_held_bytes);
    c.multi_part_held_bytes += held;
    it->second.held = held;
    it->second.op = std::move(taken.op);
  }
  return Bytes(out->begin(), out->end());
}

Result<Bytes> HsmImpl::StreamFinal(ClientState& c, CK_SESSION_HANDLE s, OperationKind kind,
                                   ByteView signature) {
  SIGNET_TRY(ResolveSession(c, s));
  std::unique_ptr<crypto::MultiPart> op;
  const MechanismRow* row = nullptr;
  std::size_t mac_length = 0;
  {
    base::MutexLock lock(&c.mu);
    auto it = c.multi_parts.find({s, kind});
    if (it == c.multi_parts.end()) {
      return MakeError(CKR_OPERATION_NOT_INITIALIZED, "no multi-part operation of this kind");
    }
    if (!it->second.op) {
      return MakeError(CKR_OPERATION_ACTIVE, "another part of this operation is in progress");
    }
    op = std::move(it->second.op);
    row = it->second.row;
    mac_length = it->second.mac_length;
    ForgetLocked(c, it);  // Final ends the operation, whatever its outcome
  }
  SIGNET_ASSIGN_OR_RETURN(SecureBytes out, op->Finish());
  if (mac_length != 0 && mac_length < out.size()) out.resize(mac_length);
  if (kind != OperationKind::kVerify) return Bytes(out.begin(), out.end());
  if (signature.size() != out.size()) {
    return MakeError(CKR_SIGNATURE_LEN_RANGE, std::string(row->name) + " signatures are " +
                                                  std::to_string(out.size()) + " bytes");
  }
  if (CRYPTO_memcmp(signature.data(), out.data(), out.size()) != 0) {
    return MakeError(CKR_SIGNATURE_INVALID, "the signature does not verify");
  }
  return Bytes{};
}

}  // namespace signet::core

// CryptechSession: one connection to the Cryptech listener (libhal RPC
// 1.1.1.0, docs/CRYPTECH.md), mapped onto core::Hsm: the connection is a
// signet client of its own with one read/write session on the configured
// token, its logins are that client's, its key handles name that client's
// objects. Handle turns one decoded request packet into its reply packet.
//
// The opcodes live in families, one file each: cryptech_session.cc (the
// dispatch table, version, random, PINs and logins) and
// cryptech_session_{hash,keys,sign,match,export}.cc.
//
// Thread contract: Handle and Disconnect may be called from any thread (the
// scheduler's workers) but are serialised by the session's own lock; the
// connection sends one request at a time anyway.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>

#include "base/mutex.h"
#include "core/hsm.h"
#include "daemon/cryptech_hash.h"
#include "daemon/cryptech_keys.h"
#include "proto/hal_rpc.h"
#include "proto/hal_xdr.h"

namespace signet::daemon {

class CryptechSession {
 public:
  // `slot` is the token behind the listener; `peer` / `peer_identity` /
  // `admin` describe the connection as core::ClientState records them.
  CryptechSession(core::Hsm& hsm, CK_SLOT_ID slot, std::string peer, std::string peer_identity,
                  bool admin);
  ~CryptechSession();
  CryptechSession(const CryptechSession&) = delete;
  CryptechSession& operator=(const CryptechSession&) = delete;

  // Handle returns the reply to `request`, or nullopt when none is due (a
  // packet shorter than opcode and client words, as libhal).
  std::optional<SecureBytes> Handle(ByteView request) EXCLUDES(mu_);

  // ErrorReply: a reply with `status` and no results to the request that
  // starts with `request` (one over the packet limit, or one the scheduler
  // had no room for).
  static SecureBytes ErrorReply(ByteView request, proto::hal::Error status);

  // Disconnect logs the connection out and ends its session (its session
  // keys go with it). Idempotent.
  void Disconnect() EXCLUDES(mu_);

  // idle: not logged in and holding no handle, so closing the connection
  // for idleness loses its client nothing.
  bool idle() const EXCLUDES(mu_);

  // client_id: the core::ClientState id (the scheduler queue of this
  // connection).
  std::uint64_t client_id() const { return client_->id(); }

 private:
  using Error = proto::hal::Error;
  using Reader = proto::XdrReader;
  using Writer = proto::XdrWriter;
  using Handler = Error (CryptechSession::*)(Reader&, Writer&);

  // What a pkey handle names.
  // What a pkey handle names: the object and its facts when opened (kept
  // current by set_attributes).
  struct OpenKey {
    CK_OBJECT_HANDLE object = 0;
    KeyFacts facts;
  };

  static const Handler kHandlers[proto::hal::kOpcodeCount];

  // --- cryptech_session.cc
  Error GetVersion(Reader& in, Writer& out) REQUIRES(mu_);
  Error GetRandom(Reader& in, Writer& out) REQUIRES(mu_);
  Error SetPin(Reader& in, Writer& out) REQUIRES(mu_);
  Error Login(Reader& in, Writer& out) REQUIRES(mu_);
  Error Logout(Reader& in, Writer& out) REQUIRES(mu_);
  Error LogoutAll(Reader& in, Writer& out) REQUIRES(mu_);
  Error IsLoggedIn(Reader& in, Writer& out) REQUIRES(mu_);
  Error GenerateHashsig(Reader& in, Writer& out) REQUIRES(mu_);
  // EnsureSession opens the connection's read/write session on first use.
  Error EnsureSession() REQUIRES(mu_);
  // EndLogin logs out, closes every handle and ends the session (session
  // keys included).
  void EndLogin() REQUIRES(mu_);
  // RequireUser: FORBIDDEN unless the user is logged in (key operations).
  Error RequireUser() REQUIRES(mu_);

  // --- cryptech_session_hash.cc
  Error HashGetDigestLength(Reader& in, Writer& out) REQUIRES(mu_);
  Error HashGetDigestAlgorithmId(Reader& in, Writer& out) REQUIRES(mu_);
  Error HashGetAlgorithm(Reader& in, Writer& out) REQUIRES(mu_);
  Error HashInitialize(Reader& in, Writer& out) REQUIRES(mu_);
  Error HashUpdate(Reader& in, Writer& out) REQUIRES(mu_);
  Error HashFinalize(Reader& in, Writer& out) REQUIRES(mu_);
  // TakeHash removes hash handle `handle` for a sign/verify to finish.
  std::unique_ptr<CryptechHash> TakeHash(std::uint32_t handle) REQUIRES(mu_);

  // --- cryptech_session_keys.cc
  Error PkeyLoad(Reader& in, Writer& out) REQUIRES(mu_);
  Error PkeyOpen(Reader& in, Writer& out) REQUIRES(mu_);
  Error PkeyGenerateRsa(Reader& in, Writer& out) REQUIRES(mu_);
  Error PkeyGenerateEc(Reader& in, Writer& out) REQUIRES(mu_);
  Error PkeyClose(Reader& in, Writer& out) REQUIRES(mu_);
  Error PkeyDelete(Reader& in, Writer& out) REQUIRES(mu_);
  Error PkeyGetKeyType(Reader& in, Writer& out) REQUIRES(mu_);
  Error PkeyGetKeyFlags(Reader& in, Writer& out) REQUIRES(mu_);
  Error PkeyGetKeyCurve(Reader& in, Writer& out) REQUIRES(mu_);
  Error PkeyGetPublicKeyLength(Reader& in, Writer& out) REQUIRES(mu_);
  Error PkeyGetPublicKey(Reader& in, Writer& out) REQUIRES(mu_);
  // ReplyKeyFact answers get_key_type / _flags / _curve: `fact` of the key
  // the request's handle names.
  Error ReplyKeyFact(Reader& in, Writer& out, std::uint32_t (*fact)(const KeyFacts&)) REQUIRES(mu_);
  // FindKey: what pkey handle `handle` of this connection names, or nullptr.
  OpenKey* FindKey(std::uint32_t handle) REQUIRES(mu_);
  // ReplyNewKey names `object` with a fresh pkey handle and writes the
  // handle, and with `with_uuid` the key's UUID (load, generate, import;
  // not open), to `out`.
  Error ReplyNewKey(CK_OBJECT_HANDLE object, Writer& out, bool with_uuid = true) REQUIRES(mu_);
  // Attributes reads `types` of `object` (absent ones have no entry).
  std::map<CK_ATTRIBUTE_TYPE, Bytes> Attributes(CK_OBJECT_HANDLE object,
                                                const std::vector<CK_ATTRIBUTE_TYPE>& types)
      REQUIRES(mu_);

  // --- cryptech_session_sign.cc
  Error PkeySign(Reader& in, Writer& out) REQUIRES(mu_);
  Error PkeyVerify(Reader& in, Writer& out) REQUIRES(mu_);
  // SignedInput: what sign/verify sign: `input`, or the finished hash of
  // handle `hash` (as a DigestInfo for RSA).
  Error SignedInput(std::uint32_t hash, ByteView input, bool rsa, Bytes& signed_input)
      REQUIRES(mu_);

  // --- cryptech_session_match.cc
  Error PkeyMatch(Reader& in, Writer& out) REQUIRES(mu_);
  Error PkeySetAttributes(Reader& in, Writer& out) REQUIRES(mu_);
  Error PkeyGetAttributes(Reader& in, Writer& out) REQUIRES(mu_);

  // --- cryptech_session_export.cc
  Error PkeyExport(Reader& in, Writer& out) REQUIRES(mu_);
  Error PkeyImport(Reader& in, Writer& out) REQUIRES(mu_);

  core::Hsm& hsm_;
  const CK_SLOT_ID slot_;
  const std::shared_ptr<core::ClientState> client_;
  mutable base::Mutex mu_;
  CK_SESSION_HANDLE session_ GUARDED_BY(mu_) = 0;
  proto::hal::User user_ GUARDED_BY(mu_) = proto::hal::User::kNone;
  std::map<std::uint32_t, OpenKey> keys_ GUARDED_BY(mu_);
  std::map<std::uint32_t, std::unique_ptr<CryptechHash>> hashes_ GUARDED_BY(mu_);
  std::uint32_t next_handle_ GUARDED_BY(mu_) = 1;
  bool disconnected_ GUARDED_BY(mu_) = false;
};

}  // namespace signet::daemon

// Hsm: the software HSM behind the daemon. It owns the slots (one keystore
// token each, plus one free slot where InitToken creates a token), and
// carries out every PKCS#11-shaped operation for a connection's ClientState.
// Mechanism and attribute rules come from mechanisms.h / attributes.h.
//
// Every operation is synchronous and may do crypto and disk I/O: the daemon
// calls them on its worker threads (core/scheduler.h), never on an event
// loop. Return codes are the CK_RV PKCS#11 names for each case.
//
// Hsm is the interface: its operations only. The implementation (state,
// and the helpers the hsm_*.cc files share) is HsmImpl in
// core/hsm_internal.h, which nothing outside core/ includes (the shape of
// LevelDB's db.h / db_impl.h).
//
// Thread contract: all methods may be called concurrently from any thread,
// also for the same ClientState (pipelined requests). The Hsm must outlive
// every ClientState it handed out.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/client_state.h"
#include "core/key_pool.h"
#include "core/limits.h"
#include "core/login_throttle.h"
#include "core/mechanisms.h"
#include "core/stats.h"
#include "keystore/keystore.h"
#include "keystore/pin_policy.h"
#include "keystore/token.h"
#include "signet/types.hpp"

namespace signet::core {

class Scheduler;

// SlotDescription: one slot for GetInfo (CK_SLOT_INFO + CK_TOKEN_INFO).
struct SlotDescription {
  CK_SLOT_ID id = 0;
  bool token_present = false;
  std::string label;
  std::string serial;
  CK_FLAGS flags = 0;
  CK_ULONG sessions = 0;
  CK_ULONG rw_sessions = 0;
};

// TokenActivity: one served token's identity, file (empty for a token of a
// shared keystore) and PIN-check counters
// since start (TokenSlot::LoginCounters; index 0 the user, 1 the SO), for
// the metrics endpoint and its readiness check.
struct TokenActivity {
  CK_SLOT_ID slot = 0;
  std::string serial;
  std::string label;
  std::filesystem::path file;
  std::array<std::uint64_t, 2> logins{};
  std::array<std::uint64_t, 2> login_failures{};
  std::array<std::uint64_t, 2> lockouts{};
  std::array<std::uint64_t, 2> throttled{};
};

struct HsmOptions {
  std::filesystem::path data_dir;
  // keystore_uri: when set, the tokens are those of this PostgreSQL database,
  // shared with other nodes (keystore::OpenPostgresKeystore), and data_dir
  // holds no tokens; empty: data_dir's token files.
  std::string keystore_uri;
  // lock_holder: who holds the data dir's lock ("signetd on SOCKET"),
  // written into the lock file so a second daemon refused names this one
  // (keystore::LockDataDir adds the pid).
  std::string lock_holder = "signetd";
  keystore::TokenOptions token_options;
  Limits limits;
  // public_rw_compat: serials of the tokens whose public R/W sessions may
  // create, change and destroy public token objects without a login, as
  // PKCS#11 allows (§4.4, §5.6). Off for every token by default: signet
  // asks for the user (or, for public objects, the SO). docs/PKCS11.md.
  std::set<std::string> public_rw_compat;
  // clock: the failed-login throttle's time source (tests inject one).
  LoginThrottle::Clock clock = [] { return std::chrono::steady_clock::now(); };
  // strict: refuse to start when any token file cannot be opened (default:
  // serve the healthy ones and report the rest, see Hsm::Open).
  bool strict = false;
  // login_ticket_keys: the keys the nodes of one keystore share for
  // re-login tickets (core/login_ticket.h): the first seals new tickets,
  // each opens them (a rotation in progress); none: no tickets are issued
  // or accepted.
  std::vector<SecureBytes> login_ticket_keys;
};

// UnavailableToken: a token file in the data dir that Open could not serve,
// and why (the keystore's message, which names the file).
struct UnavailableToken {
  std::filesystem::path file;
  std::string reason;
};

// kMinPinLen / kMaxPinLen: the PIN length limits GetInfo reports. The rule
// is keystore/pin_policy.h's, which every path that sets a PIN goes through:
// these operations and the offline `signet init` (cli/ links no core/).
using keystore::kMaxPinLen;
using keystore::kMinPinLen;

class Hsm {
 public:
  // Open loads every `*.token` file in the data dir (sorted by name: the
  // healthy ones become slots 0..N-1). A file that cannot be opened (damaged,
  // not a token, a directory, a dangling symlink) gets no slot and is listed
  // by unavailable_tokens(), so one bad file does not take the others down.
  // Fails with CKR_DEVICE_ERROR when the dir is unusable, and with the
  // first file's error when token files exist but none could be opened, or
  // when options.strict and any could not.
  static Result<std::unique_ptr<Hsm>> Open(HsmOptions options);
  virtual ~Hsm() = default;
  Hsm(const Hsm&) = delete;
  Hsm& operator=(const Hsm&) = delete;

  // NewClient makes the state for a new connection.
  virtual std::shared_ptr<ClientState> NewClient() = 0;
  // Disconnect closes every session of `client` (destroying its session
  // objects) and ends its logins. Idempotent.
  virtual void Disconnect(ClientState& client) = 0;

  // EnableRsaSplit lets a lone RSA signature use an idle worker of `pool`
  // for its second CRT half (core/rsa_split.h). Call before serving;
  // `pool` must outlive the Hsm's use of it.
  virtual void EnableRsaSplit(Scheduler* pool) = 0;

  virtual std::vector<SlotDescription> Slots() const = 0;
  // ServeNewTokens serves the tokens that other daemons added to a shared
  // keystore (keystore::Keystore::Shared) since this one looked, each on
  // the slot id stored with it, so the free slot moves past them; nothing
  // for a data directory. When the keystore cannot be read now, the slots
  // stay as they are until the next look. GetInfo (C_GetSlotList) calls it,
  // and so does opening a session on a slot this daemon does not serve.
  virtual void ServeNewTokens() = 0;
  // unavailable_tokens: the token files Open could not serve (fixed at Open).
  virtual const std::vector<UnavailableToken>& unavailable_tokens() const = 0;
  // counters: the per-phase timings (GetStats).
  virtual PhaseCounters& counters() = 0;
  // CacheTotals: the unwrapped-key cache counters summed over tokens.
  virtual keystore::CacheStats CacheTotals() const = 0;
  // KeystoreHealth: the keystore's connection (keystore::Keystore::Health).
  virtual keystore::KeystoreHealth KeystoreHealth() const = 0;
  // open_sessions: sessions open over all connections.
  virtual std::size_t open_sessions() const = 0;
  // Tokens: every served token's TokenActivity, by slot id.
  virtual std::vector<TokenActivity> Tokens() const = 0;

  // StartKeyPool makes GenerateKeyPair take matching key pairs from a key
  // pool (key_pool.h) that this Hsm owns and lends its slots to; the
  // generator threads start at once. A running pool is stopped first.
  // `options.client_work_queued` must stay callable until StopKeyPool.
  virtual void StartKeyPool(KeyPool::Options options) = 0;
  // StopKeyPool turns the pool off and ends its generator threads (a key
  // being generated is dropped). Idempotent; the destructor calls it.
  virtual void StopKeyPool() = 0;
  // key_pool: the running pool (for its Stats), or nullptr when off.
  virtual std::shared_ptr<KeyPool> key_pool() const = 0;

  // --- sessions and login (hsm_session.cc)
  virtual Result<CK_SESSION_HANDLE> OpenSession(ClientState& c, CK_SLOT_ID slot,
                                                CK_FLAGS flags) = 0;
  virtual Status CloseSession(ClientState& c, CK_SESSION_HANDLE session) = 0;
  virtual Status CloseAllSessions(ClientState& c, CK_SLOT_ID slot) = 0;
  virtual Result<SessionInfo> GetSessionInfo(ClientState& c, CK_SESSION_HANDLE session) = 0;
  virtual Status Login(ClientState& c, CK_SESSION_HANDLE session, CK_USER_TYPE user,
                       ByteView pin) = 0;
  virtual Status Logout(ClientState& c, CK_SESSION_HANDLE session) = 0;
  // IssueLoginTicket seals `pin` into a re-login ticket (core/login_ticket.h)
  // for the token of `session`, which `c` must be logged in to as `user`
  // (so the PIN was just found right): CKR_USER_NOT_LOGGED_IN otherwise,
  // CKR_FUNCTION_NOT_SUPPORTED when the node has no ticket key.
  virtual Result<Bytes> IssueLoginTicket(ClientState& c, CK_SESSION_HANDLE session,
                                         CK_USER_TYPE user, ByteView pin) = 0;
  // LoginWithTicket is Login with the PIN a ticket holds (OpenLoginTicket's
  // errors first, then Login's).
  virtual Status LoginWithTicket(ClientState& c, CK_SESSION_HANDLE session, CK_USER_TYPE user,
                                 ByteView ticket) = 0;
  // UseStableHandles numbers `c`'s token objects from now on with
  // StableHandles under `key` (core/stable_handles.h). Once per connection:
  // again with the same key is a no-op, with another CKR_ARGUMENTS_BAD.
  virtual Status UseStableHandles(ClientState& c, ByteView key) = 0;
  virtual Status InitPin(ClientState& c, CK_SESSION_HANDLE session, ByteView pin) = 0;
  virtual Status SetPin(ClientState& c, CK_SESSION_HANDLE session, ByteView old_pin,
                        ByteView new_pin) = 0;

  // --- tokens (hsm_token.cc)
  // InitToken creates a token on the free slot or re-initialises the token
  // of `slot` (SO PIN must be right; CKR_SESSION_EXISTS when sessions are
  // open on it). Returns the slot id and serial. Creating a token needs an
  // admin connection (ClientState::admin): CKR_TOKEN_WRITE_PROTECTED
  // otherwise. Re-initialising needs the SO PIN only (PKCS#11 §5.5), which
  // the failed-login throttle guards like a Login.
  virtual Result<std::pair<CK_SLOT_ID, std::string>> InitToken(ClientState& c, CK_SLOT_ID slot,
                                                               ByteView so_pin,
                                                               std::string_view label,
                                                               ByteView user_pin) = 0;

  // --- objects (hsm_objects.cc)
  virtual Result<CK_OBJECT_HANDLE> CreateObject(ClientState& c, CK_SESSION_HANDLE s,
                                                const Template& t) = 0;
  // ImportPrivateKey is CreateObject for a private key whose CKA_VALUE in
  // `t` is an unencrypted PKCS#8 PrivateKeyInfo: the key type and
  // components come from it, as when C_UnwrapKey unwraps one (the Cryptech
  // listener's pkey_load). The caller wipes `t`.
  virtual Result<CK_OBJECT_HANDLE> ImportPrivateKey(ClientState& c, CK_SESSION_HANDLE s,
                                                    const Template& t) = 0;
  virtual Result<CK_OBJECT_HANDLE> CopyObject(ClientState& c, CK_SESSION_HANDLE s,
                                              CK_OBJECT_HANDLE o, const Template& t) = 0;
  virtual Status DestroyObject(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE o) = 0;

  // --- several objects in one step (hsm_batch.cc)
  // CreateObjects imports every template under CreateObject's rules and
  // stores them all in ONE keystore transaction: all or none, also across
  // a crash (a key pair's two halves). Every template must be a token
  // object (CKA_TOKEN true): CKR_TEMPLATE_INCONSISTENT otherwise. With
  // `unique_label` the objects' common CKA_LABEL is checked inside that
  // transaction: CKR_ATTRIBUTE_VALUE_INVALID "a key labelled 'x' already
  // exists" when a key object on the token has it (keystore
  // Token::CreateObjects). Returns the handles in template order.
  virtual Result<std::vector<CK_OBJECT_HANDLE>> CreateObjects(
      ClientState& c, CK_SESSION_HANDLE s, const std::vector<Template>& templates,
      bool unique_label) = 0;
  // DestroyObjects destroys every object under DestroyObject's rules; the
  // token objects in ONE keystore transaction. Nothing is destroyed when any
  // object may not be (the first refusal is returned).
  virtual Status DestroyObjects(ClientState& c, CK_SESSION_HANDLE s,
                                const std::vector<CK_OBJECT_HANDLE>& objects) = 0;
  virtual Result<std::vector<CK_OBJECT_HANDLE>> FindObjects(ClientState& c, CK_SESSION_HANDLE s,
                                                            const Template& t,
                                                            std::size_t max_count) = 0;
  // GetAttributeValue: one entry per type; the CK_RV per PKCS#11 §5.7 is
  // returned in *overall (CKR_OK, CKR_ATTRIBUTE_SENSITIVE,
  // CKR_ATTRIBUTE_TYPE_INVALID). Errors of the call itself in the Result.
  virtual Result<std::vector<AttributeValue>> GetAttributeValue(
      ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE o,
      const std::vector<CK_ATTRIBUTE_TYPE>& types, CK_RV* overall) = 0;
  virtual Status SetAttributeValue(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE o,
                                   const Template& t) = 0;

  // --- keys (hsm_keys.cc)
  // GenerateKeyPair stores a token pair's two halves in ONE keystore
  // transaction. `unique_label` (token pairs only, else
  // CKR_TEMPLATE_INCONSISTENT) makes "generate unless a key with this
  // CKA_LABEL exists" one atomic step, as in CreateObjects.
  virtual Result<std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE>> GenerateKeyPair(
      ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m, const Template& pub,
      const Template& priv, bool unique_label = false) = 0;
  virtual Result<CK_OBJECT_HANDLE> GenerateKey(ClientState& c, CK_SESSION_HANDLE s,
                                               const Mechanism& m, const Template& t) = 0;
  virtual Result<Bytes> WrapKey(ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m,
                                CK_OBJECT_HANDLE wrapping_key, CK_OBJECT_HANDLE key) = 0;
  virtual Result<CK_OBJECT_HANDLE> UnwrapKey(ClientState& c, CK_SESSION_HANDLE s,
                                             const Mechanism& m, CK_OBJECT_HANDLE unwrapping_key,
                                             ByteView wrapped, const Template& t) = 0;
  // DeriveKey (C_DeriveKey, hsm_derive.cc) makes a secret key from base key
  // `base_key` with a derivation mechanism (ECDH). The template's
  // CKA_KEY_TYPE (default CKK_GENERIC_SECRET) and CKA_VALUE_LEN say what to
  // make; storing it follows C_CreateObject's rules (a token key needs a RW
  // session and the user's login). docs/PKCS11.md "Derived keys".
  virtual Result<CK_OBJECT_HANDLE> DeriveKey(ClientState& c, CK_SESSION_HANDLE s,
                                             const Mechanism& m, CK_OBJECT_HANDLE base_key,
                                             const Template& t) = 0;

  // --- crypto (hsm_crypto.cc)
  virtual Result<Bytes> Sign(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                             const Mechanism& m, ByteView data) = 0;
  // SignBatch: per-input results; the outer Result fails only when no input
  // can be signed (bad session, key or mechanism).
  virtual Result<std::vector<Result<Bytes>>> SignBatch(ClientState& c, CK_SESSION_HANDLE s,
                                                       CK_OBJECT_HANDLE key, const Mechanism& m,
                                                       const std::vector<ByteView>& inputs) = 0;
  virtual Status Verify(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                        const Mechanism& m, ByteView data, ByteView signature) = 0;
  virtual Result<Bytes> Digest(ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m,
                               ByteView data) = 0;
  virtual Result<Bytes> Encrypt(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                                const Mechanism& m, ByteView data) = 0;
  virtual Result<Bytes> Decrypt(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                                const Mechanism& m, ByteView data) = 0;
  // --- multi-part operations kept in the daemon (hsm_multi_part.cc)
  // StreamUpdate feeds one part of the session's multi-part operation of
  // `kind` and returns what the part releases. With `start` it first
  // begins one with `key` (ignored for digests) and `m`, under the checks
  // of the single-part call (session, mechanism and its parameter, key
  // class, type and usage flag), replacing any operation of that kind the
  // session had. Only mechanisms MultiPartInDaemon accepts
  // (CKR_MECHANISM_INVALID otherwise). Without `start`:
  // CKR_OPERATION_NOT_INITIALIZED when none is active,
  // CKR_OPERATION_ACTIVE when another request is feeding it right now.
  // Any error ends the operation. The bytes operations hold back are
  // bounded (Limits::max_multi_part_held_bytes, max_held_per_operation).
  virtual Result<Bytes> StreamUpdate(ClientState& c, CK_SESSION_HANDLE s, OperationKind kind,
                                     bool start, CK_OBJECT_HANDLE key, const Mechanism& m,
                                     ByteView part) = 0;
  // StreamFinal ends the operation and returns its last output (the
  // digest, MAC, padded last block, GCM tag or verified plaintext); for
  // kVerify it checks `signature` instead and returns nothing.
  virtual Result<Bytes> StreamFinal(ClientState& c, CK_SESSION_HANDLE s, OperationKind kind,
                                    ByteView signature) = 0;

  virtual Result<Bytes> GenerateRandom(ClientState& c, CK_SESSION_HANDLE s, std::size_t length) = 0;
  // SeedRandom mixes `seed` into the DRBG as additional input
  // (crypto::MixIntoRandom; PKCS#11 v2.40 §5.15 C_SeedRandom).
  // CKR_ARGUMENTS_BAD beyond kMaxSeedBytes.
  virtual Status SeedRandom(ClientState& c, CK_SESSION_HANDLE s, ByteView seed) = 0;

 protected:
  Hsm() = default;
};

}  // namespace signet::core

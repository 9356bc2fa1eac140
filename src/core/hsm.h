// Hsm: the software HSM behind the daemon. It owns the slots (one keystore
// token each, plus one free slot where InitToken creates a token), and
// carries out every PKCS#11-shaped operation for a connection's ClientState.
// Mechanism and attribute rules come from mechanisms.h / attributes.h.
//
// Every operation is synchronous and may do crypto and disk I/O: the daemon
// calls them on its worker threads (core/scheduler.h), never on an event
// loop. Return codes are the CK_RV PKCS#11 names for each case.
//
// Thread contract: all methods may be called concurrently from any thread,
// also for the same ClientState (pipelined requests). The Hsm must outlive
// every ClientState it handed out.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "core/client_state.h"
#include "core/limits.h"
#include "core/login_throttle.h"
#include "core/mechanisms.h"
#include "core/rsa_split.h"
#include "core/stats.h"
#include "core/token_slot.h"
#include "keystore/data_dir.h"
#include "keystore/pin_policy.h"

namespace signet::core {

class KeyPool;

struct PssParams {
  CK_MECHANISM_TYPE hash_alg = 0;
  CK_RSA_PKCS_MGF_TYPE mgf = 0;
  CK_ULONG salt_len = 0;
};
struct GcmParams {
  Bytes iv;
  Bytes aad;
  CK_ULONG tag_bits = 128;
};
// Mechanism: CK_MECHANISM with its parameter in typed form.
struct Mechanism {
  CK_MECHANISM_TYPE type = 0;
  std::optional<PssParams> pss;
  std::optional<GcmParams> gcm;
};

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

struct SessionInfo {
  CK_SLOT_ID slot = 0;
  CK_STATE state = 0;
  CK_FLAGS flags = 0;
};

struct AttributeValue {
  CK_ATTRIBUTE_TYPE type = 0;
  CK_RV rv = CKR_OK;
  Bytes value;
};

struct HsmOptions {
  std::filesystem::path data_dir;
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
  ~Hsm();

  // NewClient makes the state for a new connection.
  std::shared_ptr<ClientState> NewClient();
  // Disconnect closes every session of `client` (destroying its session
  // objects) and ends its logins. Idempotent.
  void Disconnect(ClientState& client);

  // EnableRsaSplit lets a lone RSA signature use an idle worker of `pool`
  // for its second CRT half (core/rsa_split.h). Call before serving;
  // `pool` must outlive the Hsm's use of it.
  void EnableRsaSplit(Scheduler* pool) { splitter_ = std::make_unique<RsaSplitter>(pool); }

  std::vector<SlotDescription> Slots() const;
  // unavailable_tokens: the token files Open could not serve (fixed at Open).
  const std::vector<UnavailableToken>& unavailable_tokens() const { return unavailable_; }
  PhaseCounters& counters() { return counters_; }
  keystore::CacheStats CacheTotals() const;
  std::size_t open_sessions() const { return open_sessions_.load(std::memory_order_relaxed); }

  // SetKeyPool makes GenerateKeyPair take matching key pairs from `pool`
  // (key_pool.h); nullptr turns the pool off. key_pool: the current one.
  void SetKeyPool(std::shared_ptr<KeyPool> pool);
  std::shared_ptr<KeyPool> key_pool() const;

  // --- sessions and login (hsm_session.cc)
  Result<CK_SESSION_HANDLE> OpenSession(ClientState& c, CK_SLOT_ID slot, CK_FLAGS flags);
  Status CloseSession(ClientState& c, CK_SESSION_HANDLE session);
  Status CloseAllSessions(ClientState& c, CK_SLOT_ID slot);
  Result<SessionInfo> GetSessionInfo(ClientState& c, CK_SESSION_HANDLE session);
  Status Login(ClientState& c, CK_SESSION_HANDLE session, CK_USER_TYPE user, ByteView pin);
  Status Logout(ClientState& c, CK_SESSION_HANDLE session);
  Status InitPin(ClientState& c, CK_SESSION_HANDLE session, ByteView pin);
  Status SetPin(ClientState& c, CK_SESSION_HANDLE session, ByteView old_pin, ByteView new_pin);

  // --- tokens (hsm_token.cc)
  // InitToken creates a token on the free slot or re-initialises the token
  // of `slot` (SO PIN must be right; CKR_SESSION_EXISTS when sessions are
  // open on it). Returns the slot id and serial. Creating a token needs an
  // admin connection (ClientState::admin): CKR_TOKEN_WRITE_PROTECTED
  // otherwise. Re-initialising needs the SO PIN only (PKCS#11 §5.5), which
  // the failed-login throttle guards like a Login.
  Result<std::pair<CK_SLOT_ID, std::string>> InitToken(ClientState& c, CK_SLOT_ID slot,
                                                       ByteView so_pin, std::string_view label,
                                                       ByteView user_pin);

  // --- objects (hsm_objects.cc)
  Result<CK_OBJECT_HANDLE> CreateObject(ClientState& c, CK_SESSION_HANDLE s, const Template& t);
  Result<CK_OBJECT_HANDLE> CopyObject(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE o,
                                      const Template& t);
  Status DestroyObject(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE o);

  // --- several objects in one step (hsm_batch.cc)
  // CreateObjects imports every template under CreateObject's rules and
  // stores them all in ONE keystore transaction: all or none, also across
  // a crash (a key pair's two halves). Every template must be a token
  // object (CKA_TOKEN true): CKR_TEMPLATE_INCONSISTENT otherwise. With
  // `unique_label` the objects' common CKA_LABEL is checked inside that
  // transaction: CKR_ATTRIBUTE_VALUE_INVALID "a key labelled 'x' already
  // exists" when a key object on the token has it (keystore
  // Token::CreateObjects). Returns the handles in template order.
  Result<std::vector<CK_OBJECT_HANDLE>> CreateObjects(ClientState& c, CK_SESSION_HANDLE s,
                                                      const std::vector<Template>& templates,
                                                      bool unique_label);
  // DestroyObjects destroys every object under DestroyObject's rules; the
  // token objects in ONE keystore transaction. Nothing is destroyed when any
  // object may not be (the first refusal is returned).
  Status DestroyObjects(ClientState& c, CK_SESSION_HANDLE s,
                        const std::vector<CK_OBJECT_HANDLE>& objects);
  Result<std::vector<CK_OBJECT_HANDLE>> FindObjects(ClientState& c, CK_SESSION_HANDLE s,
                                                    const Template& t, std::size_t max_count);
  // GetAttributeValue: one entry per type; the CK_RV per PKCS#11 §5.7 is
  // returned in *overall (CKR_OK, CKR_ATTRIBUTE_SENSITIVE,
  // CKR_ATTRIBUTE_TYPE_INVALID). Errors of the call itself in the Result.
  Result<std::vector<AttributeValue>> GetAttributeValue(ClientState& c, CK_SESSION_HANDLE s,
                                                        CK_OBJECT_HANDLE o,
                                                        const std::vector<CK_ATTRIBUTE_TYPE>& types,
                                                        CK_RV* overall);
  Status SetAttributeValue(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE o,
                           const Template& t);

  // --- keys (hsm_keys.cc)
  // GenerateKeyPair stores a token pair's two halves in ONE keystore
  // transaction. `unique_label` (token pairs only, else
  // CKR_TEMPLATE_INCONSISTENT) makes "generate unless a key with this
  // CKA_LABEL exists" one atomic step, as in CreateObjects.
  Result<std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE>> GenerateKeyPair(
      ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m, const Template& pub,
      const Template& priv, bool unique_label = false);
  Result<CK_OBJECT_HANDLE> GenerateKey(ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m,
                                       const Template& t);
  Result<Bytes> WrapKey(ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m,
                        CK_OBJECT_HANDLE wrapping_key, CK_OBJECT_HANDLE key);
  Result<CK_OBJECT_HANDLE> UnwrapKey(ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m,
                                     CK_OBJECT_HANDLE unwrapping_key, ByteView wrapped,
                                     const Template& t);

  // --- crypto (hsm_crypto.cc)
  Result<Bytes> Sign(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key, const Mechanism& m,
                     ByteView data);
  // SignBatch: per-input results; the outer Result fails only when no input
  // can be signed (bad session, key or mechanism).
  Result<std::vector<Result<Bytes>>> SignBatch(ClientState& c, CK_SESSION_HANDLE s,
                                               CK_OBJECT_HANDLE key, const Mechanism& m,
                                               const std::vector<ByteView>& inputs);
  Status Verify(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key, const Mechanism& m,
                ByteView data, ByteView signature);
  Result<Bytes> Digest(ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m, ByteView data);
  Result<Bytes> Encrypt(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                        const Mechanism& m, ByteView data);
  Result<Bytes> Decrypt(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                        const Mechanism& m, ByteView data);
  Result<Bytes> GenerateRandom(ClientState& c, CK_SESSION_HANDLE s, std::size_t length);
  // SeedRandom mixes `seed` into the DRBG as additional input
  // (crypto::MixIntoRandom; PKCS#11 v2.40 §5.15 C_SeedRandom).
  // CKR_ARGUMENTS_BAD beyond kMaxSeedBytes.
  Status SeedRandom(ClientState& c, CK_SESSION_HANDLE s, ByteView seed);

  // Internal helpers shared by the hsm_*.cc files (public for them only).
  struct Resolved {
    TokenSlot* slot = nullptr;
    Session session;
    bool logged_in_user = false;  // this connection, this token
    bool logged_in_so = false;
  };
  Result<Resolved> ResolveSession(ClientState& c, CK_SESSION_HANDLE s);
  struct ResolvedObject {
    RecordPtr record;
    bool token_object = false;
    keystore::ObjectHandle token_id = 0;
  };
  Result<ResolvedObject> ResolveObject(ClientState& c, const Resolved& r, CK_OBJECT_HANDLE o);
  // FetchSecret returns a key's secret (cached unwrap for token keys).
  Result<std::shared_ptr<const keystore::UnwrappedKey>> FetchSecret(const Resolved& r,
                                                                    const ResolvedObject& obj);
  // ReadSecretComponent returns a readable key's secret attribute `type`
  // (CKA_VALUE, CKA_PRIVATE_EXPONENT, ...) from its key material.
  Result<Bytes> ReadSecretComponent(const Resolved& r, const ResolvedObject& obj,
                                    CK_ATTRIBUTE_TYPE type);
  // CheckTokenWrite: may this session create, change or destroy a token
  // object (`private_object`: one with CKA_PRIVATE true)? A RW session is
  // needed (CKR_SESSION_READ_ONLY), and a login (CKR_USER_NOT_LOGGED_IN):
  // the user for any object, the SO for public ones (PKCS#11 §5.6), and on
  // a token with TokenPolicy::public_rw_compat a public RW session for
  // public ones, as the specification has it.
  Status CheckTokenWrite(const Resolved& r, bool private_object) const;
  // CheckMayStore: StoreObject's permission rules for a new object
  // (CheckTokenWrite for a token object; a private session object needs the
  // user). Every path that stores objects, batch ones too, must call it.
  Status CheckMayStore(const Resolved& r, const AttributeMap& attrs);
  // CheckMayDestroy: DestroyObject's rules (CKA_DESTROYABLE, then
  // CheckTokenWrite for a token object); every destroying path calls it.
  Status CheckMayDestroy(const Resolved& r, const ResolvedObject& obj);
  // CheckSessionObjectRoomLocked: may `c` hold `objects` more session
  // objects of `bytes` more bytes (Limits)? CKR_DEVICE_MEMORY otherwise.
  // REQUIRES: c.mu held.
  Status CheckSessionObjectRoomLocked(const ClientState& c, std::size_t objects,
                                      std::size_t bytes) const;
  // ThrottledPinCheck runs `check` (a PIN check of `user` on `slot`) unless
  // the failed-login throttle says to wait (CKR_FUNCTION_FAILED, "try again
  // in N s", the PIN unread); records its outcome with the throttle.
  Status ThrottledPinCheck(const ClientState& c, TokenSlot& slot, keystore::UserType user,
                           const std::function<Status()>& check);
  // StoreObject stores a new object (token or session per CKA_TOKEN) and
  // returns its handle for `c`. Checks RW session and login for writes, and
  // the session-object limits of `c` (CKR_DEVICE_MEMORY).
  Result<CK_OBJECT_HANDLE> StoreObject(ClientState& c, CK_SESSION_HANDLE s, const Resolved& r,
                                       AttributeMap attrs,
                                       std::shared_ptr<const keystore::UnwrappedKey> secret);
  // PendingObject: a new object ready to store (attributes complete,
  // secret parsed).
  struct PendingObject {
    AttributeMap attrs;
    std::shared_ptr<const keystore::UnwrappedKey> secret;
  };
  // PrepareImport applies CreateObject's template rules (hsm_objects.cc).
  Result<PendingObject> PrepareImport(const Template& t, bool value_is_pkcs8);
  // StoreTokenObjects stores token objects in ONE keystore transaction
  // after CheckMayStore passes for each; `unique_label` as in
  // Token::CreateObjects (nullptr: no check). Handles in order.
  Result<std::vector<CK_OBJECT_HANDLE>> StoreTokenObjects(ClientState& c, const Resolved& r,
                                                          std::vector<PendingObject> objects,
                                                          const Bytes* unique_label);
  // StoreGeneratedKeyPair completes the attributes of a generated `key`
  // (key_pair_attributes.h) and stores private, then public half
  // (hsm_keys.cc). Returns {public, private}.
  // A token pair goes in one keystore transaction; `unique_label` as in
  // StoreTokenObjects.
  Result<std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE>> StoreGeneratedKeyPair(
      ClientState& c, CK_SESSION_HANDLE s, const Resolved& r, CK_MECHANISM_TYPE mechanism,
      crypto::PrivateKey key, AttributeMap pub, AttributeMap priv,
      const Bytes* unique_label = nullptr);
  // GenerateKeyPairFromPool returns a pair made from the key pool when
  // `spec` is pooled and a key is ready (hsm_pool.cc); nullopt means
  // generate fresh. Templates already validated and permissions checked.
  Result<std::optional<std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE>>> GenerateKeyPairFromPool(
      ClientState& c, CK_SESSION_HANDLE s, const Resolved& r, const crypto::KeySpec& spec,
      CK_MECHANISM_TYPE mechanism, const AttributeMap& pub, const AttributeMap& priv,
      const Bytes* unique_label);
  CK_OBJECT_HANDLE HandleForToken(ClientState& c, CK_SLOT_ID slot, keystore::ObjectHandle id);
  TokenSlot* FindSlot(CK_SLOT_ID slot) const;
  // ImportObject is CreateObject; `value_is_pkcs8` (UnwrapKey) reads a
  // private key's CKA_VALUE as PKCS#8 whatever else the template holds.
  Result<CK_OBJECT_HANDLE> ImportObject(ClientState& c, CK_SESSION_HANDLE s, const Template& t,
                                        bool value_is_pkcs8);
  // MissingSlotError: why `slot` has no token: CKR_TOKEN_NOT_PRESENT for
  // the free slot, CKR_SLOT_ID_INVALID for any other id.
  Error MissingSlotError(CK_SLOT_ID slot) const;

 private:
  explicit Hsm(HsmOptions options);
  TokenPolicy PolicyFor(const keystore::Token& token) const;
  // ForgetSessionObjectLocked gives a removed session object's share of the
  // connection's limits back. REQUIRES: c.mu held.
  static void ForgetSessionObjectLocked(ClientState& c, const HandleEntry& entry);
  // EndLoginLocked is what a logout does to the connection's state on
  // `slot` (PKCS#11 §5.6.4): private session objects are destroyed, handles
  // to private token objects become invalid (a later login finds them again
  // under new handles), and unused context-specific logins are dropped.
  // REQUIRES: c.mu held.
  static void EndLoginLocked(ClientState& c, const TokenSlot& slot);
  // ContextLogin is C_Login(CKU_CONTEXT_SPECIFIC): the user PIN again, for
  // the session's next signature with a CKA_ALWAYS_AUTHENTICATE key.
  Status ContextLogin(ClientState& c, CK_SESSION_HANDLE s, const Resolved& r, ByteView pin);
  // TakeContextAuthorization consumes session `s`'s context-specific login;
  // CKR_USER_NOT_LOGGED_IN when it has none (§4.9 CKA_ALWAYS_AUTHENTICATE).
  static Status TakeContextAuthorization(ClientState& c, CK_SESSION_HANDLE s);
  void CloseSessionLocked(ClientState& c, CK_SESSION_HANDLE s,
                          std::vector<keystore::UserType>* logouts, TokenSlot** slot_out);

  HsmOptions options_;
  LoginThrottle throttle_;
  std::unique_ptr<keystore::DataDirLock> dir_lock_;  // held while the Hsm lives
  mutable std::shared_mutex slots_mu_;
  std::vector<std::unique_ptr<TokenSlot>> slots_;  // index == slot id
  std::vector<UnavailableToken> unavailable_;      // written only by Open
  std::mutex init_mu_;                             // serialises InitToken
  std::atomic<std::uint64_t> next_client_id_{1};
  std::atomic<std::size_t> open_sessions_{0};
  PhaseCounters counters_;
  std::unique_ptr<RsaSplitter> splitter_;  // null: RSA signs on one thread
  mutable std::mutex pool_mu_;
  std::shared_ptr<KeyPool> key_pool_;  // guarded by pool_mu_; last: stops first
};

// RandomHandle draws a non-zero 32-bit handle from the DRBG.
CK_ULONG RandomHandle();

// CommonLabel returns the CKA_LABEL shared by every map in `maps` that has
// one (the label a unique_label request checks). CKR_TEMPLATE_INCOMPLETE
// when none has a label; CKR_TEMPLATE_INCONSISTENT when two differ.
Result<Bytes> CommonLabel(const std::vector<const AttributeMap*>& maps);

}  // namespace signet::core

// HsmImpl: the Hsm of hsm.h, with its state and the helpers its
// operations share. The operations are split by PKCS#11 function family
// over hsm_session.cc, hsm_token.cc, hsm_objects.cc, hsm_batch.cc,
// hsm_keys.cc, hsm_crypto.cc and hsm_pool.cc; hsm.cc holds opening, slots
// and the lookups every family uses. A helper that more than one of those
// files needs is declared here, once, not copied into each file's
// anonymous namespace.
//
// Internal to core/: included by the hsm_*.cc files and by white-box core
// tests, by nothing outside core/ (hsm.h is the interface).
//
// Thread contract: Hsm's (hsm.h). Each lock's members are GUARDED_BY it
// and the helpers say which lock they need (REQUIRES) or take (EXCLUDES),
// checked by clang's -Wthread-safety (base/mutex.h); a ClientState's own
// state is guarded by its `mu` (client_state.h). Lock order: init_mu_
// before slots_mu_; a ClientState's mu before slots_mu_ (FindSlot takes it
// shared, also while a ClientState's mu is held); pool_mu_ alone.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "core/hsm.h"
#include "core/rsa_split.h"
#include "core/token_slot.h"
#include "keystore/keystore.h"

namespace signet::core {

// RandomHandle draws a non-zero 32-bit handle from the DRBG.
CK_ULONG RandomHandle();

// ToUserType: the keystore's user for a CKU_SO / CKU_USER;
// CKR_USER_TYPE_INVALID for any other.
inline Result<keystore::UserType> ToUserType(CK_USER_TYPE user) {
  if (user == CKU_SO) return keystore::UserType::kSo;
  if (user == CKU_USER) return keystore::UserType::kUser;
  return MakeError(CKR_USER_TYPE_INVALID, "unknown user type");
}

// UnusedHandle draws handles until one is not a key of `taken` (one of a
// ClientState's handle maps). REQUIRES: the lock guarding `taken` (the
// ClientState's mu) held, so the handle is still free when inserted (the
// analysis checks it at the call: passing a guarded map needs its lock).
template <typename HandleMap>
CK_ULONG UnusedHandle(const HandleMap& taken) {
  CK_ULONG h;
  do {
    h = RandomHandle();
  } while (taken.count(h) != 0);
  return h;
}

// CheckKeyUse verifies a key for an operation: its class `cls` (a private
// key also does for CKO_PUBLIC_KEY: its public half), its CKA_KEY_TYPE
// against the row's, its usage flag `usage`, and CKA_ALLOWED_MECHANISMS.
// CKR_KEY_TYPE_INCONSISTENT, CKR_KEY_FUNCTION_NOT_PERMITTED or
// CKR_MECHANISM_INVALID.
Status CheckKeyUse(const ObjectRecord& rec, const MechanismRow& rule, CK_OBJECT_CLASS cls,
                   CK_ATTRIBUTE_TYPE usage);

// CommonLabel returns the CKA_LABEL shared by every map in `maps` that has
// one (the label a unique_label request checks). CKR_TEMPLATE_INCOMPLETE
// when none has a label; CKR_TEMPLATE_INCONSISTENT when two differ.
Result<Bytes> CommonLabel(const std::vector<const AttributeMap*>& maps);

class HsmImpl final : public Hsm {
 public:
  // Open is Hsm::Open.
  static Result<std::unique_ptr<HsmImpl>> Open(HsmOptions options);
  ~HsmImpl() override;

  // --- Hsm (hsm.h)
  std::shared_ptr<ClientState> NewClient() override;
  void Disconnect(ClientState& c) override EXCLUDES(c.mu);
  void EnableRsaSplit(Scheduler* pool) override;
  std::vector<SlotDescription> Slots() const override EXCLUDES(slots_mu_);
  keystore::KeystoreHealth KeystoreHealth() const override { return keystore_->Health(); }
  void ServeNewTokens() override EXCLUDES(init_mu_, slots_mu_);
  const std::vector<UnavailableToken>& unavailable_tokens() const override;
  PhaseCounters& counters() override;
  keystore::CacheStats CacheTotals() const override EXCLUDES(slots_mu_);
  std::size_t open_sessions() const override;
  std::vector<TokenActivity> Tokens() const override EXCLUDES(slots_mu_);
  void StartKeyPool(KeyPool::Options options) override EXCLUDES(pool_mu_);
  void StopKeyPool() override EXCLUDES(pool_mu_);
  std::shared_ptr<KeyPool> key_pool() const override EXCLUDES(pool_mu_);
  Result<CK_SESSION_HANDLE> OpenSession(ClientState& c, CK_SLOT_ID slot, CK_FLAGS flags) override;
  Status CloseSession(ClientState& c, CK_SESSION_HANDLE session) override;
  Status CloseAllSessions(ClientState& c, CK_SLOT_ID slot) override;
  Result<SessionInfo> GetSessionInfo(ClientState& c, CK_SESSION_HANDLE session) override;
  Status Login(ClientState& c, CK_SESSION_HANDLE session, CK_USER_TYPE user, ByteView pin) override;
  Status Logout(ClientState& c, CK_SESSION_HANDLE session) override;
  Result<Bytes> IssueLoginTicket(ClientState& c, CK_SESSION_HANDLE session, CK_USER_TYPE user,
                                 ByteView pin) override;
  Status LoginWithTicket(ClientState& c, CK_SESSION_HANDLE session, CK_USER_TYPE user,
                         ByteView ticket) override;
  Status UseStableHandles(ClientState& c, ByteView key) override;
  Status InitPin(ClientState& c, CK_SESSION_HANDLE session, ByteView pin) override;
  Status SetPin(ClientState& c, CK_SESSION_HANDLE session, ByteView old_pin,
                ByteView new_pin) override;
  Result<std::pair<CK_SLOT_ID, std::string>> InitToken(ClientState& c, CK_SLOT_ID slot,
                                                       ByteView so_pin, std::string_view label,
                                                       ByteView user_pin) override
      EXCLUDES(init_mu_, slots_mu_);
  Result<CK_OBJECT_HANDLE> CreateObject(ClientState& c, CK_SESSION_HANDLE s,
                                        const Template& t) override;
  Result<CK_OBJECT_HANDLE> ImportPrivateKey(ClientState& c, CK_SESSION_HANDLE s,
                                            const Template& t) override;
  Result<CK_OBJECT_HANDLE> CopyObject(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE o,
                                      const Template& t) override;
  Status DestroyObject(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE o) override;
  Result<std::vector<CK_OBJECT_HANDLE>> CreateObjects(ClientState& c, CK_SESSION_HANDLE s,
                                                      const std::vector<Template>& templates,
                                                      bool unique_label) override;
  Status DestroyObjects(ClientState& c, CK_SESSION_HANDLE s,
                        const std::vector<CK_OBJECT_HANDLE>& objects) override;
  Result<std::vector<CK_OBJECT_HANDLE>> FindObjects(ClientState& c, CK_SESSION_HANDLE s,
                                                    const Template& t,
                                                    std::size_t max_count) override;
  Result<std::vector<AttributeValue>> GetAttributeValue(ClientState& c, CK_SESSION_HANDLE s,
                                                        CK_OBJECT_HANDLE o,
                                                        const std::vector<CK_ATTRIBUTE_TYPE>& types,
                                                        CK_RV* overall) override;
  Status SetAttributeValue(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE o,
                           const Template& t) override;
  Result<std::pair<CK_OBJECT_HANDLE, CK_OBJECT_HANDLE>> GenerateKeyPair(
      ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m, const Template& pub,
      const Template& priv, bool unique_label) override;
  Result<CK_OBJECT_HANDLE> GenerateKey(ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m,
                                       const Template& t) override;
  Result<Bytes> WrapKey(ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m,
                        CK_OBJECT_HANDLE wrapping_key, CK_OBJECT_HANDLE key) override;
  Result<CK_OBJECT_HANDLE> UnwrapKey(ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m,
                                     CK_OBJECT_HANDLE unwrapping_key, ByteView wrapped,
                                     const Template& t) override;
  Result<CK_OBJECT_HANDLE> DeriveKey(ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m,
                                     CK_OBJECT_HANDLE base_key, const Template& t) override;
  Result<Bytes> Sign(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key, const Mechanism& m,
                     ByteView data) override;
  Result<std::vector<Result<Bytes>>> SignBatch(ClientState& c, CK_SESSION_HANDLE s,
                                               CK_OBJECT_HANDLE key, const Mechanism& m,
                                               const std::vector<ByteView>& inputs) override;
  Status Verify(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key, const Mechanism& m,
                ByteView data, ByteView signature) override;
  Result<Bytes> Digest(ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m,
                       ByteView data) override;
  Result<Bytes> Encrypt(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                        const Mechanism& m, ByteView data) override;
  Result<Bytes> Decrypt(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                        const Mechanism& m, ByteView data) override;
  Result<Bytes> GenerateRandom(ClientState& c, CK_SESSION_HANDLE s, std::size_t length) override;
  Status SeedRandom(ClientState& c, CK_SESSION_HANDLE s, ByteView seed) override;
  Result<Bytes> StreamUpdate(ClientState& c, CK_SESSION_HANDLE s, OperationKind kind, bool start,
                             CK_OBJECT_HANDLE key, const Mechanism& m, ByteView part) override;
  Result<Bytes> StreamFinal(ClientState& c, CK_SESSION_HANDLE s, OperationKind kind,
                            ByteView signature) override;

  // --- shared by the hsm_*.cc files

  // Resolved: a session handle of `c` looked up: its slot and session, and
  // which user this connection has logged in to that token.
  struct Resolved {
    TokenSlot* slot = nullptr;
    Session session;
    bool logged_in_user = false;  // this connection, this token
    bool logged_in_so = false;
  };
  // ResolveSession: CKR_SESSION_HANDLE_INVALID when `s` is not a session
  // of `c` or its slot is gone.
  Result<Resolved> ResolveSession(ClientState& c, CK_SESSION_HANDLE s) EXCLUDES(c.mu);
  // ResolvedObject: an object handle of `c` looked up: its record, and for a
  // token object its keystore id.
  struct ResolvedObject {
    RecordPtr record;
    bool token_object = false;
    keystore::ObjectHandle token_id = 0;
  };
  // ResolveObject: CKR_OBJECT_HANDLE_INVALID when `o` is not an object of
  // `c` on r's slot, was destroyed, or is private without a user login.
  Result<ResolvedObject> ResolveObject(ClientState& c, const Resolved& r, CK_OBJECT_HANDLE o)
      EXCLUDES(c.mu);
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
  Status CheckSessionObjectRoomLocked(const ClientState& c, std::size_t objects,
                                      std::size_t bytes) const REQUIRES(c.mu);
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
                                       std::shared_ptr<const keystore::UnwrappedKey> secret)
      EXCLUDES(c.mu);
  // PendingObject: a new object ready to store (attributes complete,
  // secret parsed).
  struct PendingObject {
    AttributeMap attrs;
    std::shared_ptr<const keystore::UnwrappedKey> secret;
  };
  // PrepareImport applies CreateObject's template rules (hsm_objects.cc).
  Result<PendingObject> PrepareImport(const Template& t, bool value_is_pkcs8);
  // UnwrapUnderKeyPair finishes C_UnwrapKey for a key pair's mechanism
  // (UsesKeyPair): decrypts `wrapped` with the private key `unwrapper` and
  // stores the key `attrs` describe, every failure that depends on the
  // plaintext answered as CKR_WRAPPED_KEY_INVALID (hsm_keys.cc).
  Result<CK_OBJECT_HANDLE> UnwrapUnderKeyPair(ClientState& c, CK_SESSION_HANDLE s,
                                              const Resolved& r, const MechanismRow& rule,
                                              const Mechanism& m, const ResolvedObject& unwrapper,
                                              ByteView wrapped, AttributeMap attrs);
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
  // HandleForToken: `c`'s handle for token object `id` of `slot`, made (a
  // fresh random one) on first use. Takes c.mu.
  CK_OBJECT_HANDLE HandleForToken(ClientState& c, CK_SLOT_ID slot, keystore::ObjectHandle id)
      EXCLUDES(c.mu);
  // AdoptStableHandle: when `o` is a stable handle (c.stable_handles) of an
  // existing object on r's slot, enters it in c's tables and returns the
  // object; nullopt otherwise. Takes c.mu.
  std::optional<keystore::ObjectHandle> AdoptStableHandle(ClientState& c, const Resolved& r,
                                                          CK_OBJECT_HANDLE o) EXCLUDES(c.mu);
  // FindSlot: the slot with id `slot`, or nullptr (the free slot, or past
  // it). Slots are never removed, so the pointer stays valid. Takes
  // slots_mu_ shared.
  TokenSlot* FindSlot(CK_SLOT_ID slot) const EXCLUDES(slots_mu_);
  // FindOrServeSlot: FindSlot, and when it finds none, FindSlot again after
  // ServeNewTokens (a client that moved from another node may name a token
  // made there after this daemon looked).
  TokenSlot* FindOrServeSlot(CK_SLOT_ID slot) EXCLUDES(init_mu_, slots_mu_);
  // AllSlots: every slot served, in slot id order (the key pool's view).
  std::vector<TokenSlot*> AllSlots() const EXCLUDES(slots_mu_);
  // ImportObject is CreateObject; `value_is_pkcs8` (UnwrapKey) reads a
  // private key's CKA_VALUE as PKCS#8 whatever else the template holds.
  Result<CK_OBJECT_HANDLE> ImportObject(ClientState& c, CK_SESSION_HANDLE s, const Template& t,
                                        bool value_is_pkcs8);
  // MissingSlotError: why `slot` has no token: CKR_TOKEN_NOT_PRESENT for
  // the free slot, CKR_SLOT_ID_INVALID for any other id.
  Error MissingSlotError(CK_SLOT_ID slot) const EXCLUDES(slots_mu_);

 private:
  explicit HsmImpl(HsmOptions options);
  TokenPolicy PolicyFor(const keystore::Token& token) const;
  // ServeToken makes the slot `id` for an opened token and loads its
  // objects. `location` is where the keystore keeps it.
  Result<std::unique_ptr<TokenSlot>> ServeToken(CK_SLOT_ID id, const std::string& location,
                                                std::unique_ptr<keystore::Token> token) const;
  // EnterSlotLocked serves `slot` on `id` from now on, the free slot moving
  // past it (InitToken's new token, ServeNewTokens' found ones).
  void EnterSlotLocked(CK_SLOT_ID id, std::unique_ptr<TokenSlot> slot) REQUIRES(init_mu_)
      EXCLUDES(slots_mu_);
  // ForgetSessionObjectLocked gives a removed session object's share of the
  // connection's limits back.
  static void ForgetSessionObjectLocked(ClientState& c, const HandleEntry& entry) REQUIRES(c.mu);
  // EndLoginLocked is what a logout does to the connection's state on
  // `slot` (PKCS#11 §5.6.4): private session objects are destroyed, handles
  // to private token objects become invalid (a later login finds them again
  // under new handles), unused context-specific logins are dropped, and so
  // are the multi-part operations of the token's sessions (a key they use
  // may need the login).
  static void EndLoginLocked(ClientState& c, const TokenSlot& slot) REQUIRES(c.mu);
  // DropMultiPartsLocked ends the connection's multi-part operations of
  // session `s` (0: of every session on `slot`) and gives their held
  // bytes back.
  static void DropMultiPartsLocked(ClientState& c, CK_SESSION_HANDLE s, CK_SLOT_ID slot)
      REQUIRES(c.mu);
  // ContextLogin is C_Login(CKU_CONTEXT_SPECIFIC): the user PIN again, for
  // the session's next signature with a CKA_ALWAYS_AUTHENTICATE key.
  Status ContextLogin(ClientState& c, CK_SESSION_HANDLE s, const Resolved& r, ByteView pin)
      EXCLUDES(c.mu);
  // TakeContextAuthorization consumes session `s`'s context-specific login;
  // CKR_USER_NOT_LOGGED_IN when it has none (§4.9 CKA_ALWAYS_AUTHENTICATE).
  static Status TakeContextAuthorization(ClientState& c, CK_SESSION_HANDLE s) EXCLUDES(c.mu);
  // CloseSessionLocked removes session `s` of `c` (hsm_session.cc).
  void CloseSessionLocked(ClientState& c, CK_SESSION_HANDLE s,
                          std::vector<keystore::UserType>* logouts, TokenSlot** slot_out)
      REQUIRES(c.mu) EXCLUDES(slots_mu_);

  HsmOptions options_;
  LoginThrottle throttle_;
  std::unique_ptr<keystore::Keystore> keystore_;  // where the tokens live (keystore.h)
  mutable base::SharedMutex slots_mu_;
  // slots_: the tokens served, by slot id (stable: keystore/slot_ids.h);
  // next_slot_id_ is the free slot's id, which InitToken gives a new token.
  std::map<CK_SLOT_ID, std::unique_ptr<TokenSlot>> slots_ GUARDED_BY(slots_mu_);
  CK_SLOT_ID next_slot_id_ GUARDED_BY(slots_mu_) = 0;
  std::vector<UnavailableToken> unavailable_;  // written only by Open
  // init_mu_ serialises InitToken and ServeNewTokens, which take slots_mu_
  // under it, and every use of keystore_ after Open but Health.
  base::Mutex init_mu_ ACQUIRED_BEFORE(slots_mu_);
  // served_: the keystore locations already dealt with: served on slots_,
  // listed in unavailable_, or left to the next start (ServeNewTokens).
  std::set<std::string> served_ GUARDED_BY(init_mu_);
  std::atomic<std::uint64_t> next_client_id_{1};
  std::atomic<std::size_t> open_sessions_{0};
  PhaseCounters counters_;
  std::unique_ptr<RsaSplitter> splitter_;  // null: RSA signs on one thread
  mutable base::Mutex pool_mu_;
  // key_pool_: owned here; shared so a request that took it keeps it alive
  // while StopKeyPool swaps it out.
  std::shared_ptr<KeyPool> key_pool_ GUARDED_BY(pool_mu_);
};

}  // namespace signet::core

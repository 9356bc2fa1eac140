// TokenSlot: one slot holding one keystore token, plus what the daemon keeps
// about it in memory: a cache of every object's attributes (so FindObjects,
// GetAttributeValue and the usage checks of a signature read no database),
// and which connections are logged in (the Token holds its KEK while at
// least one is; PKCS#11 login state is per application, here per connection).
//
// Thread contract: every method may be called from any thread. Object cache
// reads take a shared lock; writes go to the keystore first, then the cache,
// under an exclusive lock. Login/Logout serialise on their own mutex (a
// Login runs the PIN KDF: it may take ~100 ms and blocks only other logins
// of this token).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "core/limits.h"
#include "core/object.h"

namespace signet::core {

// ObjectBytes: what an object counts against a size limit: its attribute
// values and types plus kObjectOverhead, plus `secret_size` (the key
// material's unwrapped size, when known).
std::size_t ObjectBytes(const AttributeMap& attributes, std::size_t secret_size);

// TokenPolicy: what the Hsm decided for one token (core/limits.h).
struct TokenPolicy {
  bool public_rw_compat = false;  // public R/W sessions may write public objects
  std::size_t max_objects = Limits{}.max_token_objects;
  std::size_t max_bytes = Limits{}.max_token_bytes;
};

class TokenSlot {
 public:
  // TokenSlot takes ownership of an opened token. LoadObjects must be called
  // once before use.
  TokenSlot(CK_SLOT_ID id, std::filesystem::path file, std::unique_ptr<keystore::Token> token,
            TokenPolicy policy = {});

  // LoadObjects fills the attribute cache from the database.
  Status LoadObjects() EXCLUDES(objects_mu_, quota_mu_);

  // RefreshObjects reloads the attribute cache when the token's objects
  // changed since it was loaded, asking the keystore itself
  // (keystore::Token::ObjectsGenerationNow: only a token other nodes share
  // ever reports one), so an object made, changed or destroyed on another
  // node is seen here at the next use, and the key cache's check after it
  // (FetchKey, answered from the LISTEN connection) is as fresh as this
  // read: one query per use. A keystore that cannot be reached leaves the
  // cache as it is.
  Status RefreshObjects() EXCLUDES(objects_mu_, quota_mu_);

  CK_SLOT_ID id() const { return id_; }
  const std::filesystem::path& file() const { return file_; }
  keystore::Token& token() { return *token_; }
  const TokenPolicy& policy() const { return policy_; }
  const std::string& serial() const { return serial_; }

  // pin_check_mu: held by Hsm across one throttled PIN check (throttle
  // look-up, KDF, recording the outcome), so concurrent guesses at one token
  // cannot all pass the throttle before the first failure is recorded.
  // Taken before login_mu_ (the check's Login runs under it).
  base::Mutex pin_check_mu ACQUIRED_BEFORE(login_mu_);

  // Get returns an object's record, or nullptr if there is none.
  RecordPtr Get(keystore::ObjectHandle id) const EXCLUDES(objects_mu_);

  // Snapshot returns every object (id, record), for FindObjects.
  std::vector<std::pair<keystore::ObjectHandle, RecordPtr>> Snapshot() const EXCLUDES(objects_mu_);

  // Create stores a new token object (attributes plus, for keys, the secret
  // value to wrap) and caches it. CKR_DEVICE_MEMORY when the token's quota
  // (TokenPolicy max_objects / max_bytes) would be exceeded.
  Result<keystore::ObjectHandle> Create(AttributeMap attributes, const SecureBytes* secret)
      EXCLUDES(objects_mu_, quota_mu_);

  // CreateObjects stores several token objects in ONE keystore transaction
  // (Token::CreateObjects: all or none; `unique_label` checked in it) and
  // caches them. Returns their ids in order. CKR_DEVICE_MEMORY when the
  // batch would exceed the token's quota (nothing stored).
  Result<std::vector<keystore::ObjectHandle>> CreateObjects(
      std::vector<keystore::NewObject> objects, const Bytes* unique_label)
      EXCLUDES(objects_mu_, quota_mu_);

  // Update replaces `changes` in the object's attributes (CKR_DEVICE_MEMORY
  // when growing it would exceed the quota).
  Status Update(keystore::ObjectHandle id, const AttributeMap& changes)
      EXCLUDES(objects_mu_, quota_mu_);

  // Destroy deletes the object.
  Status Destroy(keystore::ObjectHandle id) EXCLUDES(objects_mu_, quota_mu_);

  // DestroyObjects deletes several objects in ONE keystore transaction (all
  // or none).
  Status DestroyObjects(const std::vector<keystore::ObjectHandle>& ids)
      EXCLUDES(objects_mu_, quota_mu_);

  // TakePoolKey turns one entry of key pool `pool` into a key pair with the
  // attributes `build` returns, in one keystore transaction
  // (Token::TakePoolKey), and caches both objects. nullopt when the pool is
  // empty. Used by the key pool (key_pool.h).
  Result<std::optional<keystore::PoolTake>> TakePoolKey(std::string_view pool,
                                                        const keystore::PoolObjectsBuilder& build,
                                                        const Bytes* unique_label)
      EXCLUDES(objects_mu_, quota_mu_);

  // Login verifies `pin` for `user` through the keystore and counts this
  // connection as logged in. CKR_USER_ANOTHER_ALREADY_LOGGED_IN when another
  // connection is logged in as the other user type.
  Status Login(keystore::UserType user, ByteView pin) EXCLUDES(login_mu_);

  // ReauthenticateUser checks the user PIN again for a connection that is
  // already logged in as the user (C_Login(CKU_CONTEXT_SPECIFIC)): a wrong
  // PIN counts toward the lockout like a Login; the login count is unchanged.
  // CKR_USER_NOT_LOGGED_IN when no connection is logged in as the user.
  Status ReauthenticateUser(ByteView pin) EXCLUDES(login_mu_);

  // Logout ends one connection's login; the last one makes the Token forget
  // its KEK and zeroise its key cache.
  void Logout(keystore::UserType user) EXCLUDES(login_mu_);

  // logged_in: how many connections are logged in as `user`.
  int logged_in(keystore::UserType user) const EXCLUDES(login_mu_);

  // used_objects / used_bytes: what counts against the quota now.
  std::size_t used_objects() const EXCLUDES(quota_mu_);
  std::size_t used_bytes() const EXCLUDES(quota_mu_);

  // Session counters over all connections (for CK_TOKEN_INFO).
  std::atomic<int> sessions{0};
  std::atomic<int> rw_sessions{0};

  // LoginCounters: this token's PIN checks by outcome since start, index 0
  // the user's, 1 the SO's (Hsm's throttled PIN check counts them; the
  // metrics endpoint reads them).
  struct LoginCounters {
    std::array<std::atomic<std::uint64_t>, 2> ok{};
    std::array<std::atomic<std::uint64_t>, 2> failed{};     // CKR_PIN_INCORRECT or CKR_PIN_LOCKED
    std::array<std::atomic<std::uint64_t>, 2> locked{};     // CKR_PIN_LOCKED
    std::array<std::atomic<std::uint64_t>, 2> throttled{};  // refused unchecked
  };
  LoginCounters logins;

 private:
  const CK_SLOT_ID id_;
  // LoadObjectsAt is LoadObjects with the token's ObjectsGeneration already
  // read (before the objects).
  Status LoadObjectsAt(std::int64_t generation) EXCLUDES(objects_mu_, quota_mu_);
  // Reserve claims room for `objects` more objects of `bytes` more bytes,
  // or fails with CKR_DEVICE_MEMORY; Release gives room back.
  Status Reserve(std::size_t objects, std::size_t bytes) EXCLUDES(quota_mu_);
  void Release(std::size_t objects, std::size_t bytes) EXCLUDES(quota_mu_);

  const std::filesystem::path file_;
  std::unique_ptr<keystore::Token> token_;
  const TokenPolicy policy_;
  const std::string serial_;

  mutable base::Mutex quota_mu_;
  std::size_t used_objects_ GUARDED_BY(quota_mu_) = 0;
  std::size_t used_bytes_ GUARDED_BY(quota_mu_) = 0;
  // object_bytes_: what each object counts, so Destroy/Update give back
  // exactly what Create took.
  std::map<keystore::ObjectHandle, std::size_t> object_bytes_ GUARDED_BY(objects_mu_);

  // Held (exclusively) across the quota calls of Update, Destroy and Load.
  mutable base::SharedMutex objects_mu_ ACQUIRED_BEFORE(quota_mu_);
  std::map<keystore::ObjectHandle, RecordPtr> objects_ GUARDED_BY(objects_mu_);
  // loaded_generation_: the token's ObjectsGeneration when objects_ was read.
  std::int64_t loaded_generation_ GUARDED_BY(objects_mu_) = 0;

  mutable base::Mutex login_mu_;
  int user_logins_ GUARDED_BY(login_mu_) = 0;
  int so_logins_ GUARDED_BY(login_mu_) = 0;
};

}  // namespace signet::core

// keystore::Token: one token = one SQLite database file (WAL mode, every
// change in one transaction). It holds the token's label and PIN records, the
// KEK wrapped under a key derived from each PIN (scrypt), and the objects:
// public attributes in clear, private/secret values only as AES-KWP under the
// KEK. An LRU cache of unwrapped keys makes a hot key's fetch cost no database
// read and no unwrap.
//
// Thread contract: every method may be called from any thread; the Token
// serialises database access internally and the cache has its own lock, so
// FetchKey on a hot key never waits for a database write.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crypto/keys.h"
#include "base/secure_bytes.h"
#include "crypto/symmetric.h"
#include "signet/result.hpp"

namespace signet::keystore {


// AttributeMap: PKCS#11 attributes of an object, values in their PKCS#11
// byte form (CK_ULONG / CK_BBOOL in host layout, as the C ABI carries them).
using AttributeMap = std::map<CK_ATTRIBUTE_TYPE, Bytes>;

// ObjectHandle: a token object's stable id (never reused within a token).
using ObjectHandle = std::int64_t;

enum class UserType { kSo, kUser };

struct TokenOptions {
  // Scrypt cost for new PIN records (default n = 2^15, r = 8, p = 1; tests
  // use n = 1024). Existing records keep the cost stored with them.
  crypto::ScryptParams kdf;
  // Consecutive wrong PINs before lock. Read only by Create: the limit is
  // stored in the token, and Open uses the stored value.
  int max_pin_failures = 10;
  std::size_t key_cache_capacity = 1024;  // unwrapped keys kept in memory
};

struct TokenInfo {
  std::string label;
  std::string serial;  // 16 hex chars, random at creation
  // slot_id: the slot this token is served on, kept across restarts
  // (keystore/slot_ids.h); none on a token older than that.
  std::optional<CK_SLOT_ID> slot_id;
  bool user_pin_initialized = false;
  int user_pin_failures = 0;
  int so_pin_failures = 0;
  bool user_pin_locked = false;
  bool so_pin_locked = false;
  int max_pin_failures = 10;
};

// StoredObject: a token object as stored. `attributes` never holds the secret
// value (CKA_VALUE of a private/secret key); `has_secret` says one is wrapped.
struct StoredObject {
  ObjectHandle handle = 0;
  AttributeMap attributes;
  bool has_secret = false;
};

// UnwrappedKey: what FetchKey returns and the cache holds. `value` is the
// unwrapped secret (PKCS#8 DER for private keys, raw bytes for secret keys);
// `private_key` is set for private keys, parsed once.
struct UnwrappedKey {
  SecureBytes value;
  std::optional<crypto::PrivateKey> private_key;
};

struct CacheStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  std::uint64_t evictions = 0;
  std::size_t size = 0;
  std::size_t capacity = 0;
};

// PooledKey: one key-pool entry claimed and unwrapped (ClaimPoolKey).
// `private_der` is PKCS#8; `public_attributes` what the entry was stored with.
struct PooledKey {
  SecureBytes private_der;
  AttributeMap public_attributes;
};

// NewObject: one object for Token::CreateObjects: its attributes and, for a
// private or secret key, the secret value to wrap (borrowed; may be null).
struct NewObject {
  AttributeMap attributes;
  const SecureBytes* secret = nullptr;
};

// PoolTake: the key pair TakePoolKey made from a pool entry, with the
// attributes stored for each object.
struct PoolTake {
  ObjectHandle private_handle = 0;
  ObjectHandle public_handle = 0;
  AttributeMap private_attributes;
  AttributeMap public_attributes;
};

// PoolObjectsBuilder: given a pool entry's public attributes, returns the
// {private, public} attribute maps of the key pair to store. Called inside
// TakePoolKey's transaction (with the database lock held: it must not call
// back into the Token); an error aborts the take and leaves the entry.
using PoolObjectsBuilder =
    std::function<Result<std::pair<AttributeMap, AttributeMap>>(const AttributeMap& pool_public)>;

class Token {
 public:
  // Create makes a new token file at `file` (mode 0600; it must not exist)
  // with a random serial and a fresh random KEK wrapped under both PINs. An
  // empty `user_pin` leaves the user PIN uninitialised (PKCS#11 C_InitToken
  // sets only the SO PIN; the SO calls InitUserPin later, and until then a
  // user Login gives CKR_USER_PIN_NOT_INITIALIZED). The new token is not
  // logged in. CKR_ARGUMENTS_BAD when the file exists, the label is not 1-32
  // bytes or the SO PIN is empty; CKR_PIN_LEN_RANGE when the SO PIN or a
  // given user PIN breaks the PIN rules (pin_policy.h); CKR_DEVICE_ERROR on I/O
  // failure (nothing is left behind then). See also CreateInDirectory
  // (data_dir.h), which names the file after the serial.
  static Result<std::unique_ptr<Token>> Create(const std::filesystem::path& file,
                                               std::string_view label, ByteView so_pin,
                                               ByteView user_pin, const TokenOptions& options);

  // Open opens an existing token, migrating its schema when older.
  // CKR_TOKEN_NOT_PRESENT when `file` does not exist or is a dangling
  // symlink; CKR_TOKEN_NOT_RECOGNIZED when it is not a signet token (a
  // directory, an empty file, not SQLite, another application's database, a
  // schema newer than this build) or is damaged (SQLite's quick_check fails,
  // no SO PIN record, no metadata). The message names the file and the
  // reason. A refused file is not written to.
  static Result<std::unique_ptr<Token>> Open(const std::filesystem::path& file,
                                             const TokenOptions& options);

  virtual ~Token() = default;

  // Info returns label, serial and PIN counters (reads the PIN records).
  virtual TokenInfo Info() const = 0;

  // Login checks `pin` for `user` and, when right, holds the KEK in memory
  // and resets the failure count. Wrong PIN: CKR_PIN_INCORRECT and a failure
  // count that is committed before the call returns; the attempt that
  // reaches the limit and every later one (across restarts) get
  // CKR_PIN_LOCKED. A later Login replaces an earlier one (the PKCS#11
  // one-user-per-token rule is enforced by core/).
  virtual Status Login(UserType user, ByteView pin) = 0;

  // Logout forgets the KEK and zeroises the unwrapped-key cache.
  virtual void Logout() = 0;

  // InitUserPin sets a new user PIN and clears its lock. REQUIRES: the SO is
  // logged in (CKR_USER_NOT_LOGGED_IN otherwise). CKR_PIN_LEN_RANGE when
  // `new_pin` breaks the PIN rules (pin_policy.h).
  virtual Status InitUserPin(ByteView new_pin) = 0;

  // Reinitialize is C_InitToken on an existing token: with the right SO PIN
  // (counted like Login) it destroys every object and pool key, forgets the
  // user PIN (the SO must InitUserPin again), takes `label`, and replaces
  // the KEK by a fresh one sealed under the SO PIN, so a copy of the old
  // file and an old PIN open nothing made afterwards. All in one
  // transaction; the token is left logged out. CKR_ARGUMENTS_BAD for a
  // label that is not 1-32 bytes.
  virtual Status Reinitialize(ByteView so_pin, std::string_view label) = 0;

  // SetSlotId stores the token's slot id (keystore/slot_ids.h).
  virtual Status SetSlotId(CK_SLOT_ID slot_id) = 0;

  // SetPin changes `user`'s PIN; `old_pin` must be right (same failure
  // counting as Login). CKR_PIN_LEN_RANGE, before `old_pin` is checked, when
  // `new_pin` breaks the PIN rules (pin_policy.h).
  virtual Status SetPin(UserType user, ByteView old_pin, ByteView new_pin) = 0;

  // ClearPinFailures sets `user`'s failure count back to 0, lifting a lock:
  // the offline recovery of a locked SO PIN (`signet admin unlock-so`), for
  // someone who can write the token file anyway. Returns the count it
  // cleared. CKR_USER_PIN_NOT_INITIALIZED when `user` has no PIN record.
  virtual Result<int> ClearPinFailures(UserType user) = 0;

  // CreateObject stores an object and returns its new handle. `secret`, when
  // given, is wrapped under the KEK (REQUIRES: logged in, else
  // CKR_USER_NOT_LOGGED_IN); only CKO_PRIVATE_KEY (secret = PKCS#8 DER) and
  // CKO_SECRET_KEY (raw bytes) objects take one. CKR_TEMPLATE_INCONSISTENT
  // when a private/secret key's material (CKA_VALUE, CKA_PRIVATE_EXPONENT,
  // CKA_PRIME_1/2, CKA_EXPONENT_1/2, CKA_COEFFICIENT) is among `attributes`:
  // it belongs in `secret`, never in the clear attribute blob.
  virtual Result<ObjectHandle> CreateObject(const AttributeMap& attributes,
                                            const SecureBytes* secret) = 0;

  // CreateObjects stores every object of `objects` in ONE transaction
  // (BEGIN IMMEDIATE) and returns their handles in the same order: all are
  // stored or none, also across a crash. Each object follows CreateObject's
  // rules. When `unique_label` is given the same transaction first checks
  // that no key object (CKO_PUBLIC_KEY, CKO_PRIVATE_KEY, CKO_SECRET_KEY) on
  // the token has that CKA_LABEL, and fails with CKR_ATTRIBUTE_VALUE_INVALID
  // "a key labelled 'LABEL' already exists" (label escaped) otherwise; the
  // write lock makes check and insert one step, also against other
  // connections to the file. CKR_ARGUMENTS_BAD for an empty list.
  virtual Result<std::vector<ObjectHandle>> CreateObjects(const std::vector<NewObject>& objects,
                                                          const Bytes* unique_label) = 0;

  // GetObject / ListObjects read objects (clear attributes only; no login
  // needed, visibility rules are core/'s). CKR_OBJECT_HANDLE_INVALID when
  // there is no such object.
  virtual Result<StoredObject> GetObject(ObjectHandle handle) const = 0;
  virtual Result<std::vector<StoredObject>> ListObjects() const = 0;

  // FindObjects returns, ordered by handle, the objects holding every
  // attribute in `match` with exactly those value bytes (PKCS#11 C_FindObjects
  // matching, section 5.7); an empty `match` returns all objects. The SQLite
  // backend narrows by its class/key_type/label/id columns first. The default
  // implementation filters ListObjects().
  virtual Result<std::vector<StoredObject>> FindObjects(const AttributeMap& match) const;

  // UpdateAttributes replaces the given attributes in one transaction (same
  // key-material rule as CreateObject) and drops the key from the cache.
  virtual Status UpdateAttributes(ObjectHandle handle, const AttributeMap& changes) = 0;

  // DestroyObject deletes the object and drops it from the cache.
  // CKR_OBJECT_HANDLE_INVALID when there is no such object.
  virtual Status DestroyObject(ObjectHandle handle) = 0;

  // DestroyObjects deletes every object of `handles` in ONE transaction (all
  // or none) and drops them from the cache. CKR_OBJECT_HANDLE_INVALID, and
  // nothing deleted, when any handle is missing or listed twice;
  // CKR_ARGUMENTS_BAD for an empty list.
  virtual Status DestroyObjects(const std::vector<ObjectHandle>& handles) = 0;

  // FetchKey returns the unwrapped secret of a key object, from the cache
  // when hot (no database read, no unwrap); a miss reads the row, unwraps
  // and, for CKO_PRIVATE_KEY, parses the PrivateKey once, then caches it.
  // CKR_USER_NOT_LOGGED_IN without the KEK; CKR_OBJECT_HANDLE_INVALID when
  // there is no such object; CKR_KEY_HANDLE_INVALID when it has no secret;
  // CKR_WRAPPED_KEY_INVALID when the stored blob does not unwrap for this
  // handle (tampered, or moved from another object). `cache_hit`, when
  // given, says whether this call was served from the cache.
  virtual Result<std::shared_ptr<const UnwrappedKey>> FetchKey(ObjectHandle handle,
                                                               bool* cache_hit = nullptr) = 0;

  // cache_stats: counters of the unwrapped-key cache (any thread).
  virtual CacheStats cache_stats() const = 0;

  // ObjectsGeneration: a number that moves whenever the token's objects
  // change, here or on another node sharing the token (the PostgreSQL
  // keystore: docs/SCALING.md), so a holder of a copy of the objects knows
  // when to read them again. A token file is served by one daemon, which
  // makes every change itself: 0, always. Errors: the keystore's (the
  // database cannot be reached: keep the copy).
  virtual Result<std::int64_t> ObjectsGeneration() const { return std::int64_t{0}; }

  // ObjectsGenerationNow is ObjectsGeneration asked of the keystore itself,
  // never answered from what this node last heard of other nodes' changes
  // (the PostgreSQL keystore's LISTEN connection: a notification may be a
  // moment behind the commit). For uses that are rarer than a signature
  // (finding objects), so that an object made on another node is found at
  // once.
  virtual Result<std::int64_t> ObjectsGenerationNow() const { return ObjectsGeneration(); }

  // --- Key pool (core/key_pool.h). Pool entries are pre-generated key pairs
  // kept in their own table: ListObjects, FindObjects and GetObject never
  // return them. Their private halves are sealed to the token's pool key
  // (crypto/sealed_box.h), whose private half is wrapped under the KEK: the
  // pool fills with nobody logged in, survives restarts, and only a login
  // can open an entry (docs/DESIGN.md "The key pool"). The token gets its
  // pool key when it is made, re-initialised, or (older tokens) first logged
  // in to. The defaults below report CKR_FUNCTION_NOT_SUPPORTED (a backend
  // without a pool); SqliteToken implements them.

  // StorePoolKey adds one entry to pool `pool` (a key type name such as
  // "rsa:2048"). CKR_USER_NOT_LOGGED_IN when the token has no pool key yet
  // (CanFillPool); CKR_ARGUMENTS_BAD for an empty name or key.
  virtual Status StorePoolKey(std::string_view pool, const SecureBytes& private_der,
                              const AttributeMap& public_attributes);

  // TakePoolKey, in ONE transaction, removes the oldest entry of `pool` and
  // stores it as a private and a public key object with the attributes
  // `build` returns (the private key's secret rewrapped for its new handle).
  // Each entry is handed out exactly once, also across threads and
  // processes. nullopt when the pool is empty; CKR_USER_NOT_LOGGED_IN
  // without the KEK; `build`'s error as is (the entry stays).
  // `unique_label`, when given, is checked as by CreateObjects (the entry
  // stays when a key has that label).
  virtual Result<std::optional<PoolTake>> TakePoolKey(std::string_view pool,
                                                      const PoolObjectsBuilder& build,
                                                      const Bytes* unique_label);

  // ClaimPoolKey removes the oldest entry of `pool` and returns it unwrapped
  // (for keys that live in memory only, such as PKCS#11 session keys).
  // nullopt when the pool is empty; CKR_USER_NOT_LOGGED_IN without the KEK.
  virtual Result<std::optional<PooledKey>> ClaimPoolKey(std::string_view pool);

  // PoolCounts returns the number of entries per pool name (absent: 0).
  virtual Result<std::map<std::string, std::size_t>> PoolCounts() const;

  // CanFillPool: whether StorePoolKey works now (the token has a pool key).
  virtual bool CanFillPool() const;
};

}  // namespace signet::keystore

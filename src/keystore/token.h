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
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crypto/keys.h"
#include "crypto/secure_bytes.h"
#include "crypto/symmetric.h"
#include "signet/result.hpp"

namespace signet::keystore {

using crypto::ByteView;
using crypto::Bytes;
using crypto::SecureBytes;

// AttributeMap: PKCS#11 attributes of an object, values in their PKCS#11
// byte form (CK_ULONG / CK_BBOOL in host layout, as the C ABI carries them).
using AttributeMap = std::map<CK_ATTRIBUTE_TYPE, Bytes>;

// ObjectHandle: a token object's stable id (never reused within a token).
using ObjectHandle = std::int64_t;

enum class UserType { kSo, kUser };

struct TokenOptions {
  crypto::ScryptParams kdf;           // cost for new PIN records
  int max_pin_failures = 10;          // consecutive wrong PINs before lock
  std::size_t key_cache_capacity = 1024;  // unwrapped keys kept in memory
};

struct TokenInfo {
  std::string label;
  std::string serial;                 // 16 hex chars, random at creation
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

class Token {
 public:
  // Create makes a new token file at `file` (which must not exist) with a
  // fresh random KEK wrapped under both PINs. CKR_ARGUMENTS_BAD on empty
  // label/PINs; CKR_DEVICE_ERROR on I/O failure.
  static Result<std::unique_ptr<Token>> Create(const std::filesystem::path& file,
                                               std::string_view label, ByteView so_pin,
                                               ByteView user_pin, const TokenOptions& options);

  // Open opens an existing token, migrating its schema when older.
  // CKR_TOKEN_NOT_RECOGNIZED when the file is not a signet token.
  static Result<std::unique_ptr<Token>> Open(const std::filesystem::path& file,
                                             const TokenOptions& options);

  virtual ~Token() = default;

  virtual TokenInfo Info() const = 0;

  // Login checks `pin` for `user` and, when right, holds the KEK in memory.
  // Wrong PIN: CKR_PIN_INCORRECT and a persistent failure count; at the limit
  // CKR_PIN_LOCKED (also for every later attempt, across restarts).
  virtual Status Login(UserType user, ByteView pin) = 0;

  // Logout forgets the KEK and zeroises the unwrapped-key cache.
  virtual void Logout() = 0;

  // InitUserPin sets a new user PIN and clears its lock. REQUIRES: the SO is
  // logged in (CKR_USER_NOT_LOGGED_IN otherwise).
  virtual Status InitUserPin(ByteView new_pin) = 0;

  // SetPin changes `user`'s PIN; `old_pin` must be right (same failure
  // counting as Login).
  virtual Status SetPin(UserType user, ByteView old_pin, ByteView new_pin) = 0;

  // CreateObject stores an object; `secret`, when given, is wrapped under the
  // KEK (REQUIRES: logged in, else CKR_USER_NOT_LOGGED_IN).
  virtual Result<ObjectHandle> CreateObject(const AttributeMap& attributes,
                                            const SecureBytes* secret) = 0;

  virtual Result<StoredObject> GetObject(ObjectHandle handle) const = 0;
  virtual Result<std::vector<StoredObject>> ListObjects() const = 0;

  // UpdateAttributes replaces the given attributes in one transaction.
  virtual Status UpdateAttributes(ObjectHandle handle, const AttributeMap& changes) = 0;

  // DestroyObject deletes the object and drops it from the cache.
  // CKR_OBJECT_HANDLE_INVALID when there is no such object.
  virtual Status DestroyObject(ObjectHandle handle) = 0;

  // FetchKey returns the unwrapped secret of a key object, from the cache
  // when hot. CKR_USER_NOT_LOGGED_IN without the KEK; CKR_KEY_HANDLE_INVALID
  // when the object has no secret.
  virtual Result<std::shared_ptr<const UnwrappedKey>> FetchKey(ObjectHandle handle) = 0;

  virtual CacheStats cache_stats() const = 0;
};

}  // namespace signet::keystore

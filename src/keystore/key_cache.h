// KeyCache: a bounded LRU of unwrapped keys, keyed by object handle, so a
// hot key's fetch costs one hash lookup: no database read, no unwrap.
//
// Entries are shared_ptr<const UnwrappedKey>: an evicted key stays alive
// while a signer still holds it and is zeroised (SecureBytes) when the last
// holder drops it. Clear() drops every entry (logout).
//
// Thread contract: every method may be called from any thread; one internal
// mutex guards the list and counters and is held only for O(1) list/map
// work, never while unwrapping or parsing (callers do that outside, then
// Insert). A generation counter, bumped by Erase and Clear, lets Insert drop
// a key that was fetched before a logout or destroy finished.
#pragma once

#include <list>
#include <memory>
#include <unordered_map>

#include "base/mutex.h"
#include "keystore/token.h"

namespace signet::keystore {

class KeyCache {
 public:
  // capacity 0 disables caching (every Lookup misses, Insert keeps nothing).
  explicit KeyCache(std::size_t capacity) : capacity_(capacity) {}

  // Lookup returns the key and marks it most recently used (a hit), or
  // nullptr (a miss).
  std::shared_ptr<const UnwrappedKey> Lookup(ObjectHandle handle) EXCLUDES(mu_);

  // generation: read before starting an unwrap; pass to Insert.
  std::uint64_t generation() const EXCLUDES(mu_);

  // Insert stores `key` as most recently used, evicting the least recently
  // used entry when full. Ignored when Erase/Clear ran since `generation`
  // was read (the key may belong to a destroyed object or a logged-out
  // session).
  void Insert(ObjectHandle handle, std::shared_ptr<const UnwrappedKey> key,
              std::uint64_t generation) EXCLUDES(mu_);

  // Erase drops one entry (object destroyed or changed).
  void Erase(ObjectHandle handle) EXCLUDES(mu_);

  // Clear drops every entry (logout).
  void Clear() EXCLUDES(mu_);

  CacheStats stats() const EXCLUDES(mu_);

 private:
  using Entry = std::pair<ObjectHandle, std::shared_ptr<const UnwrappedKey>>;

  const std::size_t capacity_;
  mutable base::Mutex mu_;
  std::list<Entry> lru_ GUARDED_BY(mu_);  // front = most recently used
  std::unordered_map<ObjectHandle, std::list<Entry>::iterator> index_ GUARDED_BY(mu_);
  std::uint64_t generation_ GUARDED_BY(mu_) = 0;
  std::uint64_t hits_ GUARDED_BY(mu_) = 0;
  std::uint64_t misses_ GUARDED_BY(mu_) = 0;
  std::uint64_t evictions_ GUARDED_BY(mu_) = 0;
};

}  // namespace signet::keystore

#include "keystore/key_cache.h"

namespace signet::keystore {

std::shared_ptr<const UnwrappedKey> KeyCache::Lookup(ObjectHandle handle) {
  base::MutexLock lock(&mu_);
  auto it = index_.find(handle);
  if (it == index_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

std::uint64_t KeyCache::generation() const {
  base::MutexLock lock(&mu_);
  return generation_;
}

void KeyCache::Insert(ObjectHandle handle, std::shared_ptr<const UnwrappedKey> key,
                      std::uint64_t generation) {
  // The evicted key is released after the lock is dropped, so zeroising and
  // freeing it (possibly an EVP_PKEY) never runs under the cache lock.
  std::shared_ptr<const UnwrappedKey> evicted;
  base::MutexLock lock(&mu_);
  if (capacity_ == 0 || generation != generation_) return;
  auto it = index_.find(handle);
  if (it != index_.end()) {
    it->second->second.swap(key);
    lru_.splice(lru_.begin(), lru_, it->second);
    evicted = std::move(key);
    return;
  }
  if (lru_.size() >= capacity_) {
    evicted = std::move(lru_.back().second);
    index_.erase(lru_.back().first);
    lru_.pop_back();
    ++evictions_;
  }
  lru_.emplace_front(handle, std::move(key));
  index_.emplace(handle, lru_.begin());
}

void KeyCache::Erase(ObjectHandle handle) {
  std::shared_ptr<const UnwrappedKey> dropped;
  base::MutexLock lock(&mu_);
  ++generation_;
  auto it = index_.find(handle);
  if (it == index_.end()) return;
  dropped = std::move(it->second->second);
  lru_.erase(it->second);
  index_.erase(it);
}

void KeyCache::Clear() {
  std::list<Entry> dropped;
  base::MutexLock lock(&mu_);
  ++generation_;
  index_.clear();
  dropped.swap(lru_);
}

CacheStats KeyCache::stats() const {
  base::MutexLock lock(&mu_);
  return CacheStats{hits_, misses_, evictions_, lru_.size(), capacity_};
}

}  // namespace signet::keystore

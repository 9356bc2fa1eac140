#include "keystore/key_cache.h"

#include <gtest/gtest.h>

namespace signet::keystore {
namespace {

std::shared_ptr<const UnwrappedKey> MakeKey(std::uint8_t fill) {
  auto key = std::make_shared<UnwrappedKey>();
  key->value.assign(32, fill);
  return key;
}

TEST(KeyCache, CountsHitsAndMisses) {
  KeyCache cache(4);
  EXPECT_EQ(cache.Lookup(1), nullptr);
  cache.Insert(1, MakeKey(1), cache.generation());
  auto hit = cache.Lookup(1);
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->value[0], 1);
  CacheStats stats = cache.stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.size, 1u);
  EXPECT_EQ(stats.capacity, 4u);
}

TEST(KeyCache, EvictsLeastRecentlyUsed) {
  KeyCache cache(2);
  cache.Insert(1, MakeKey(1), cache.generation());
  cache.Insert(2, MakeKey(2), cache.generation());
  ASSERT_NE(cache.Lookup(1), nullptr);  // 1 is now most recent; 2 is LRU
  std::weak_ptr<const UnwrappedKey> watch2 = cache.Lookup(2);
  ASSERT_NE(cache.Lookup(1), nullptr);
  cache.Insert(3, MakeKey(3), cache.generation());
  EXPECT_EQ(cache.stats().evictions, 1u);
  EXPECT_TRUE(watch2.expired()) << "evicted key must be released (and so zeroised)";
  EXPECT_EQ(cache.Lookup(2), nullptr);
  EXPECT_NE(cache.Lookup(1), nullptr);
  EXPECT_NE(cache.Lookup(3), nullptr);
  EXPECT_EQ(cache.stats().size, 2u);
}

TEST(KeyCache, EvictedKeyStaysAliveForItsHolder) {
  KeyCache cache(1);
  cache.Insert(1, MakeKey(7), cache.generation());
  auto held = cache.Lookup(1);
  cache.Insert(2, MakeKey(8), cache.generation());
  EXPECT_EQ(cache.Lookup(1), nullptr);
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(held->value[0], 7);
}

TEST(KeyCache, ClearDropsEverythingAndStaleInsertIsIgnored) {
  KeyCache cache(4);
  std::uint64_t before = cache.generation();
  cache.Insert(1, MakeKey(1), before);
  std::weak_ptr<const UnwrappedKey> watch = cache.Lookup(1);
  cache.Clear();
  EXPECT_TRUE(watch.expired());
  EXPECT_EQ(cache.stats().size, 0u);
  cache.Insert(2, MakeKey(2), before);  // fetched before the logout
  EXPECT_EQ(cache.Lookup(2), nullptr);
}

TEST(KeyCache, EraseDropsOneEntry) {
  KeyCache cache(4);
  cache.Insert(1, MakeKey(1), cache.generation());
  cache.Insert(2, MakeKey(2), cache.generation());
  cache.Erase(1);
  EXPECT_EQ(cache.Lookup(1), nullptr);
  EXPECT_NE(cache.Lookup(2), nullptr);
}

TEST(KeyCache, ZeroCapacityNeverCaches) {
  KeyCache cache(0);
  cache.Insert(1, MakeKey(1), cache.generation());
  EXPECT_EQ(cache.Lookup(1), nullptr);
  EXPECT_EQ(cache.stats().size, 0u);
}

}  // namespace
}  // namespace signet::keystore

#include "keystore/pin_memo.h"

#include <gtest/gtest.h>

namespace signet::keystore {
namespace {

const crypto::ScryptParams kCheapKdf{.n = 1u << 10, .r = 8, .p = 1};
const SecureBytes kKek(32, 0x4b);

PinRecord Sealed(std::string_view pin, UserType user = UserType::kUser) {
  auto record = SealKek(user, AsBytes(pin), kKek, kCheapKdf);
  EXPECT_TRUE(record.ok());
  return *record;
}

TEST(PinMemoTest, RecallsOnlyThePinItRememberedForThatVeryRecord) {
  PinMemo memo;
  const PinRecord record = Sealed("1234-right");
  EXPECT_FALSE(memo.Recall(record, AsBytes("1234-right")));
  memo.Remember(record, AsBytes("1234-right"), kKek);
  auto kek = memo.Recall(record, AsBytes("1234-right"));
  ASSERT_TRUE(kek);
  EXPECT_EQ(*kek, kKek);
  EXPECT_FALSE(memo.Recall(record, AsBytes("1234-wrong")));
  // The same PIN under a record made since (a PIN change anywhere: a new
  // salt and wrap) is not recalled; nor the other user's.
  EXPECT_FALSE(memo.Recall(Sealed("1234-right"), AsBytes("1234-right")));
  PinRecord so = record;
  so.user = UserType::kSo;
  EXPECT_FALSE(memo.Recall(so, AsBytes("1234-right")));
  // A changed failure count is the same record.
  PinRecord counted = record;
  counted.failures = 3;
  EXPECT_TRUE(memo.Recall(counted, AsBytes("1234-right")));
  memo.Forget();
  EXPECT_FALSE(memo.Recall(record, AsBytes("1234-right")));
}

// The lockout rule with a memo: a remembered PIN skips scrypt but still
// resets the count; a wrong PIN still counts; a locked PIN is refused
// even when remembered.
TEST(PinMemoTest, TheLockoutRuleHoldsWithAMemo) {
  PinMemo memo;
  PinRecord record = Sealed("1234-right");
  int resets = 0;
  PinCounter counter{.load = [&]() -> Result<PinRecord> { return record; },
                     .record_failure = [&]() -> Result<int> { return ++record.failures; },
                     .reset = [&]() -> Status {
                       ++resets;
                       record.failures = 0;
                       return OkStatus();
                     },
                     .memo = &memo};
  ASSERT_TRUE(CheckPinWithLockout(AsBytes("1234-right"), 3, counter).ok());
  ASSERT_TRUE(memo.Recall(record, AsBytes("1234-right")));
  EXPECT_EQ(CheckPinWithLockout(AsBytes("1234-wrong"), 3, counter).error().code, CKR_PIN_INCORRECT);
  EXPECT_EQ(record.failures, 1);
  ASSERT_TRUE(CheckPinWithLockout(AsBytes("1234-right"), 3, counter).ok());
  EXPECT_EQ(resets, 2);
  EXPECT_EQ(record.failures, 0);
  record.failures = 3;
  EXPECT_EQ(CheckPinWithLockout(AsBytes("1234-right"), 3, counter).error().code, CKR_PIN_LOCKED);
}

}  // namespace
}  // namespace signet::keystore

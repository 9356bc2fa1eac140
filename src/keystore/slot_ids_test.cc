// Stable slot ids (keystore/slot_ids.h): the plan keeps stored ids, numbers
// a directory from before stored ids as it was numbered, gives a copied
// token's duplicate id a new one; the next-slot-id file survives and is
// never handed out twice, also after a token is removed; labels are unique.
#include "keystore/slot_ids.h"

#include <fstream>

#include "keystore/data_dir.h"
#include "keystore/keystore_test_util.h"

namespace signet::keystore {
namespace {

using testing::FastOptions;
using testing::Pin;
using testing::TempDir;

TEST(PlanSlotIdsTest, ADirectoryWithoutStoredIdsKeepsItsOldNumbering) {
  SlotIdPlan plan = PlanSlotIds({std::nullopt, std::nullopt, std::nullopt}, 0);
  EXPECT_EQ(plan.ids, (std::vector<CK_SLOT_ID>{0, 1, 2}));
  EXPECT_EQ(plan.new_ids, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(plan.next, 3u);
}

TEST(PlanSlotIdsTest, StoredIdsStayAndNewOnesComeAfterEveryIdEverGiven) {
  SlotIdPlan plan = PlanSlotIds({CK_SLOT_ID{4}, std::nullopt, CK_SLOT_ID{1}}, 7);
  EXPECT_EQ(plan.ids, (std::vector<CK_SLOT_ID>{4, 7, 1}));
  EXPECT_EQ(plan.new_ids, (std::vector<std::size_t>{1}));
  EXPECT_EQ(plan.next, 8u);
}

TEST(PlanSlotIdsTest, ACopiedTokensDuplicateIdGetsANewOne) {
  SlotIdPlan plan = PlanSlotIds({CK_SLOT_ID{2}, CK_SLOT_ID{2}}, 3);
  EXPECT_EQ(plan.ids, (std::vector<CK_SLOT_ID>{2, 3}));
  EXPECT_EQ(plan.new_ids, (std::vector<std::size_t>{1}));
  EXPECT_EQ(plan.next, 4u);
}

TEST(NextSlotIdTest, AbsentIsZeroWrittenIsReadBackGarbageIsAnError) {
  TempDir dir;
  auto absent = ReadNextSlotId(dir.path());
  ASSERT_TRUE(absent.ok());
  EXPECT_EQ(*absent, 0u);
  ASSERT_TRUE(WriteNextSlotId(dir.path(), 42).ok());
  auto read = ReadNextSlotId(dir.path());
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, 42u);
  std::ofstream(dir.path() / std::string(kNextSlotIdName)) << "4x2\n";
  auto garbage = ReadNextSlotId(dir.path());
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.error().code, CKR_DEVICE_ERROR);
}

TEST(CreateTokenOnNewSlotTest, IdsAreNeverReusedAndLabelsAreUnique) {
  TempDir dir;
  std::vector<TokenInfo> tokens;
  auto first = CreateTokenOnNewSlot(dir.path(), "first", Pin("so-pin"), Pin("user-pin"),
                                    FastOptions(), tokens);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ((*first)->Info().slot_id, CK_SLOT_ID{0});
  tokens.push_back((*first)->Info());

  auto twin = CreateTokenOnNewSlot(dir.path(), "first", Pin("so-pin"), Pin("user-pin"),
                                   FastOptions(), tokens);
  ASSERT_FALSE(twin.ok());
  EXPECT_EQ(twin.error().code, CKR_ARGUMENTS_BAD);
  EXPECT_NE(twin.error().message.find("already exists (slot 0, serial " + tokens[0].serial),
            std::string::npos)
      << twin.error().message;

  auto second = CreateTokenOnNewSlot(dir.path(), "second", Pin("so-pin"), Pin("user-pin"),
                                     FastOptions(), tokens);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ((*second)->Info().slot_id, CK_SLOT_ID{1});
  // The second token is removed; the next one still gets a new id.
  const std::string second_serial = (*second)->Info().serial;
  second->reset();
  std::filesystem::remove(TokenFilePath(dir.path(), second_serial));
  auto third = CreateTokenOnNewSlot(dir.path(), "third", Pin("so-pin"), Pin("user-pin"),
                                    FastOptions(), tokens);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ((*third)->Info().slot_id, CK_SLOT_ID{2});
}

TEST(CreateTokenOnNewSlotTest, TheIdIsStoredInTheToken) {
  TempDir dir;
  auto made =
      CreateTokenOnNewSlot(dir.path(), "kept", Pin("so-pin"), Pin("user-pin"), FastOptions(), {});
  ASSERT_TRUE(made.ok());
  const std::string serial = (*made)->Info().serial;
  made->reset();
  auto reopened = Token::Open(TokenFilePath(dir.path(), serial), FastOptions());
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ((*reopened)->Info().slot_id, CK_SLOT_ID{0});
}

}  // namespace
}  // namespace signet::keystore

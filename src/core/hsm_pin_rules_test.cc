// The PIN length rules (4-256 bytes, keystore/pin_policy.h) on every path
// through the Hsm that sets a PIN: InitToken's SO PIN and user PIN (a new
// token and a re-initialised one), InitPin and SetPin.
#include <gtest/gtest.h>

#include <string>

#include "core/hsm_fixture_test_util.h"

namespace signet::core {
namespace {

const std::string kTooShort(3, '1');
const std::string kTooLong(257, '1');

class PinRulesTest : public HsmFixture {
 protected:
  // AddTokenObject stores a public data object on token 0 (user session,
  // closed again) and returns nothing: ObjectCount tells whether it stayed.
  void AddTokenObject() {
    CK_SESSION_HANDLE s = LoggedIn(*owner_);
    Template t = {
        {CKA_CLASS, UlongBytes(CKO_DATA)}, {CKA_TOKEN, BoolBytes(true)}, {CKA_LABEL, Bytes{'d'}}};
    ASSERT_EQ(Code(hsm_->CreateObject(*owner_, s, t)), CKR_OK);
    ASSERT_EQ(Code(hsm_->CloseSession(*owner_, s)), CKR_OK);
  }
  std::size_t ObjectCount() {
    CK_SESSION_HANDLE s = LoggedIn(*owner_);
    auto found = hsm_->FindObjects(*owner_, s, {}, 0);
    EXPECT_EQ(Code(hsm_->CloseSession(*owner_, s)), CKR_OK);
    return found.ok() ? found->size() : 0;
  }
};

// Regression (issue 12 point 3): the user PIN given to InitToken was checked
// by neither core/ nor the keystore, so a new token could get a 1-byte user
// PIN that InitPin and SetPin would have refused.
TEST_F(PinRulesTest, NewTokenRefusesAUserPinOutsideTheRange) {
  for (const std::string& bad : {kTooShort, kTooLong}) {
    auto made = hsm_->InitToken(*admin_, 1, AsBytes(kSoPin), "second", AsBytes(bad));
    EXPECT_EQ(Code(made), CKR_PIN_LEN_RANGE) << bad.size();
  }
  EXPECT_EQ(hsm_->Slots().size(), 2u) << "a token was created";
  auto made = hsm_->InitToken(*admin_, 1, AsBytes(kSoPin), "second", AsBytes(std::string(4, '1')));
  EXPECT_EQ(Code(made), CKR_OK);
}

TEST_F(PinRulesTest, NewTokenRefusesAnSoPinOutsideTheRange) {
  for (const std::string& bad : {kTooShort, kTooLong}) {
    auto made = hsm_->InitToken(*admin_, 1, AsBytes(bad), "second", AsBytes(kUserPin));
    EXPECT_EQ(Code(made), CKR_PIN_LEN_RANGE) << bad.size();
  }
  EXPECT_EQ(hsm_->Slots().size(), 2u) << "a token was created";
}

// Regression (issue 12 point 3): re-initialising with a user PIN out of
// range used to wipe the token and then store that PIN. It must be refused
// before anything changes.
TEST_F(PinRulesTest, ReinitialisationRefusesABadUserPinBeforeWipingAnything) {
  AddTokenObject();
  for (const std::string& bad : {kTooShort, kTooLong}) {
    auto re = hsm_->InitToken(*admin_, 0, AsBytes(kSoPin), "renamed", AsBytes(bad));
    EXPECT_EQ(Code(re), CKR_PIN_LEN_RANGE) << bad.size();
  }
  EXPECT_EQ(hsm_->Slots()[0].label, "test");
  EXPECT_EQ(ObjectCount(), 1u);  // LoggedIn: the old user PIN still works
}

TEST_F(PinRulesTest, InitPinAndSetPinRefuseAPinOutsideTheRange) {
  // One user type at a time may be logged in to a token.
  CK_SESSION_HANDLE so = LoggedIn(*admin_, CKU_SO);
  for (const std::string& bad : {kTooShort, kTooLong}) {
    EXPECT_EQ(Code(hsm_->InitPin(*admin_, so, AsBytes(bad))), CKR_PIN_LEN_RANGE);
  }
  ASSERT_EQ(Code(hsm_->CloseSession(*admin_, so)), CKR_OK);
  CK_SESSION_HANDLE user = LoggedIn(*owner_);
  for (const std::string& bad : {kTooShort, kTooLong}) {
    EXPECT_EQ(Code(hsm_->SetPin(*owner_, user, AsBytes(kUserPin), AsBytes(bad))),
              CKR_PIN_LEN_RANGE);
  }
  EXPECT_EQ(Code(hsm_->SetPin(*owner_, user, AsBytes(kUserPin), AsBytes(std::string(256, '1')))),
            CKR_OK);
}

}  // namespace
}  // namespace signet::core

// CKA_ALWAYS_AUTHENTICATE keys and C_Login(CKU_CONTEXT_SPECIFIC) (PKCS#11
// §4.9, §5.6.3; issue 11, point 15): every signature with such a key needs
// the user PIN again, given in the session that signs; a wrong PIN is
// CKR_PIN_INCORRECT and counts toward the lockout.
#include <gtest/gtest.h>

#include "core/hsm_fixture_test_util.h"

namespace signet::core {
namespace {


class HsmContextLoginTest : public HsmFixture {
 protected:
  // Key: a session P-256 pair whose private key has
  // CKA_ALWAYS_AUTHENTICATE = `always`; returns the private key's handle.
  CK_OBJECT_HANDLE Key(CK_SESSION_HANDLE s, bool always) {
    Mechanism m{CKM_EC_KEY_PAIR_GEN, {}, {}};
    auto pair = hsm_->GenerateKeyPair(
        *owner_, s, m, {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)}},
        {{CKA_ALWAYS_AUTHENTICATE, BoolBytes(always)}});
    EXPECT_TRUE(pair.ok()) << pair.error().message;
    return pair.ok() ? pair->second : 0;
  }
  CK_RV SignOnce(CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key) {
    Bytes digest(32, 0x11);
    return Code(hsm_->Sign(*owner_, s, key, Mechanism{CKM_ECDSA, {}, {}}, digest));
  }
  CK_RV ContextLogin(CK_SESSION_HANDLE s, std::string_view pin) {
    return Code(hsm_->Login(*owner_, s, CKU_CONTEXT_SPECIFIC, AsBytes(pin)));
  }
};

TEST_F(HsmContextLoginTest, EachSignatureNeedsItsOwnContextLogin) {
  CK_SESSION_HANDLE s = LoggedIn(*owner_);
  CK_OBJECT_HANDLE key = Key(s, true);
  EXPECT_EQ(SignOnce(s, key), CKR_USER_NOT_LOGGED_IN);
  EXPECT_EQ(ContextLogin(s, kUserPin), CKR_OK);
  EXPECT_EQ(SignOnce(s, key), CKR_OK);
  EXPECT_EQ(SignOnce(s, key), CKR_USER_NOT_LOGGED_IN) << "one login, one signature";
}

TEST_F(HsmContextLoginTest, TheAuthorisationBelongsToTheSessionThatGotIt) {
  CK_SESSION_HANDLE s = LoggedIn(*owner_);
  CK_SESSION_HANDLE other = Session(*owner_);
  CK_OBJECT_HANDLE key = Key(s, true);
  EXPECT_EQ(ContextLogin(s, kUserPin), CKR_OK);
  EXPECT_EQ(SignOnce(other, key), CKR_USER_NOT_LOGGED_IN);
  EXPECT_EQ(SignOnce(s, key), CKR_OK);
}

TEST_F(HsmContextLoginTest, WrongPinIsIncorrectAndCountsTowardTheLockout) {
  CK_SESSION_HANDLE s = LoggedIn(*owner_);
  CK_OBJECT_HANDLE key = Key(s, true);
  EXPECT_EQ(ContextLogin(s, "wrong-pin-1"), CKR_PIN_INCORRECT);
  EXPECT_EQ(SignOnce(s, key), CKR_USER_NOT_LOGGED_IN);
  Advance(std::chrono::minutes(1));  // past the failed-login throttle
  EXPECT_EQ(ContextLogin(s, "wrong-pin-2"), CKR_PIN_INCORRECT);
  Advance(std::chrono::minutes(1));
  EXPECT_EQ(ContextLogin(s, "wrong-pin-3"), CKR_PIN_LOCKED) << "max_pin_failures is 3";
}

TEST_F(HsmContextLoginTest, NeedsTheUserLoggedIn) {
  CK_SESSION_HANDLE s = Session(*owner_);
  EXPECT_EQ(ContextLogin(s, kUserPin), CKR_USER_NOT_LOGGED_IN);
}

TEST_F(HsmContextLoginTest, OrdinaryKeysSignWithoutIt) {
  CK_SESSION_HANDLE s = LoggedIn(*owner_);
  CK_OBJECT_HANDLE key = Key(s, false);
  EXPECT_EQ(SignOnce(s, key), CKR_OK);
  EXPECT_EQ(SignOnce(s, key), CKR_OK);
}

TEST_F(HsmContextLoginTest, LogoutDropsAnUnusedAuthorisation) {
  CK_SESSION_HANDLE s = LoggedIn(*owner_);
  Mechanism m{CKM_EC_KEY_PAIR_GEN, {}, {}};
  auto pair = hsm_->GenerateKeyPair(
      *owner_, s, m,
      {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)},
       {CKA_TOKEN, BoolBytes(true)}},
      {{CKA_ALWAYS_AUTHENTICATE, BoolBytes(true)}, {CKA_TOKEN, BoolBytes(true)},
       {CKA_LABEL, Bytes{'a'}}});
  ASSERT_TRUE(pair.ok());
  EXPECT_EQ(ContextLogin(s, kUserPin), CKR_OK);
  ASSERT_TRUE(hsm_->Logout(*owner_, s).ok());
  ASSERT_TRUE(hsm_->Login(*owner_, s, CKU_USER, AsBytes(kUserPin)).ok());
  auto found = hsm_->FindObjects(*owner_, s, {{CKA_LABEL, Bytes{'a'}}}, 0);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(SignOnce(s, (*found)[0]), CKR_USER_NOT_LOGGED_IN);
}

}  // namespace
}  // namespace signet::core

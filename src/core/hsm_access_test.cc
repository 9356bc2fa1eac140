// The access model of issue 10, without sockets: who may write token
// objects (defect 2), who may create tokens (defect 5), the failed-login
// throttle (defect 4), and the per-connection and per-token limits
// (defect 3's core part). Each test is named after what it pins.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>

#include "core/hsm_fixture_test_util.h"

namespace signet::core {
namespace {

using namespace std::chrono_literals;

Template DataObject(bool token, std::string_view label, std::size_t size = 16) {
  return {{CKA_CLASS, UlongBytes(CKO_DATA)},
          {CKA_TOKEN, BoolBytes(token)},
          {CKA_LABEL, Bytes(label.begin(), label.end())},
          {CKA_VALUE, Bytes(size, 0x5a)}};
}

class HsmAccessTest : public HsmFixture {
 protected:
  // OwnersPublicKey: a token P-256 pair made by the logged-in owner; returns
  // the public key's handle as `c` (not logged in) finds it.
  CK_OBJECT_HANDLE OwnersPublicKey(ClientState& c, CK_SESSION_HANDLE s) {
    CK_SESSION_HANDLE os = LoggedIn(*owner_);
    Mechanism m{CKM_EC_KEY_PAIR_GEN, {}, {}};
    Template pub = {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)},
                    {CKA_TOKEN, BoolBytes(true)},
                    {CKA_LABEL, Bytes{'k'}}};
    auto pair = hsm_->GenerateKeyPair(*owner_, os, m, pub,
                                      {{CKA_TOKEN, BoolBytes(true)}, {CKA_LABEL, Bytes{'k'}}});
    EXPECT_TRUE(pair.ok()) << pair.error().message;
    auto found = hsm_->FindObjects(c, s, {{CKA_CLASS, UlongBytes(CKO_PUBLIC_KEY)}}, 0);
    EXPECT_TRUE(found.ok());
    EXPECT_EQ(found->size(), 1u);
    return found->empty() ? 0 : (*found)[0];
  }
};

// Defect 2: without a login, a R/W session could destroy the owner's public
// key, plant another under its label and relabel objects.
TEST_F(HsmAccessTest, PublicSessionCannotCreateChangeOrDestroyTokenObjects) {
  CK_SESSION_HANDLE s = Session(*stranger_);
  CK_OBJECT_HANDLE pub = OwnersPublicKey(*stranger_, s);
  EXPECT_EQ(Code(hsm_->DestroyObject(*stranger_, s, pub)), CKR_USER_NOT_LOGGED_IN);
  EXPECT_EQ(Code(hsm_->SetAttributeValue(*stranger_, s, pub, {{CKA_LABEL, Bytes{'x'}}})),
            CKR_USER_NOT_LOGGED_IN);
  EXPECT_EQ(Code(hsm_->CopyObject(*stranger_, s, pub, {{CKA_LABEL, Bytes{'k'}}})),
            CKR_USER_NOT_LOGGED_IN);
  EXPECT_EQ(Code(hsm_->CreateObject(*stranger_, s, DataObject(true, "k"))), CKR_USER_NOT_LOGGED_IN);
  Mechanism m{CKM_EC_KEY_PAIR_GEN, {}, {}};
  Template gen_pub = {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)},
                      {CKA_TOKEN, BoolBytes(true)}};
  Template gen_priv = {{CKA_TOKEN, BoolBytes(true)}, {CKA_PRIVATE, BoolBytes(false)}};
  EXPECT_EQ(Code(hsm_->GenerateKeyPair(*stranger_, s, m, gen_pub, gen_priv)),
            CKR_USER_NOT_LOGGED_IN);
  Template aes = {{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)},
                  {CKA_VALUE_LEN, UlongBytes(32)},
                  {CKA_TOKEN, BoolBytes(true)},
                  {CKA_PRIVATE, BoolBytes(false)}};
  EXPECT_EQ(Code(hsm_->GenerateKey(*stranger_, s, Mechanism{CKM_AES_KEY_GEN, {}, {}}, aes)),
            CKR_USER_NOT_LOGGED_IN);
  // Still there, still labelled "k", and the only public key.
  auto found = hsm_->FindObjects(*stranger_, s, {{CKA_LABEL, Bytes{'k'}}}, 0);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, std::vector<CK_OBJECT_HANDLE>{pub});
  // A read-only session keeps its own code.
  CK_SESSION_HANDLE ro = Session(*stranger_, kRo);
  EXPECT_EQ(Code(hsm_->CreateObject(*stranger_, ro, DataObject(true, "d"))), CKR_SESSION_READ_ONLY);
}

TEST_F(HsmAccessTest, PublicSessionMayStillUseSessionObjects) {
  CK_SESSION_HANDLE s = Session(*stranger_);
  auto obj = hsm_->CreateObject(*stranger_, s, DataObject(false, "mine"));
  ASSERT_TRUE(obj.ok()) << obj.error().message;
  EXPECT_TRUE(hsm_->SetAttributeValue(*stranger_, s, *obj, {{CKA_LABEL, Bytes{'y'}}}).ok());
  EXPECT_TRUE(hsm_->DestroyObject(*stranger_, s, *obj).ok());
}

TEST_F(HsmAccessTest, UserAndSoMayWritePublicTokenObjectsButSoNoPrivateOnes) {
  CK_SESSION_HANDLE us = LoggedIn(*owner_);
  auto by_user = hsm_->CreateObject(*owner_, us, DataObject(true, "u"));
  ASSERT_TRUE(by_user.ok()) << by_user.error().message;
  EXPECT_TRUE(hsm_->DestroyObject(*owner_, us, *by_user).ok());
  hsm_->Disconnect(*owner_);
  CK_SESSION_HANDLE so = Session(*stranger_);
  ASSERT_TRUE(hsm_->Login(*stranger_, so, CKU_SO, AsBytes(kSoPin)).ok());
  auto by_so = hsm_->CreateObject(*stranger_, so, DataObject(true, "s"));
  ASSERT_TRUE(by_so.ok()) << by_so.error().message;
  EXPECT_TRUE(hsm_->SetAttributeValue(*stranger_, so, *by_so, {{CKA_LABEL, Bytes{'t'}}}).ok());
  EXPECT_TRUE(hsm_->DestroyObject(*stranger_, so, *by_so).ok());
  Template priv = DataObject(true, "p");
  priv.push_back({CKA_PRIVATE, BoolBytes(true)});
  EXPECT_EQ(Code(hsm_->CreateObject(*stranger_, so, priv)), CKR_USER_NOT_LOGGED_IN);
}

TEST_F(HsmAccessTest, CompatSwitchRestoresPublicReadWriteSessionWrites) {
  Open({}, {serial_});
  CK_SESSION_HANDLE s = Session(*stranger_);
  auto obj = hsm_->CreateObject(*stranger_, s, DataObject(true, "compat"));
  ASSERT_TRUE(obj.ok()) << obj.error().message;
  EXPECT_TRUE(hsm_->SetAttributeValue(*stranger_, s, *obj, {{CKA_LABEL, Bytes{'c'}}}).ok());
  EXPECT_TRUE(hsm_->DestroyObject(*stranger_, s, *obj).ok());
  Template priv = DataObject(true, "p");
  priv.push_back({CKA_PRIVATE, BoolBytes(true)});
  EXPECT_EQ(Code(hsm_->CreateObject(*stranger_, s, priv)), CKR_USER_NOT_LOGGED_IN);
}

// Defect 5: any connection could create tokens on the free slot.
TEST_F(HsmAccessTest, OnlyAnAdminCreatesTokens) {
  auto refused = hsm_->InitToken(*stranger_, 1, AsBytes("so-two"), "two", {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, CKR_TOKEN_WRITE_PROTECTED);
  EXPECT_EQ(hsm_->Slots().size(), 2u);
  auto made = hsm_->InitToken(*admin_, 1, AsBytes("so-two"), "two", {});
  ASSERT_TRUE(made.ok()) << made.error().message;
  EXPECT_EQ(hsm_->Slots().size(), 3u);
  // Re-initialising takes the token's SO PIN, as PKCS#11 says; no admin.
  EXPECT_TRUE(hsm_->InitToken(*stranger_, 1, AsBytes("so-two"), "two-b", {}).ok());
}

// Defect 4: wrong PINs came as fast as the KDF allowed, and twenty locked
// both PINs for good. (This fixture's tokens lock after 3 failures.)
TEST_F(HsmAccessTest, FailedLoginsAreThrottledWithoutCheckingThePin) {
  CK_SESSION_HANDLE s = Session(*stranger_);
  // One failure is free: a mistyped PIN can be retried at once.
  EXPECT_EQ(Code(hsm_->Login(*stranger_, s, CKU_USER, AsBytes("wrong-1"))), CKR_PIN_INCORRECT);
  EXPECT_EQ(Code(hsm_->Login(*stranger_, s, CKU_USER, AsBytes("wrong-2"))), CKR_PIN_INCORRECT);
  EXPECT_TRUE(hsm_->Slots()[0].flags & CKF_USER_PIN_FINAL_TRY);
  // At once again: refused without a PIN check, so the PIN is not locked.
  Status again = hsm_->Login(*stranger_, s, CKU_USER, AsBytes("wrong-3"));
  EXPECT_EQ(Code(again), CKR_FUNCTION_FAILED);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message.find("try again in 0.5 s"), std::string::npos)
      << again.error().message;
  EXPECT_FALSE(hsm_->Slots()[0].flags & CKF_USER_PIN_LOCKED);
  // The token is throttled for everyone, the right PIN included, until the
  // delay (0.5 s) has passed; then it works.
  CK_SESSION_HANDLE os = Session(*owner_);
  EXPECT_EQ(Code(hsm_->Login(*owner_, os, CKU_USER, AsBytes(kUserPin))), CKR_FUNCTION_FAILED);
  Advance(499ms);
  EXPECT_EQ(Code(hsm_->Login(*owner_, os, CKU_USER, AsBytes(kUserPin))), CKR_FUNCTION_FAILED);
  Advance(1ms);
  EXPECT_EQ(Code(hsm_->Login(*owner_, os, CKU_USER, AsBytes(kUserPin))), CKR_OK);
}

TEST_F(HsmAccessTest, ThrottleDelayDoublesUpToTheCap) {
  CK_SESSION_HANDLE s = Session(*stranger_);
  ASSERT_EQ(Code(hsm_->Login(*stranger_, s, CKU_SO, AsBytes("wrong-so"))), CKR_PIN_INCORRECT);
  std::chrono::milliseconds expected = 500ms;
  for (int i = 0; i < 9; ++i) {
    // Checked (the SO PIN locks on the third failure, and stays locked).
    CK_RV checked = Code(hsm_->Login(*stranger_, s, CKU_SO, AsBytes("wrong-so")));
    EXPECT_TRUE(checked == CKR_PIN_INCORRECT || checked == CKR_PIN_LOCKED) << i << ": " << checked;
    Advance(expected - 1ms);
    EXPECT_EQ(Code(hsm_->Login(*stranger_, s, CKU_SO, AsBytes("wrong-so"))), CKR_FUNCTION_FAILED)
        << "attempt " << i;
    Advance(1ms);
    expected = std::min<std::chrono::milliseconds>(expected * 2, 30s);
  }
  // SetPin and InitToken check a PIN too: same throttle.
  ASSERT_EQ(Code(hsm_->Login(*stranger_, s, CKU_SO, AsBytes("wrong-so"))), CKR_PIN_LOCKED);
  EXPECT_EQ(Code(hsm_->SetPin(*stranger_, s, AsBytes("wrong-so"), AsBytes("new-pin"))),
            CKR_FUNCTION_FAILED);
  hsm_->Disconnect(*stranger_);
  EXPECT_EQ(Code(hsm_->InitToken(*stranger_, 0, AsBytes("wrong-so"), "x", {})),
            CKR_FUNCTION_FAILED);
  EXPECT_EQ(hsm_->Slots()[0].label, "test");
}

TEST_F(HsmAccessTest, ThrottleFollowsThePeerAcrossTokens) {
  ASSERT_TRUE(hsm_->InitToken(*admin_, 1, AsBytes(kSoPin), "two", AsBytes(kUserPin)).ok());
  CK_SESSION_HANDLE s0 = Session(*stranger_, kRw, 0);
  CK_SESSION_HANDLE s1 = Session(*stranger_, kRw, 1);
  EXPECT_EQ(Code(hsm_->Login(*stranger_, s0, CKU_USER, AsBytes("wrong-1"))), CKR_PIN_INCORRECT);
  EXPECT_EQ(Code(hsm_->Login(*stranger_, s0, CKU_USER, AsBytes("wrong-2"))), CKR_PIN_INCORRECT);
  // Same peer, other token: throttled. Other peer, other token: not.
  EXPECT_EQ(Code(hsm_->Login(*stranger_, s1, CKU_USER, AsBytes(kUserPin))), CKR_FUNCTION_FAILED);
  CK_SESSION_HANDLE o1 = Session(*owner_, kRw, 1);
  EXPECT_EQ(Code(hsm_->Login(*owner_, o1, CKU_USER, AsBytes(kUserPin))), CKR_OK);
}

// Defect 3 (core): a connection's sessions and session objects, and a
// token's objects, were unbounded.
TEST_F(HsmAccessTest, SessionsPerConnectionAreLimited) {
  Limits limits;
  limits.max_sessions = 3;
  Open(limits);
  std::vector<CK_SESSION_HANDLE> open;
  for (int i = 0; i < 3; ++i) open.push_back(Session(*stranger_));
  EXPECT_EQ(Code(hsm_->OpenSession(*stranger_, 0, kRw)), CKR_SESSION_COUNT);
  EXPECT_TRUE(hsm_->OpenSession(*owner_, 0, kRw).ok());  // per connection
  ASSERT_TRUE(hsm_->CloseSession(*stranger_, open[0]).ok());
  EXPECT_TRUE(hsm_->OpenSession(*stranger_, 0, kRw).ok());
}

TEST_F(HsmAccessTest, SessionObjectsPerConnectionAreLimitedInCountAndBytes) {
  Limits limits;
  limits.max_session_objects = 2;
  limits.max_session_object_bytes = 64 * 1024;
  Open(limits);
  CK_SESSION_HANDLE s = Session(*stranger_);
  CK_SESSION_HANDLE s2 = Session(*stranger_);
  auto first = hsm_->CreateObject(*stranger_, s, DataObject(false, "a"));
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(hsm_->CreateObject(*stranger_, s2, DataObject(false, "b")).ok());
  EXPECT_EQ(Code(hsm_->CreateObject(*stranger_, s, DataObject(false, "c"))), CKR_DEVICE_MEMORY);
  ASSERT_TRUE(hsm_->DestroyObject(*stranger_, s, *first).ok());
  EXPECT_EQ(Code(hsm_->CreateObject(*stranger_, s, DataObject(false, "big", 64 * 1024))),
            CKR_DEVICE_MEMORY);
  ASSERT_TRUE(hsm_->CreateObject(*stranger_, s, DataObject(false, "c")).ok());
  // Closing a session gives its objects' share back.
  ASSERT_TRUE(hsm_->CloseSession(*stranger_, s2).ok());
  EXPECT_TRUE(hsm_->CreateObject(*stranger_, s, DataObject(false, "d")).ok());
  // The limit holds at its count, and growing an object counts as well.
  EXPECT_EQ(Code(hsm_->CreateObject(*stranger_, s, DataObject(false, "e"))), CKR_DEVICE_MEMORY);
  auto d = hsm_->FindObjects(*stranger_, s, {{CKA_LABEL, Bytes{'d'}}}, 0);
  ASSERT_EQ(d->size(), 1u);
  EXPECT_EQ(Code(hsm_->SetAttributeValue(*stranger_, s, (*d)[0],
                                         {{CKA_LABEL, Bytes(64 * 1024, 1)}})),
            CKR_DEVICE_MEMORY);
}

TEST_F(HsmAccessTest, TokenQuotaLimitsObjectsAndBytes) {
  Limits limits;
  limits.max_token_objects = 3;
  limits.max_token_bytes = 16 * 1024;
  Open(limits);
  CK_SESSION_HANDLE s = LoggedIn(*owner_);
  auto first = hsm_->CreateObject(*owner_, s, DataObject(true, "a"));
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(Code(hsm_->CreateObject(*owner_, s, DataObject(true, "big", 16 * 1024))),
            CKR_DEVICE_MEMORY);
  ASSERT_TRUE(hsm_->CreateObject(*owner_, s, DataObject(true, "b")).ok());
  ASSERT_TRUE(hsm_->CreateObject(*owner_, s, DataObject(true, "c")).ok());
  EXPECT_EQ(Code(hsm_->CreateObject(*owner_, s, DataObject(true, "d"))), CKR_DEVICE_MEMORY);
  EXPECT_EQ(
      Code(hsm_->SetAttributeValue(*owner_, s, *first, {{CKA_LABEL, Bytes(16 * 1024, 1)}})),
      CKR_DEVICE_MEMORY);
  ASSERT_TRUE(hsm_->DestroyObject(*owner_, s, *first).ok());
  EXPECT_TRUE(hsm_->CreateObject(*owner_, s, DataObject(true, "d")).ok());
  // The count survives a restart (objects loaded from the file count).
  Open(limits);
  CK_SESSION_HANDLE again = LoggedIn(*owner_);
  EXPECT_EQ(Code(hsm_->CreateObject(*owner_, again, DataObject(true, "e"))), CKR_DEVICE_MEMORY);
}

}  // namespace
}  // namespace signet::core

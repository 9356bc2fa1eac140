// What a client needs to move to another node (core/hsm_failover.cc), on a
// real Hsm: two connections stand for the same application on two nodes
// (they share the token and its objects as two nodes of one keystore do).
#include <gtest/gtest.h>

#include "core/hsm_fixture_test_util.h"
#include "crypto/keys.h"

namespace signet::core {
namespace {

const Bytes kHandleKey(32, 0x5a);

class HsmFailoverTest : public HsmFixture {
 protected:
  void SetUp() override {
    HsmFixture::SetUp();
    login_ticket_keys_ = {SecureBytes(32, 0x77)};
    Limits limits;
    limits.login_delay_base = std::chrono::milliseconds(0);
    Open(limits);
    second_ = Peer();
  }
  void TearDown() override {
    for (auto& c : peers_) hsm_->Disconnect(*c);
    peers_.clear();
    HsmFixture::TearDown();
  }

  // Peer: another connection of the token's owner (another node's, in
  // effect).
  std::shared_ptr<ClientState> Peer() {
    auto c = hsm_->NewClient();
    c->peer_identity = "uid=1000";
    peers_.push_back(c);
    return c;
  }

  // TokenKey makes a token P-256 pair through `c` and returns its private
  // key's handle there.
  CK_OBJECT_HANDLE TokenKey(ClientState& c, CK_SESSION_HANDLE s) {
    Mechanism m{CKM_EC_KEY_PAIR_GEN, {}, {}};
    Template pub = {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)},
                    {CKA_TOKEN, BoolBytes(true)}};
    auto pair = hsm_->GenerateKeyPair(c, s, m, pub, {{CKA_TOKEN, BoolBytes(true)}});
    EXPECT_TRUE(pair.ok()) << pair.error().message;
    return pair.ok() ? pair->second : 0;
  }

  CK_RV SignWith(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key) {
    return Code(hsm_->Sign(c, s, key, {CKM_ECDSA_SHA256, {}, {}}, AsBytes("message")));
  }

  std::vector<std::shared_ptr<ClientState>> peers_;
  std::shared_ptr<ClientState> second_;
};

TEST_F(HsmFailoverTest, AStableHandleFromOneConnectionNamesTheSameKeyOnAnother) {
  ASSERT_TRUE(hsm_->UseStableHandles(*owner_, kHandleKey).ok());
  ASSERT_TRUE(hsm_->UseStableHandles(*second_, kHandleKey).ok());
  CK_OBJECT_HANDLE key = TokenKey(*owner_, LoggedIn(*owner_));
  EXPECT_GT(key, 0xffffffffu) << "stable handles use the whole 64 bits";
  // `second_` never found the key: the handle alone names it.
  CK_SESSION_HANDLE other = LoggedIn(*second_);
  EXPECT_EQ(SignWith(*second_, other, key), CKR_OK);
  // ... and FindObjects there gives the same handle.
  auto found = hsm_->FindObjects(*second_, other, {{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)}}, 0);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, std::vector<CK_OBJECT_HANDLE>{key});
}

TEST_F(HsmFailoverTest, StableHandlesStillNeedTheLoginAndTheKey) {
  ASSERT_TRUE(hsm_->UseStableHandles(*owner_, kHandleKey).ok());
  CK_OBJECT_HANDLE key = TokenKey(*owner_, LoggedIn(*owner_));
  // Same key, no login: the private key does not exist for it.
  ASSERT_TRUE(hsm_->UseStableHandles(*second_, kHandleKey).ok());
  EXPECT_EQ(SignWith(*second_, Session(*second_), key), CKR_OBJECT_HANDLE_INVALID);
  // Another key, logged in: the handle names nothing.
  auto third = Peer();
  ASSERT_TRUE(hsm_->UseStableHandles(*third, Bytes(32, 0x01)).ok());
  EXPECT_EQ(SignWith(*third, LoggedIn(*third), key), CKR_OBJECT_HANDLE_INVALID);
  // No key at all (the default): likewise.
  EXPECT_EQ(SignWith(*admin_, LoggedIn(*admin_), key), CKR_OBJECT_HANDLE_INVALID);
}

TEST_F(HsmFailoverTest, TheHandleKeyIsSetOnce) {
  EXPECT_EQ(Code(hsm_->UseStableHandles(*owner_, Bytes(16, 1))), CKR_ARGUMENTS_BAD);
  ASSERT_TRUE(hsm_->UseStableHandles(*owner_, kHandleKey).ok());
  EXPECT_EQ(Code(hsm_->UseStableHandles(*owner_, kHandleKey)), CKR_OK);
  EXPECT_EQ(Code(hsm_->UseStableHandles(*owner_, Bytes(32, 1))), CKR_ARGUMENTS_BAD);
}

TEST_F(HsmFailoverTest, ATicketLogsAnotherConnectionInWithoutThePin) {
  CK_SESSION_HANDLE s = LoggedIn(*owner_);
  auto ticket = hsm_->IssueLoginTicket(*owner_, s, CKU_USER, AsBytes(kUserPin));
  ASSERT_TRUE(ticket.ok()) << ticket.error().message;
  CK_SESSION_HANDLE other = Session(*second_);
  EXPECT_EQ(Code(hsm_->LoginWithTicket(*second_, other, CKU_SO, *ticket)), CKR_PIN_INCORRECT);
  ASSERT_EQ(Code(hsm_->LoginWithTicket(*second_, other, CKU_USER, *ticket)), CKR_OK);
  auto info = hsm_->GetSessionInfo(*second_, other);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->state, CKS_RW_USER_FUNCTIONS);
}

TEST_F(HsmFailoverTest, ABadTicketCountsNoPinFailure) {
  CK_SESSION_HANDLE s = LoggedIn(*owner_);
  auto ticket = hsm_->IssueLoginTicket(*owner_, s, CKU_USER, AsBytes(kUserPin));
  ASSERT_TRUE(ticket.ok());
  Bytes forged = *ticket;
  forged.back() ^= 1;
  CK_SESSION_HANDLE other = Session(*second_);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(Code(hsm_->LoginWithTicket(*second_, other, CKU_USER, forged)), CKR_PIN_INCORRECT);
  }
  EXPECT_EQ(hsm_->Slots()[0].flags & (CKF_USER_PIN_COUNT_LOW | CKF_USER_PIN_LOCKED), 0u);
}

TEST_F(HsmFailoverTest, TicketsUnderEitherKeyOpenWhileTheKeyRotates) {
  const SecureBytes old_key(32, 0x77);
  const SecureBytes new_key(32, 0x42);
  // reopen: the Hsm again with `keys`; returns a ticket it issues.
  auto reopen = [&](std::vector<SecureBytes> keys) {
    for (auto& c : peers_) hsm_->Disconnect(*c);
    peers_.clear();
    login_ticket_keys_ = std::move(keys);
    Limits limits;
    limits.login_delay_base = std::chrono::milliseconds(0);
    Open(limits);
    second_ = Peer();
    auto ticket = hsm_->IssueLoginTicket(*owner_, LoggedIn(*owner_), CKU_USER, AsBytes(kUserPin));
    EXPECT_TRUE(ticket.ok());
    return ticket.ok() ? *ticket : Bytes{};
  };
  // login_rv: a fresh connection's login with `ticket`.
  auto login_rv = [&](const Bytes& ticket) {
    auto c = Peer();
    return Code(hsm_->LoginWithTicket(*c, Session(*c), CKU_USER, ticket));
  };
  const Bytes sealed_before = reopen({old_key});
  const Bytes sealed_during = reopen({new_key, old_key});
  EXPECT_EQ(login_rv(sealed_before), CKR_OK);
  EXPECT_EQ(login_rv(sealed_during), CKR_OK);
  reopen({old_key});  // a node not yet given the new key
  EXPECT_EQ(login_rv(sealed_during), CKR_PIN_INCORRECT);
  reopen({new_key});  // the old key retired
  EXPECT_EQ(login_rv(sealed_before), CKR_PIN_INCORRECT);
  EXPECT_EQ(login_rv(sealed_during), CKR_OK);
}

TEST_F(HsmFailoverTest, TicketsFollowALoginAndNeedTheNodesKey) {
  CK_SESSION_HANDLE s = Session(*owner_);
  EXPECT_EQ(Code(hsm_->IssueLoginTicket(*owner_, s, CKU_USER, AsBytes(kUserPin))),
            CKR_USER_NOT_LOGGED_IN);
  for (auto& c : peers_) hsm_->Disconnect(*c);
  peers_.clear();
  login_ticket_keys_.clear();
  Open({});
  second_ = Peer();
  s = LoggedIn(*owner_);
  EXPECT_EQ(Code(hsm_->IssueLoginTicket(*owner_, s, CKU_USER, AsBytes(kUserPin))),
            CKR_FUNCTION_NOT_SUPPORTED);
  EXPECT_EQ(Code(hsm_->LoginWithTicket(*second_, Session(*second_), CKU_USER, Bytes(64, 0))),
            CKR_FUNCTION_NOT_SUPPORTED);
}

}  // namespace
}  // namespace signet::core

// PKCS#11 §4.4 / §5.6 ("Table: access to different types of objects by
// different types of sessions") and C_Logout (§5.6.4), without sockets:
// what each session state may do to each kind of object, with the code the
// specification names for each refusal, and what logging out does to
// private objects (issue 11, points 1 and 3).
#include <gtest/gtest.h>

#include <string>

#include "core/hsm_fixture_test_util.h"

namespace signet::core {
namespace {


Template DataObject(bool token, bool priv, std::string_view label) {
  return {{CKA_CLASS, UlongBytes(CKO_DATA)},
          {CKA_TOKEN, BoolBytes(token)},
          {CKA_PRIVATE, BoolBytes(priv)},
          {CKA_LABEL, Bytes(label.begin(), label.end())},
          {CKA_VALUE, Bytes(8, 0x5a)}};
}

class HsmSessionStatesTest : public HsmFixture {
 protected:
  // Found: the handles `c` finds for objects labelled `label`.
  std::vector<CK_OBJECT_HANDLE> Found(ClientState& c, CK_SESSION_HANDLE s, std::string_view label) {
    auto found = hsm_->FindObjects(c, s, {{CKA_LABEL, Bytes(label.begin(), label.end())}}, 0);
    EXPECT_TRUE(found.ok());
    return found.ok() ? *found : std::vector<CK_OBJECT_HANDLE>{};
  }
  CK_RV ReadLabel(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE o) {
    CK_RV overall = CKR_OK;
    return Code(hsm_->GetAttributeValue(c, s, o, {CKA_LABEL}, &overall));
  }
};

// Point 1: after C_Logout, private session objects are destroyed and every
// handle to a private object is invalid, also after the next login; public
// objects and their handles stay.
TEST_F(HsmSessionStatesTest, LogoutDestroysPrivateSessionObjectsAndInvalidatesPrivateHandles) {
  CK_SESSION_HANDLE s = LoggedIn(*owner_);
  auto priv_session = hsm_->CreateObject(*owner_, s, DataObject(false, true, "ps"));
  auto pub_session = hsm_->CreateObject(*owner_, s, DataObject(false, false, "us"));
  auto priv_token = hsm_->CreateObject(*owner_, s, DataObject(true, true, "pt"));
  auto pub_token = hsm_->CreateObject(*owner_, s, DataObject(true, false, "ut"));
  ASSERT_TRUE(priv_session.ok() && pub_session.ok() && priv_token.ok() && pub_token.ok());

  ASSERT_TRUE(hsm_->Logout(*owner_, s).ok());
  ASSERT_TRUE(hsm_->Login(*owner_, s, CKU_USER, AsBytes(kUserPin)).ok());

  EXPECT_EQ(ReadLabel(*owner_, s, *priv_session), CKR_OBJECT_HANDLE_INVALID);
  EXPECT_EQ(Code(hsm_->DestroyObject(*owner_, s, *priv_session)), CKR_OBJECT_HANDLE_INVALID);
  EXPECT_TRUE(Found(*owner_, s, "ps").empty()) << "the private session object was destroyed";
  EXPECT_EQ(ReadLabel(*owner_, s, *priv_token), CKR_OBJECT_HANDLE_INVALID);
  auto again = Found(*owner_, s, "pt");
  ASSERT_EQ(again.size(), 1u) << "the private token object itself stays";
  EXPECT_EQ(ReadLabel(*owner_, s, again[0]), CKR_OK);

  EXPECT_EQ(ReadLabel(*owner_, s, *pub_session), CKR_OK);
  EXPECT_EQ(ReadLabel(*owner_, s, *pub_token), CKR_OK);
}

// Closing the last session logs out: the private token handle dies with it.
TEST_F(HsmSessionStatesTest, ImplicitLogoutOnLastCloseInvalidatesPrivateTokenHandles) {
  CK_SESSION_HANDLE s = LoggedIn(*owner_);
  auto priv_token = hsm_->CreateObject(*owner_, s, DataObject(true, true, "pt"));
  ASSERT_TRUE(priv_token.ok());
  ASSERT_TRUE(hsm_->CloseSession(*owner_, s).ok());
  CK_SESSION_HANDLE s2 = LoggedIn(*owner_);
  EXPECT_EQ(ReadLabel(*owner_, s2, *priv_token), CKR_OBJECT_HANDLE_INVALID);
}

// The session-state table, one row per state. `public_token_write` is what
// this state gets when it creates, changes or destroys a public token
// object: the specification's CKR_OK for a R/W public session is signet's
// CKR_USER_NOT_LOGGED_IN (docs/PKCS11.md, deviations), unless the token is
// in --public-rw-compat.
struct StateRow {
  const char* name;
  CK_FLAGS flags;
  std::optional<CK_USER_TYPE> login;
  CK_RV private_session_create;
  CK_RV public_token_write;
  CK_RV private_token_write;
  bool sees_private;
};

void PrintTo(const StateRow& row, std::ostream* os) { *os << row.name; }

class SessionStateTable : public HsmSessionStatesTest,
                          public ::testing::WithParamInterface<std::pair<StateRow, bool>> {};

TEST_P(SessionStateTable, EachObjectKindGetsTheSpecifiedAnswer) {
  const auto& [row, compat] = GetParam();
  if (compat) Open({}, {serial_});
  // The owner's token objects, one public and one private.
  CK_SESSION_HANDLE os = LoggedIn(*owner_);
  ASSERT_TRUE(hsm_->CreateObject(*owner_, os, DataObject(true, false, "pub-token")).ok());
  ASSERT_TRUE(hsm_->CreateObject(*owner_, os, DataObject(true, true, "priv-token")).ok());
  ASSERT_TRUE(hsm_->CloseSession(*owner_, os).ok());  // the SO cannot log in beside a user

  auto c = hsm_->NewClient();
  c->peer_identity = "uid=1000";
  CK_SESSION_HANDLE s = row.login ? LoggedIn(*c, *row.login, row.flags) : Session(*c, row.flags);
  SCOPED_TRACE(row.name);

  // Public session objects: read/write in every state.
  auto pub_session = hsm_->CreateObject(*c, s, DataObject(false, false, "pub-session"));
  ASSERT_EQ(Code(pub_session), CKR_OK);
  EXPECT_EQ(ReadLabel(*c, s, *pub_session), CKR_OK);
  EXPECT_EQ(Code(hsm_->SetAttributeValue(*c, s, *pub_session, {{CKA_LABEL, Bytes{'x'}}})), CKR_OK);
  EXPECT_EQ(Code(hsm_->DestroyObject(*c, s, *pub_session)), CKR_OK);

  // Private session objects: read/write for the user, absent otherwise.
  auto priv_session = hsm_->CreateObject(*c, s, DataObject(false, true, "priv-session"));
  EXPECT_EQ(Code(priv_session), row.private_session_create);
  if (priv_session.ok()) {
    EXPECT_EQ(Code(hsm_->SetAttributeValue(*c, s, *priv_session, {{CKA_LABEL, Bytes{'x'}}})),
              CKR_OK);
    EXPECT_EQ(Code(hsm_->DestroyObject(*c, s, *priv_session)), CKR_OK);
  }

  // Public token objects: readable by all, writable per the row.
  CK_RV pub_write = compat && row.public_token_write == CKR_USER_NOT_LOGGED_IN
                        ? CKR_OK
                        : row.public_token_write;
  auto pub = Found(*c, s, "pub-token");
  ASSERT_EQ(pub.size(), 1u);
  EXPECT_EQ(ReadLabel(*c, s, pub[0]), CKR_OK);
  EXPECT_EQ(Code(hsm_->CreateObject(*c, s, DataObject(true, false, "new-pub-token"))), pub_write);
  EXPECT_EQ(Code(hsm_->SetAttributeValue(*c, s, pub[0], {{CKA_LABEL, Bytes{'y'}}})), pub_write);
  EXPECT_EQ(Code(hsm_->CopyObject(*c, s, pub[0], {{CKA_LABEL, Bytes{'z'}}})), pub_write);

  // Private token objects: the user's only.
  EXPECT_EQ(Code(hsm_->CreateObject(*c, s, DataObject(true, true, "new-priv-token"))),
            row.private_token_write);
  auto priv = Found(*c, s, "priv-token");
  EXPECT_EQ(priv.size(), row.sees_private ? 1u : 0u);
  if (!priv.empty()) {
    EXPECT_EQ(ReadLabel(*c, s, priv[0]), CKR_OK);
    EXPECT_EQ(Code(hsm_->SetAttributeValue(*c, s, priv[0], {{CKA_LABEL, Bytes{'p'}}})),
              row.private_token_write);
    EXPECT_EQ(Code(hsm_->DestroyObject(*c, s, priv[0])), row.private_token_write);
  }
  EXPECT_EQ(Code(hsm_->DestroyObject(*c, s, pub[0])), pub_write);
  hsm_->Disconnect(*c);
}

constexpr CK_RV kOk = CKR_OK;
constexpr CK_RV kNoLogin = CKR_USER_NOT_LOGGED_IN;
constexpr CK_RV kReadOnly = CKR_SESSION_READ_ONLY;
const StateRow kRows[] = {
    {"R/O public", kRo, std::nullopt, kNoLogin, kReadOnly, kReadOnly, false},
    {"R/W public", kRw, std::nullopt, kNoLogin, kNoLogin, kNoLogin, false},
    {"R/O user", kRo, CKU_USER, kOk, kReadOnly, kReadOnly, true},
    {"R/W user", kRw, CKU_USER, kOk, kOk, kOk, true},
    {"R/W SO", kRw, CKU_SO, kNoLogin, kOk, kNoLogin, false},
};

std::vector<std::pair<StateRow, bool>> AllRows() {
  std::vector<std::pair<StateRow, bool>> out;
  for (bool compat : {false, true}) {
    for (const StateRow& row : kRows) out.emplace_back(row, compat);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(States, SessionStateTable, ::testing::ValuesIn(AllRows()),
                         [](const auto& row) {
                           std::string name = row.param.first.name;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name + (row.param.second ? "_compat" : "");
                         });

}  // namespace
}  // namespace signet::core

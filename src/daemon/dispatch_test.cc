// Every request type of the wire schema (the RequestBody union), dispatched
// in-process on a temp-dir Hsm: one scenario that succeeds and, where one
// is meaningful, one the Hsm must refuse. Each scenario checks the reply,
// the audit line and the route a connection would take (RouteFor).
//
// The suite is parameterised over EnumValuesRequestBody(), so a request type
// appended to the schema without a scenario here fails
// AllRequestTypes/DispatchEveryType.Succeeds/<Type>.
#include "daemon/dispatch.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "base/hex.h"
#include "daemon/dispatch_fixture_test_util.h"
#include "signet/version.hpp"

namespace signet::daemon {
namespace {

using core::kRo;
using core::kRw;
using core::kSoPin;
using core::kUserPin;

using Scenario = void (*)(DispatchFixture&);

// The owner's audit lines end with this (HsmFixture's token is slot 0).
const std::string kOwnerTail = " peer=unix:uid=1000,pid=42";

// ExpectOk: CKR_OK, an empty message, the route every request takes that is
// not a signature or GetStats, and no audit line unless `audit` is given.
void ExpectOk(const Ran& ran, const std::string& audit = "") {
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_EQ(ran.audit, audit);
}

void ExpectRefused(const Ran& ran, CK_RV rv, const std::string& audit = "") {
  EXPECT_EQ(ran.rv(), rv) << ran.message();
  EXPECT_FALSE(ran.message().empty()) << "an error reply carries a message";
  EXPECT_EQ(ran.response ? ran.response->body_type() : wire::ResponseBody::GetInfoResponse,
            wire::ResponseBody::NONE);
  EXPECT_EQ(ran.audit, audit);
  EXPECT_EQ(ran.route, Route::kWorker);
}

// ---------------------------------------------------------------- info, sessions

void GetInfoOk(DispatchFixture& t) {
  Ran ran =
      t.Run(RequestBody::GetInfoRequest, [](auto& fbb) { return wire::CreateGetInfoRequest(fbb); });
  ExpectOk(ran);
  EXPECT_EQ(ran.route, Route::kWorker);
  auto* info = ran.body<wire::GetInfoResponse>();
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->protocol_version(), proto::kProtocolVersion);
  ASSERT_NE(info->server_version(), nullptr);
  EXPECT_EQ(info->server_version()->str(), kVersionString);
  EXPECT_EQ(info->manufacturer()->str(), "signet");
  ASSERT_EQ(info->slots()->size(), 2u);  // token 0 and the free slot
  EXPECT_TRUE(info->slots()->Get(0)->token_present());
  EXPECT_EQ(info->slots()->Get(0)->label()->str(), "test");
  EXPECT_EQ(info->slots()->Get(0)->serial()->str(), t.serial_);
  EXPECT_EQ(info->slots()->Get(0)->min_pin_len(), core::kMinPinLen);
  EXPECT_FALSE(info->slots()->Get(1)->token_present());
  EXPECT_GT(info->mechanisms()->size(), 10u);
  ASSERT_NE(info->unavailable_tokens(), nullptr);
  EXPECT_EQ(info->unavailable_tokens()->size(), 0u);
}

void GetStatsOk(DispatchFixture& t) {
  Ran ran = t.Run(RequestBody::GetStatsRequest,
                  [](auto& fbb) { return wire::CreateGetStatsRequest(fbb); });
  ExpectOk(ran);
  EXPECT_EQ(ran.route, Route::kEventLoop);  // no crypto, no disk: no worker woken
  auto* stats = ran.body<wire::StatsResponse>();
  ASSERT_NE(stats, nullptr);
  EXPECT_EQ(stats->connections(), 3u);  // from the ServerView
  EXPECT_EQ(stats->workers(), 0u);      // no scheduler in the view
  ASSERT_NE(stats->phases(), nullptr);
  EXPECT_EQ(stats->phases()->size(), static_cast<std::size_t>(core::Phase::kCount));
  EXPECT_EQ(stats->pools()->size(), 0u);  // no key pool
}

void OpenSessionOk(DispatchFixture& t) {
  Ran ran = t.Run(RequestBody::OpenSessionRequest,
                  [](auto& fbb) { return wire::CreateOpenSessionRequest(fbb, 0, kRw); });
  ExpectOk(ran);
  EXPECT_EQ(ran.route, Route::kWorker);
  auto* session = ran.body<wire::SessionResponse>();
  ASSERT_NE(session, nullptr);
  auto info = t.hsm_->GetSessionInfo(*t.owner_, session->session());
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->state, CKS_RW_PUBLIC_SESSION);
}
void OpenSessionRefused(DispatchFixture& t) {
  ExpectRefused(t.Run(RequestBody::OpenSessionRequest,
                      [](auto& fbb) { return wire::CreateOpenSessionRequest(fbb, 99, kRw); }),
                CKR_SLOT_ID_INVALID);
  ExpectRefused(t.Run(RequestBody::OpenSessionRequest,
                      [](auto& fbb) { return wire::CreateOpenSessionRequest(fbb, 0, 0); }),
                CKR_SESSION_PARALLEL_NOT_SUPPORTED);
}

void CloseSessionOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  Ran ran = t.Run(RequestBody::CloseSessionRequest,
                  [&](auto& fbb) { return wire::CreateCloseSessionRequest(fbb, s); });
  ExpectOk(ran);
  EXPECT_EQ(ran.response->body_type(), wire::ResponseBody::NONE);
  EXPECT_FALSE(t.hsm_->GetSessionInfo(*t.owner_, s).ok());
}
void CloseSessionRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  // Another connection's session handle means nothing on this one.
  ExpectRefused(
      t.Run(
          RequestBody::CloseSessionRequest,
          [&](auto& fbb) { return wire::CreateCloseSessionRequest(fbb, s); }, t.stranger_.get()),
      CKR_SESSION_HANDLE_INVALID);
  EXPECT_TRUE(t.hsm_->GetSessionInfo(*t.owner_, s).ok());
}

void CloseAllSessionsOk(DispatchFixture& t) {
  CK_SESSION_HANDLE a = t.Session(*t.owner_);
  CK_SESSION_HANDLE b = t.Session(*t.owner_, kRo);
  CK_SESSION_HANDLE other = t.Session(*t.stranger_);
  ExpectOk(t.Run(RequestBody::CloseAllSessionsRequest,
                 [](auto& fbb) { return wire::CreateCloseAllSessionsRequest(fbb, 0); }));
  EXPECT_FALSE(t.hsm_->GetSessionInfo(*t.owner_, a).ok());
  EXPECT_FALSE(t.hsm_->GetSessionInfo(*t.owner_, b).ok());
  EXPECT_TRUE(t.hsm_->GetSessionInfo(*t.stranger_, other).ok()) << "only this connection's";
}
void CloseAllSessionsRefused(DispatchFixture& t) {
  ExpectRefused(t.Run(RequestBody::CloseAllSessionsRequest,
                      [](auto& fbb) { return wire::CreateCloseAllSessionsRequest(fbb, 7); }),
                CKR_SLOT_ID_INVALID);
}

void GetSessionInfoOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  Ran ran = t.Run(RequestBody::GetSessionInfoRequest,
                  [&](auto& fbb) { return wire::CreateGetSessionInfoRequest(fbb, s); });
  ExpectOk(ran);
  auto* info = ran.body<wire::SessionInfoResponse>();
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->slot_id(), 0u);
  EXPECT_EQ(info->state(), CKS_RW_USER_FUNCTIONS);
  EXPECT_EQ(info->flags(), kRw);
  EXPECT_EQ(info->device_error(), 0u);
}
void GetSessionInfoRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  ExpectRefused(
      t.Run(
          RequestBody::GetSessionInfoRequest,
          [&](auto& fbb) { return wire::CreateGetSessionInfoRequest(fbb, s); }, t.stranger_.get()),
      CKR_SESSION_HANDLE_INVALID);
}

// ---------------------------------------------------------------- login, token, PINs

void LoginOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  Ran ran = t.Run(RequestBody::LoginRequest, [&](auto& fbb) {
    return wire::CreateLoginRequest(fbb, s, CKU_USER, t.Bytes(fbb, kUserPin));
  });
  ExpectOk(ran, "audit op=login user=user slot=0 result=CKR_OK" + kOwnerTail);
  EXPECT_EQ(ran.route, Route::kWorker);
  EXPECT_EQ(t.hsm_->GetSessionInfo(*t.owner_, s)->state, CKS_RW_USER_FUNCTIONS);
}
void LoginRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  Ran ran = t.Run(RequestBody::LoginRequest, [&](auto& fbb) {
    return wire::CreateLoginRequest(fbb, s, CKU_USER, t.Bytes(fbb, "wrong-pin-5678"));
  });
  ExpectRefused(ran, CKR_PIN_INCORRECT,
                "audit op=login user=user slot=0 result=CKR_PIN_INCORRECT" + kOwnerTail);
  EXPECT_EQ(ran.log.find("wrong-pin"), std::string::npos) << "a PIN reached the log";
}

void LogoutOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  ExpectOk(t.Run(RequestBody::LogoutRequest,
                 [&](auto& fbb) { return wire::CreateLogoutRequest(fbb, s); }),
           "audit op=logout slot=0 result=CKR_OK" + kOwnerTail);
  EXPECT_EQ(t.hsm_->GetSessionInfo(*t.owner_, s)->state, CKS_RW_PUBLIC_SESSION);
}
void LogoutRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  ExpectRefused(t.Run(RequestBody::LogoutRequest,
                      [&](auto& fbb) { return wire::CreateLogoutRequest(fbb, s); }),
                CKR_USER_NOT_LOGGED_IN,
                "audit op=logout slot=0 result=CKR_USER_NOT_LOGGED_IN" + kOwnerTail);
}

void InitTokenOk(DispatchFixture& t) {
  // On the free slot (1), by an admin connection: a new token.
  Ran ran = t.Run(
      RequestBody::InitTokenRequest,
      [&](auto& fbb) {
        return wire::CreateInitTokenRequest(fbb, 1, t.Bytes(fbb, "second-so-pin"),
                                            fbb.CreateString("second"),
                                            t.Bytes(fbb, "second-user-pin"));
      },
      t.admin_.get());
  ExpectOk(ran, "audit op=init_token slot=1 label=\"second\" result=CKR_OK peer=unix:uid=0,pid=1");
  auto* made = ran.body<wire::InitTokenResponse>();
  ASSERT_NE(made, nullptr);
  EXPECT_EQ(made->slot_id(), 1u);
  EXPECT_EQ(made->serial()->size(), 16u);
  ASSERT_EQ(t.hsm_->Slots().size(), 3u);
  EXPECT_EQ(t.hsm_->Slots()[1].label, "second");
  EXPECT_EQ(ran.log.find("pin"), std::string::npos) << ran.log;
}
void InitTokenRefused(DispatchFixture& t) {
  // A connection that is not an admin may not create a token.
  Ran ran = t.Run(RequestBody::InitTokenRequest, [&](auto& fbb) {
    return wire::CreateInitTokenRequest(fbb, 1, t.Bytes(fbb, "second-so-pin"),
                                        fbb.CreateString("second"));
  });
  ExpectRefused(
      ran, CKR_TOKEN_WRITE_PROTECTED,
      "audit op=init_token slot=1 label=\"second\" result=CKR_TOKEN_WRITE_PROTECTED" + kOwnerTail);
  EXPECT_EQ(t.hsm_->Slots().size(), 2u);
}

void InitPinOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_, CKU_SO);
  ExpectOk(t.Run(RequestBody::InitPinRequest,
                 [&](auto& fbb) {
                   return wire::CreateInitPinRequest(fbb, s, t.Bytes(fbb, "fresh-user-pin"));
                 }),
           "audit op=init_pin slot=0 result=CKR_OK" + kOwnerTail);
  ASSERT_TRUE(t.hsm_->Logout(*t.owner_, s).ok());
  Status login = t.hsm_->Login(*t.owner_, s, CKU_USER, AsBytes("fresh-user-pin"));
  EXPECT_TRUE(login.ok()) << login.error().message;
}
void InitPinRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_, CKU_USER);  // the user, not the SO
  ExpectRefused(t.Run(RequestBody::InitPinRequest,
                      [&](auto& fbb) {
                        return wire::CreateInitPinRequest(fbb, s, t.Bytes(fbb, "fresh-user-pin"));
                      }),
                CKR_USER_NOT_LOGGED_IN,
                "audit op=init_pin slot=0 result=CKR_USER_NOT_LOGGED_IN" + kOwnerTail);
}

void SetPinOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  ExpectOk(t.Run(RequestBody::SetPinRequest,
                 [&](auto& fbb) {
                   return wire::CreateSetPinRequest(fbb, s, t.Bytes(fbb, kUserPin),
                                                    t.Bytes(fbb, "changed-pin-1"));
                 }),
           "audit op=set_pin slot=0 result=CKR_OK" + kOwnerTail);
  CK_SESSION_HANDLE other = t.Session(*t.stranger_);
  EXPECT_TRUE(t.hsm_->Login(*t.stranger_, other, CKU_USER, AsBytes("changed-pin-1")).ok());
}
void SetPinRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  Ran ran = t.Run(RequestBody::SetPinRequest, [&](auto& fbb) {
    return wire::CreateSetPinRequest(fbb, s, t.Bytes(fbb, "not-the-old-pin"),
                                     t.Bytes(fbb, "changed-pin-1"));
  });
  ExpectRefused(ran, CKR_PIN_INCORRECT,
                "audit op=set_pin slot=0 result=CKR_PIN_INCORRECT" + kOwnerTail);
  EXPECT_EQ(ran.log.find("changed-pin"), std::string::npos);
}

// ---------------------------------------------------------------- objects

wire::ResponseBody BodyType(const Ran& ran) {
  return ran.response ? ran.response->body_type() : wire::ResponseBody::NONE;
}

void GenerateKeyPairOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  Ran ran = t.Run(RequestBody::GenerateKeyPairRequest, [&](auto& fbb) {
    auto pub = t.Template(fbb, {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)},
                                {CKA_TOKEN, B(true)},
                                {CKA_LABEL, S("pair")}});
    auto priv = t.Template(fbb, {{CKA_TOKEN, B(true)}, {CKA_LABEL, S("pair")}, {CKA_ID, S("7")}});
    return wire::CreateGenerateKeyPairRequest(fbb, s, t.Mech(fbb, CKM_EC_KEY_PAIR_GEN), pub, priv,
                                              /*unique_label=*/true);
  });
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_TRUE(ran.audit.starts_with("audit op=generate_key_pair slot=0 mechanism=")) << ran.audit;
  EXPECT_NE(ran.audit.find(" unique_label=1 private_label=\"pair\" private_id=\"7\" "
                           "public_label=\"pair\" result=CKR_OK" +
                           kOwnerTail),
            std::string::npos)
      << ran.audit;
  auto* pair = ran.body<wire::KeyPairResponse>();
  ASSERT_NE(pair, nullptr);
  EXPECT_NE(pair->public_key(), pair->private_key());
  EXPECT_TRUE(t.Exists(s, pair->private_key()));
}
void GenerateKeyPairRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);  // not logged in: no private token key
  Ran ran = t.Run(RequestBody::GenerateKeyPairRequest, [&](auto& fbb) {
    auto pub = t.Template(fbb, {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)},
                                {CKA_TOKEN, B(true)}});
    auto priv = t.Template(fbb, {{CKA_TOKEN, B(true)}});
    return wire::CreateGenerateKeyPairRequest(fbb, s, t.Mech(fbb, CKM_EC_KEY_PAIR_GEN), pub, priv);
  });
  EXPECT_EQ(ran.rv(), CKR_USER_NOT_LOGGED_IN) << ran.message();
  EXPECT_NE(ran.audit.find("op=generate_key_pair slot=0 "), std::string::npos) << ran.audit;
  EXPECT_NE(ran.audit.find(" result=CKR_USER_NOT_LOGGED_IN" + kOwnerTail), std::string::npos)
      << ran.audit;
}

void GenerateKeyOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  Ran ran = t.Run(RequestBody::GenerateKeyRequest, [&](auto& fbb) {
    return wire::CreateGenerateKeyRequest(
        fbb, s, t.Mech(fbb, CKM_AES_KEY_GEN),
        t.Template(fbb, {{CKA_VALUE_LEN, U(32)}, {CKA_LABEL, S("aes")}, {CKA_TOKEN, B(true)}}));
  });
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_EQ(BodyType(ran), wire::ResponseBody::ObjectResponse);
  EXPECT_TRUE(ran.audit.starts_with("audit op=generate_key slot=0 mechanism=")) << ran.audit;
  EXPECT_NE(ran.audit.find(" label=\"aes\" result=CKR_OK" + kOwnerTail), std::string::npos)
      << ran.audit;
  ASSERT_NE(ran.body<wire::ObjectResponse>(), nullptr);
  EXPECT_TRUE(t.Exists(s, ran.body<wire::ObjectResponse>()->object()));
}
void GenerateKeyRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_, kRo);  // a token key in a read-only session
  Ran ran = t.Run(RequestBody::GenerateKeyRequest, [&](auto& fbb) {
    return wire::CreateGenerateKeyRequest(
        fbb, s, t.Mech(fbb, CKM_AES_KEY_GEN),
        t.Template(fbb, {{CKA_VALUE_LEN, U(32)}, {CKA_TOKEN, B(true)}}));
  });
  EXPECT_NE(ran.rv(), CKR_OK);
  EXPECT_EQ(BodyType(ran), wire::ResponseBody::NONE);
  EXPECT_TRUE(ran.audit.starts_with("audit op=generate_key slot=0 ")) << ran.audit;
  EXPECT_EQ(ran.audit.find("result=CKR_OK"), std::string::npos) << ran.audit;
}

void CreateObjectOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  Ran ran = t.Run(RequestBody::CreateObjectRequest, [&](auto& fbb) {
    return wire::CreateCreateObjectRequest(fbb, s,
                                           t.Template(fbb, {{CKA_CLASS, U(CKO_DATA)},
                                                            {CKA_LABEL, S("note")},
                                                            {CKA_VALUE, S("value-never-logged")}}));
  });
  ExpectOk(ran,
           "audit op=create_object slot=0 class=0x0 label=\"note\" result=CKR_OK" + kOwnerTail);
  ASSERT_NE(ran.body<wire::ObjectResponse>(), nullptr);
  EXPECT_TRUE(t.Exists(s, ran.body<wire::ObjectResponse>()->object()));
  EXPECT_EQ(ran.log.find("never-logged"), std::string::npos);
}
void CreateObjectRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  ExpectRefused(t.Run(RequestBody::CreateObjectRequest,
                      [&](auto& fbb) {
                        return wire::CreateCreateObjectRequest(
                            fbb, s, t.Template(fbb, {{CKA_LABEL, S("classless")}}));
                      }),
                CKR_TEMPLATE_INCOMPLETE,
                "audit op=create_object slot=0 label=\"classless\" result=CKR_TEMPLATE_INCOMPLETE" +
                    kOwnerTail);
}

void CopyObjectOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE original = t.DataObject(s);
  Ran ran = t.Run(RequestBody::CopyObjectRequest, [&](auto& fbb) {
    return wire::CreateCopyObjectRequest(fbb, s, original,
                                         t.Template(fbb, {{CKA_LABEL, S("copy")}}));
  });
  ExpectOk(ran, "audit op=copy_object slot=0 object=" + HexNumber(original) +
                    " new_label=\"copy\" result=CKR_OK" + kOwnerTail);
  ASSERT_NE(ran.body<wire::ObjectResponse>(), nullptr);
  EXPECT_NE(ran.body<wire::ObjectResponse>()->object(), original);
}
void CopyObjectRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  ExpectRefused(
      t.Run(RequestBody::CopyObjectRequest,
            [&](auto& fbb) { return wire::CreateCopyObjectRequest(fbb, s, 0x1234); }),
      CKR_OBJECT_HANDLE_INVALID,
      "audit op=copy_object slot=0 object=0x1234 result=CKR_OBJECT_HANDLE_INVALID" + kOwnerTail);
}

void DestroyObjectOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE object = t.DataObject(s);
  Ran ran = t.Run(RequestBody::DestroyObjectRequest,
                  [&](auto& fbb) { return wire::CreateDestroyObjectRequest(fbb, s, object); });
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_TRUE(ran.audit.starts_with("audit op=destroy_object slot=0 object=0x")) << ran.audit;
  EXPECT_FALSE(t.Exists(s, object));
}
void DestroyObjectRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE object = t.DataObject(s);
  CK_SESSION_HANDLE other = t.Session(*t.stranger_);
  // Another connection cannot name this connection's session object.
  ExpectRefused(
      t.Run(
          RequestBody::DestroyObjectRequest,
          [&](auto& fbb) { return wire::CreateDestroyObjectRequest(fbb, other, object); },
          t.stranger_.get()),
      CKR_OBJECT_HANDLE_INVALID,
      "audit op=destroy_object slot=0 object=" + HexNumber(object) +
          " result=CKR_OBJECT_HANDLE_INVALID peer=unix:uid=2000,pid=43");
  EXPECT_TRUE(t.Exists(s, object));
}

void CreateObjectsOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  Ran ran = t.Run(RequestBody::CreateObjectsRequest, [&](auto& fbb) {
    std::vector<fb::Offset<wire::ObjectTemplate>> templates = {
        wire::CreateObjectTemplate(fbb, t.Template(fbb, {{CKA_CLASS, U(CKO_DATA)},
                                                         {CKA_TOKEN, B(true)},
                                                         {CKA_LABEL, S("both")}})),
        wire::CreateObjectTemplate(fbb, t.Template(fbb, {{CKA_CLASS, U(CKO_DATA)},
                                                         {CKA_TOKEN, B(true)},
                                                         {CKA_LABEL, S("both")}}))};
    return wire::CreateCreateObjectsRequest(fbb, s, fbb.CreateVector(templates), false);
  });
  ExpectOk(ran,
           "audit op=create_objects slot=0 object0_class=0x0 object0_label=\"both\" "
           "object1_class=0x0 object1_label=\"both\" result=CKR_OK" +
               kOwnerTail);
  auto* made = ran.body<wire::ObjectsResponse>();
  ASSERT_NE(made, nullptr);
  ASSERT_EQ(made->objects()->size(), 2u);
  EXPECT_TRUE(t.Exists(s, made->objects()->Get(0)));
  EXPECT_TRUE(t.Exists(s, made->objects()->Get(1)));
}
void CreateObjectsRefused(DispatchFixture& t) {
  // Token objects need a R/W session.
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_, CKU_USER, kRo);
  Ran ran = t.Run(RequestBody::CreateObjectsRequest, [&](auto& fbb) {
    std::vector<fb::Offset<wire::ObjectTemplate>> templates = {wire::CreateObjectTemplate(
        fbb,
        t.Template(fbb, {{CKA_CLASS, U(CKO_DATA)}, {CKA_TOKEN, B(true)}, {CKA_LABEL, S("ro")}}))};
    return wire::CreateCreateObjectsRequest(fbb, s, fbb.CreateVector(templates), true);
  });
  ExpectRefused(ran, CKR_SESSION_READ_ONLY,
                "audit op=create_objects slot=0 unique_label=1 object0_class=0x0 "
                "object0_label=\"ro\" result=CKR_SESSION_READ_ONLY" +
                    kOwnerTail);
}

void DestroyObjectsOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE a = t.DataObject(s, "a");
  CK_OBJECT_HANDLE b = t.DataObject(s, "b");
  Ran ran = t.Run(RequestBody::DestroyObjectsRequest, [&](auto& fbb) {
    std::vector<std::uint64_t> objects = {a, b};
    return wire::CreateDestroyObjectsRequest(fbb, s, fbb.CreateVector(objects));
  });
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_TRUE(ran.audit.starts_with("audit op=destroy_objects slot=0 objects=0x")) << ran.audit;
  EXPECT_NE(ran.audit.find(",0x"), std::string::npos) << ran.audit;
  EXPECT_FALSE(t.Exists(s, a));
  EXPECT_FALSE(t.Exists(s, b));
}
void DestroyObjectsRefused(DispatchFixture& t) {
  // One bad handle: nothing is destroyed (one transaction).
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE a = t.DataObject(s, "a");
  Ran ran = t.Run(RequestBody::DestroyObjectsRequest, [&](auto& fbb) {
    std::vector<std::uint64_t> objects = {a, 0x1234};
    return wire::CreateDestroyObjectsRequest(fbb, s, fbb.CreateVector(objects));
  });
  EXPECT_EQ(ran.rv(), CKR_OBJECT_HANDLE_INVALID) << ran.message();
  EXPECT_NE(ran.audit.find(",0x1234 result=CKR_OBJECT_HANDLE_INVALID" + kOwnerTail),
            std::string::npos)
      << ran.audit;
  EXPECT_TRUE(t.Exists(s, a));
}

void FindObjectsOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE wanted = t.DataObject(s, "wanted");
  t.DataObject(s, "other");
  Ran ran = t.Run(RequestBody::FindObjectsRequest, [&](auto& fbb) {
    return wire::CreateFindObjectsRequest(fbb, s, t.Template(fbb, {{CKA_LABEL, S("wanted")}}));
  });
  ExpectOk(ran);
  auto* found = ran.body<wire::FindObjectsResponse>();
  ASSERT_NE(found, nullptr);
  ASSERT_EQ(found->objects()->size(), 1u);
  EXPECT_EQ(found->objects()->Get(0), wanted);
}
void FindObjectsRefused(DispatchFixture& t) {
  ExpectRefused(t.Run(RequestBody::FindObjectsRequest,
                      [](auto& fbb) { return wire::CreateFindObjectsRequest(fbb, 0xdead); }),
                CKR_SESSION_HANDLE_INVALID);
}

void GetAttributeValueOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE object = t.DataObject(s, "read-me");
  Ran ran = t.Run(RequestBody::GetAttributeValueRequest, [&](auto& fbb) {
    std::vector<std::uint64_t> types = {CKA_LABEL, CKA_CLASS};
    return wire::CreateGetAttributeValueRequest(fbb, s, object, fbb.CreateVector(types));
  });
  ExpectOk(ran);
  auto* values = ran.body<wire::GetAttributeValueResponse>();
  ASSERT_NE(values, nullptr);
  ASSERT_EQ(values->values()->size(), 2u);
  auto* label = values->values()->Get(0);
  EXPECT_EQ(label->type(), CKA_LABEL);
  EXPECT_EQ(label->rv(), CKR_OK);
  EXPECT_EQ(std::string(label->value()->begin(), label->value()->end()), "read-me");
  EXPECT_EQ(std::vector<std::uint8_t>(values->values()->Get(1)->value()->begin(),
                                      values->values()->Get(1)->value()->end()),
            U(CKO_DATA));
}
void GetAttributeValueRefused(DispatchFixture& t) {
  // PKCS#11 §5.7: a sensitive value is withheld, the others answered, and
  // the reply carries its body with CKR_ATTRIBUTE_SENSITIVE.
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  auto [pub, priv] = t.EcPair(s);
  Ran ran = t.Run(RequestBody::GetAttributeValueRequest, [&](auto& fbb) {
    std::vector<std::uint64_t> types = {CKA_LABEL, CKA_VALUE, 0x7fff0000};
    return wire::CreateGetAttributeValueRequest(fbb, s, priv, fbb.CreateVector(types));
  });
  EXPECT_EQ(ran.rv(), CKR_ATTRIBUTE_SENSITIVE);
  auto* values = ran.body<wire::GetAttributeValueResponse>();
  ASSERT_NE(values, nullptr);
  ASSERT_EQ(values->values()->size(), 3u);
  EXPECT_EQ(values->values()->Get(0)->rv(), CKR_OK);
  EXPECT_EQ(values->values()->Get(1)->rv(), CKR_ATTRIBUTE_SENSITIVE);
  EXPECT_EQ(values->values()->Get(1)->value(), nullptr);
  EXPECT_EQ(values->values()->Get(2)->rv(), CKR_ATTRIBUTE_TYPE_INVALID);
}

void SetAttributeValueOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE object = t.DataObject(s, "before");
  Ran ran = t.Run(RequestBody::SetAttributeValueRequest, [&](auto& fbb) {
    return wire::CreateSetAttributeValueRequest(fbb, s, object,
                                                t.Template(fbb, {{CKA_LABEL, S("after")}}));
  });
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_TRUE(ran.audit.starts_with("audit op=set_attribute_value slot=0 object=0x")) << ran.audit;
  EXPECT_NE(ran.audit.find(" new_label=\"after\" result=CKR_OK"), std::string::npos) << ran.audit;
}
void SetAttributeValueRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE object = t.DataObject(s);
  Ran ran = t.Run(RequestBody::SetAttributeValueRequest, [&](auto& fbb) {
    return wire::CreateSetAttributeValueRequest(fbb, s, object,
                                                t.Template(fbb, {{CKA_CLASS, U(CKO_SECRET_KEY)}}));
  });
  EXPECT_EQ(ran.rv(), CKR_ATTRIBUTE_READ_ONLY) << ran.message();
  EXPECT_NE(ran.audit.find(" new_class=0x4 result=CKR_ATTRIBUTE_READ_ONLY"), std::string::npos)
      << ran.audit;
}

// ---------------------------------------------------------------- crypto

const std::vector<std::uint8_t> kMessage = S("message to sign");

std::vector<std::uint8_t> SignOnce(DispatchFixture& t, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key) {
  auto sig = t.hsm_->Sign(*t.owner_, s, key, signet::Mechanism{CKM_ECDSA_SHA256, {}, {}}, kMessage);
  EXPECT_TRUE(sig.ok());
  return sig.ok() ? *sig : std::vector<std::uint8_t>{};
}

void SignOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  auto [pub, priv] = t.EcPair(s);
  Ran ran = t.Run(RequestBody::SignRequest, [&](auto& fbb) {
    return wire::CreateSignRequest(fbb, s, priv, t.Mech(fbb, CKM_ECDSA_SHA256),
                                   fbb.CreateVector(kMessage));
  });
  ExpectOk(ran);  // signatures are not audited one by one
  // A fresh connection has no signature time yet: a worker signs.
  EXPECT_EQ(ran.route, Route::kWorker);
  auto* data = ran.body<wire::DataResponse>();
  ASSERT_NE(data, nullptr);
  std::vector<std::uint8_t> signature(data->data()->begin(), data->data()->end());
  EXPECT_EQ(signature.size(), 64u);  // P-256 r||s
  EXPECT_TRUE(t.hsm_
                  ->Verify(*t.owner_, s, pub, signet::Mechanism{CKM_ECDSA_SHA256, {}, {}}, kMessage,
                           signature)
                  .ok());
}
void SignRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  auto [pub, priv] = t.EcPair(s);
  // A public key cannot sign (PKCS#11 C_SignInit: CKR_KEY_TYPE_INCONSISTENT).
  ExpectRefused(t.Run(RequestBody::SignRequest,
                      [&](auto& fbb) {
                        return wire::CreateSignRequest(fbb, s, pub, t.Mech(fbb, CKM_ECDSA_SHA256),
                                                       fbb.CreateVector(kMessage));
                      }),
                CKR_KEY_TYPE_INCONSISTENT);
  // After logout the private key cannot be used.
  ASSERT_TRUE(t.hsm_->Logout(*t.owner_, s).ok());
  Ran ran = t.Run(RequestBody::SignRequest, [&](auto& fbb) {
    return wire::CreateSignRequest(fbb, s, priv, t.Mech(fbb, CKM_ECDSA_SHA256),
                                   fbb.CreateVector(kMessage));
  });
  EXPECT_NE(ran.rv(), CKR_OK);
  EXPECT_EQ(BodyType(ran), wire::ResponseBody::NONE);
}

void SignBatchOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  auto [pub, priv] = t.EcPair(s);
  Ran ran = t.Run(RequestBody::SignBatchRequest, [&](auto& fbb) {
    std::vector<fb::Offset<wire::Blob>> inputs;
    for (const char* text : {"one", "two", "three"}) {
      inputs.push_back(wire::CreateBlob(fbb, t.Bytes(fbb, text)));
    }
    return wire::CreateSignBatchRequest(fbb, s, priv, t.Mech(fbb, CKM_ECDSA_SHA256),
                                        fbb.CreateVector(inputs));
  });
  ExpectOk(ran);
  EXPECT_EQ(ran.route, Route::kWorker);
  EXPECT_EQ(ran.reply_bound, 3 * 544 + 256u);
  auto* results = ran.body<wire::SignBatchResponse>();
  ASSERT_NE(results, nullptr);
  ASSERT_EQ(results->results()->size(), 3u);
  const char* texts[] = {"one", "two", "three"};
  for (std::size_t i = 0; i < 3; ++i) {
    auto* result = results->results()->Get(i);
    EXPECT_EQ(result->rv(), CKR_OK);
    std::vector<std::uint8_t> signature(result->data()->begin(), result->data()->end());
    EXPECT_TRUE(t.hsm_
                    ->Verify(*t.owner_, s, pub, signet::Mechanism{CKM_ECDSA_SHA256, {}, {}},
                             S(texts[i]), signature)
                    .ok())
        << i;
  }
}
void SignBatchRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  auto [pub, priv] = t.EcPair(s);
  Ran ran = t.Run(RequestBody::SignBatchRequest, [&](auto& fbb) {
    std::vector<fb::Offset<wire::Blob>> inputs(kMaxSignBatchInputs + 1,
                                               wire::CreateBlob(fbb, t.Bytes(fbb, "x")));
    return wire::CreateSignBatchRequest(fbb, s, priv, t.Mech(fbb, CKM_ECDSA_SHA256),
                                        fbb.CreateVector(inputs));
  });
  ExpectRefused(ran, CKR_ARGUMENTS_BAD);
  EXPECT_NE(ran.message().find("at most 1024 inputs (got 1025)"), std::string::npos)
      << ran.message();
}

void VerifyOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  auto [pub, priv] = t.EcPair(s);
  std::vector<std::uint8_t> signature = SignOnce(t, s, priv);
  Ran ran = t.Run(RequestBody::VerifyRequest, [&](auto& fbb) {
    return wire::CreateVerifyRequest(fbb, s, pub, t.Mech(fbb, CKM_ECDSA_SHA256),
                                     fbb.CreateVector(kMessage), fbb.CreateVector(signature));
  });
  ExpectOk(ran);
  EXPECT_EQ(BodyType(ran), wire::ResponseBody::NONE);
}
void VerifyRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  auto [pub, priv] = t.EcPair(s);
  std::vector<std::uint8_t> signature = SignOnce(t, s, priv);
  signature[5] ^= 1;
  ExpectRefused(t.Run(RequestBody::VerifyRequest,
                      [&](auto& fbb) {
                        return wire::CreateVerifyRequest(fbb, s, pub, t.Mech(fbb, CKM_ECDSA_SHA256),
                                                         fbb.CreateVector(kMessage),
                                                         fbb.CreateVector(signature));
                      }),
                CKR_SIGNATURE_INVALID);
}

void DigestOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  Ran ran = t.Run(RequestBody::DigestRequest, [&](auto& fbb) {
    return wire::CreateDigestRequest(fbb, s, t.Mech(fbb, CKM_SHA256), t.Bytes(fbb, "abc"));
  });
  ExpectOk(ran);
  EXPECT_EQ(ran.reply_bound, 3 + 64 + 256u);
  auto* data = ran.body<wire::DataResponse>();
  ASSERT_NE(data, nullptr);
  // FIPS 180-2 appendix B.1: SHA-256("abc").
  const std::vector<std::uint8_t> expected = {0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
                                              0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
                                              0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
                                              0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad};
  EXPECT_EQ(std::vector<std::uint8_t>(data->data()->begin(), data->data()->end()), expected);
}
void DigestRefused(DispatchFixture& t) {
  // No mechanism at all: type 0, which no mechanism has.
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  ExpectRefused(
      t.Run(RequestBody::DigestRequest,
            [&](auto& fbb) { return wire::CreateDigestRequest(fbb, s, 0, t.Bytes(fbb, "abc")); }),
      CKR_MECHANISM_INVALID);
}

void EncryptOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE key = t.AesKey(s);
  Ran ran = t.Run(RequestBody::EncryptRequest, [&](auto& fbb) {
    return wire::CreateEncryptRequest(fbb, s, key, t.Gcm(fbb, std::vector<std::uint8_t>(12, 1)),
                                      t.Bytes(fbb, "plaintext"));
  });
  ExpectOk(ran);
  auto* data = ran.body<wire::DataResponse>();
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->data()->size(), 9 + 16u);  // ciphertext || 128-bit tag
  auto plain = t.hsm_->Decrypt(
      *t.owner_, s, key,
      signet::Mechanism{
          CKM_AES_GCM, {}, signet::GcmParams{std::vector<std::uint8_t>(12, 1), S("aad"), 128}},
      std::vector<std::uint8_t>(data->data()->begin(), data->data()->end()));
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(*plain, S("plaintext"));
}
void EncryptRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE key = t.AesKey(s);
  ExpectRefused(t.Run(RequestBody::EncryptRequest,
                      [&](auto& fbb) {
                        return wire::CreateEncryptRequest(fbb, s, key, t.Mech(fbb, CKM_AES_GCM),
                                                          t.Bytes(fbb, "plaintext"));
                      }),
                CKR_MECHANISM_PARAM_INVALID);
}

std::vector<std::uint8_t> EncryptOnce(DispatchFixture& t, CK_SESSION_HANDLE s,
                                      CK_OBJECT_HANDLE key) {
  auto ct = t.hsm_->Encrypt(
      *t.owner_, s, key,
      signet::Mechanism{
          CKM_AES_GCM, {}, signet::GcmParams{std::vector<std::uint8_t>(12, 1), S("aad"), 128}},
      S("plaintext"));
  EXPECT_TRUE(ct.ok());
  return ct.ok() ? *ct : std::vector<std::uint8_t>{};
}

void DecryptOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE key = t.AesKey(s);
  std::vector<std::uint8_t> ciphertext = EncryptOnce(t, s, key);
  Ran ran = t.Run(RequestBody::DecryptRequest, [&](auto& fbb) {
    return wire::CreateDecryptRequest(fbb, s, key, t.Gcm(fbb, std::vector<std::uint8_t>(12, 1)),
                                      fbb.CreateVector(ciphertext));
  });
  ExpectOk(ran);
  auto* data = ran.body<wire::DataResponse>();
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(std::string(data->data()->begin(), data->data()->end()), "plaintext");
}
void DecryptRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE key = t.AesKey(s);
  std::vector<std::uint8_t> ciphertext = EncryptOnce(t, s, key);
  ciphertext.back() ^= 1;  // the tag no longer matches
  Ran ran = t.Run(RequestBody::DecryptRequest, [&](auto& fbb) {
    return wire::CreateDecryptRequest(fbb, s, key, t.Gcm(fbb, std::vector<std::uint8_t>(12, 1)),
                                      fbb.CreateVector(ciphertext));
  });
  EXPECT_NE(ran.rv(), CKR_OK);
  EXPECT_EQ(BodyType(ran), wire::ResponseBody::NONE);
  EXPECT_EQ(ran.message().find("plaintext"), std::string::npos);
}

void WrapKeyOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE wrapping = t.AesKey(s);
  auto [pub, priv] = t.EcPair(s, "wrap-me", /*token=*/false, /*extractable=*/true);
  Ran ran = t.Run(RequestBody::WrapKeyRequest, [&](auto& fbb) {
    return wire::CreateWrapKeyRequest(fbb, s, t.Mech(fbb, CKM_AES_KEY_WRAP_KWP), wrapping, priv);
  });
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_TRUE(ran.audit.starts_with("audit op=wrap_key slot=0 mechanism=")) << ran.audit;
  EXPECT_NE(ran.audit.find(" result=CKR_OK" + kOwnerTail), std::string::npos) << ran.audit;
  auto* data = ran.body<wire::DataResponse>();
  ASSERT_NE(data, nullptr);
  EXPECT_GT(data->data()->size(), 32u);
}
void WrapKeyRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE wrapping = t.AesKey(s);
  auto [pub, priv] = t.EcPair(s, "stay-inside", /*token=*/false, /*extractable=*/false);
  Ran ran = t.Run(RequestBody::WrapKeyRequest, [&](auto& fbb) {
    return wire::CreateWrapKeyRequest(fbb, s, t.Mech(fbb, CKM_AES_KEY_WRAP_KWP), wrapping, priv);
  });
  EXPECT_EQ(ran.rv(), CKR_KEY_UNEXTRACTABLE) << ran.message();
  EXPECT_NE(ran.audit.find(" result=CKR_KEY_UNEXTRACTABLE" + kOwnerTail), std::string::npos)
      << ran.audit;
}

void UnwrapKeyOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE wrapping = t.AesKey(s);
  auto [pub, priv] = t.EcPair(s, "wrap-me", /*token=*/false, /*extractable=*/true);
  auto wrapped = t.hsm_->WrapKey(*t.owner_, s, signet::Mechanism{CKM_AES_KEY_WRAP_KWP, {}, {}},
                                 wrapping, priv);
  ASSERT_TRUE(wrapped.ok()) << wrapped.error().message;
  Ran ran = t.Run(RequestBody::UnwrapKeyRequest, [&](auto& fbb) {
    return wire::CreateUnwrapKeyRequest(fbb, s, t.Mech(fbb, CKM_AES_KEY_WRAP_KWP), wrapping,
                                        fbb.CreateVector(*wrapped),
                                        t.Template(fbb, {{CKA_CLASS, U(CKO_PRIVATE_KEY)},
                                                         {CKA_KEY_TYPE, U(CKK_EC)},
                                                         {CKA_LABEL, S("unwrapped")}}));
  });
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_TRUE(ran.audit.starts_with("audit op=unwrap_key slot=0 mechanism=")) << ran.audit;
  EXPECT_NE(ran.audit.find(" class=0x3 key_type=0x3 label=\"unwrapped\" result=CKR_OK"),
            std::string::npos)
      << ran.audit;
  auto* object = ran.body<wire::ObjectResponse>();
  ASSERT_NE(object, nullptr);
  // The unwrapped key signs; its original public half verifies.
  std::vector<std::uint8_t> signature = SignOnce(t, s, object->object());
  EXPECT_TRUE(t.hsm_
                  ->Verify(*t.owner_, s, pub, signet::Mechanism{CKM_ECDSA_SHA256, {}, {}}, kMessage,
                           signature)
                  .ok());
}
void UnwrapKeyRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  CK_OBJECT_HANDLE wrapping = t.AesKey(s);
  Ran ran = t.Run(RequestBody::UnwrapKeyRequest, [&](auto& fbb) {
    return wire::CreateUnwrapKeyRequest(
        fbb, s, t.Mech(fbb, CKM_AES_KEY_WRAP_KWP), wrapping,
        fbb.CreateVector(std::vector<std::uint8_t>(40, 0x42)),
        t.Template(fbb, {{CKA_CLASS, U(CKO_PRIVATE_KEY)}, {CKA_KEY_TYPE, U(CKK_EC)}}));
  });
  EXPECT_NE(ran.rv(), CKR_OK);
  EXPECT_EQ(BodyType(ran), wire::ResponseBody::NONE);
  EXPECT_TRUE(ran.audit.starts_with("audit op=unwrap_key slot=0 ")) << ran.audit;
  EXPECT_EQ(ran.audit.find("result=CKR_OK"), std::string::npos) << ran.audit;
}

void GenerateRandomOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  Ran ran = t.Run(RequestBody::GenerateRandomRequest,
                  [&](auto& fbb) { return wire::CreateGenerateRandomRequest(fbb, s, 4096); });
  ExpectOk(ran);
  EXPECT_EQ(ran.reply_bound, 4096 + 256u);
  auto* data = ran.body<wire::DataResponse>();
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->data()->size(), 4096u);
}
void GenerateRandomRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  ExpectRefused(t.Run(RequestBody::GenerateRandomRequest,
                      [&](auto& fbb) { return wire::CreateGenerateRandomRequest(fbb, s, 65537); }),
                CKR_ARGUMENTS_BAD);
  ExpectRefused(t.Run(RequestBody::GenerateRandomRequest,
                      [&](auto& fbb) { return wire::CreateGenerateRandomRequest(fbb, 0xbad, 16); }),
                CKR_SESSION_HANDLE_INVALID);
}

void SeedRandomOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  ExpectOk(t.Run(RequestBody::SeedRandomRequest, [&](auto& fbb) {
    return wire::CreateSeedRandomRequest(fbb, s, t.Bytes(fbb, "more entropy"));
  }));
}
void SeedRandomRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  ExpectRefused(t.Run(RequestBody::SeedRandomRequest,
                      [&](auto& fbb) {
                        return wire::CreateSeedRandomRequest(
                            fbb, s,
                            fbb.CreateVector(std::vector<std::uint8_t>(SIGNET_MAX_SEED_LEN + 1)));
                      }),
                CKR_ARGUMENTS_BAD);
}

// ---------------------------------------------------------------- the table

struct Scenarios {
  Scenario succeeds;
  Scenario refused;  // nullptr: nothing the Hsm could refuse
};

const std::map<RequestBody, Scenarios>& AllScenarios() {
  static const std::map<RequestBody, Scenarios> kScenarios = {
      {RequestBody::GetInfoRequest, {GetInfoOk, nullptr}},
      {RequestBody::OpenSessionRequest, {OpenSessionOk, OpenSessionRefused}},
      {RequestBody::CloseSessionRequest, {CloseSessionOk, CloseSessionRefused}},
      {RequestBody::CloseAllSessionsRequest, {CloseAllSessionsOk, CloseAllSessionsRefused}},
      {RequestBody::GetSessionInfoRequest, {GetSessionInfoOk, GetSessionInfoRefused}},
      {RequestBody::LoginRequest, {LoginOk, LoginRefused}},
      {RequestBody::LogoutRequest, {LogoutOk, LogoutRefused}},
      {RequestBody::InitTokenRequest, {InitTokenOk, InitTokenRefused}},
      {RequestBody::InitPinRequest, {InitPinOk, InitPinRefused}},
      {RequestBody::SetPinRequest, {SetPinOk, SetPinRefused}},
      {RequestBody::GenerateKeyPairRequest, {GenerateKeyPairOk, GenerateKeyPairRefused}},
      {RequestBody::GenerateKeyRequest, {GenerateKeyOk, GenerateKeyRefused}},
      {RequestBody::CreateObjectRequest, {CreateObjectOk, CreateObjectRefused}},
      {RequestBody::CopyObjectRequest, {CopyObjectOk, CopyObjectRefused}},
      {RequestBody::DestroyObjectRequest, {DestroyObjectOk, DestroyObjectRefused}},
      {RequestBody::FindObjectsRequest, {FindObjectsOk, FindObjectsRefused}},
      {RequestBody::GetAttributeValueRequest, {GetAttributeValueOk, GetAttributeValueRefused}},
      {RequestBody::SetAttributeValueRequest, {SetAttributeValueOk, SetAttributeValueRefused}},
      {RequestBody::SignRequest, {SignOk, SignRefused}},
      {RequestBody::SignBatchRequest, {SignBatchOk, SignBatchRefused}},
      {RequestBody::VerifyRequest, {VerifyOk, VerifyRefused}},
      {RequestBody::DigestRequest, {DigestOk, DigestRefused}},
      {RequestBody::EncryptRequest, {EncryptOk, EncryptRefused}},
      {RequestBody::DecryptRequest, {DecryptOk, DecryptRefused}},
      {RequestBody::WrapKeyRequest, {WrapKeyOk, WrapKeyRefused}},
      {RequestBody::UnwrapKeyRequest, {UnwrapKeyOk, UnwrapKeyRefused}},
      {RequestBody::GenerateRandomRequest, {GenerateRandomOk, GenerateRandomRefused}},
      {RequestBody::GetStatsRequest, {GetStatsOk, nullptr}},
      {RequestBody::CreateObjectsRequest, {CreateObjectsOk, CreateObjectsRefused}},
      {RequestBody::DestroyObjectsRequest, {DestroyObjectsOk, DestroyObjectsRefused}},
      {RequestBody::SeedRandomRequest, {SeedRandomOk, SeedRandomRefused}},
  };
  return kScenarios;
}

// EveryRequestType: the schema's union members, NONE excluded.
std::vector<RequestBody> EveryRequestType() {
  std::vector<RequestBody> types;
  for (RequestBody type : wire::EnumValuesRequestBody()) {
    if (type != RequestBody::NONE) types.push_back(type);
  }
  return types;
}

class DispatchEveryType : public DispatchFixture,
                          public ::testing::WithParamInterface<RequestBody> {};

TEST_P(DispatchEveryType, Succeeds) {
  auto found = AllScenarios().find(GetParam());
  ASSERT_NE(found, AllScenarios().end())
      << "no dispatch scenario for " << wire::EnumNameRequestBody(GetParam())
      << ": add one to src/daemon/dispatch_test.cc";
  found->second.succeeds(*this);
}

TEST_P(DispatchEveryType, RefusesWhatTheHsmRefuses) {
  auto found = AllScenarios().find(GetParam());
  ASSERT_NE(found, AllScenarios().end())
      << "no dispatch scenario for " << wire::EnumNameRequestBody(GetParam());
  if (found->second.refused == nullptr) {
    GTEST_SKIP() << wire::EnumNameRequestBody(GetParam()) << " has nothing to refuse";
  }
  found->second.refused(*this);
}

INSTANTIATE_TEST_SUITE_P(AllRequestTypes, DispatchEveryType,
                         ::testing::ValuesIn(EveryRequestType()),
                         [](const ::testing::TestParamInfo<RequestBody>& param) {
                           return std::string(wire::EnumNameRequestBody(param.param));
                         });

TEST(DispatchCoverage, TheSchemaHas31RequestTypesAndEachHasAScenario) {
  EXPECT_EQ(EveryRequestType().size(), 31u);
  EXPECT_EQ(AllScenarios().size(), EveryRequestType().size());
}

}  // namespace
}  // namespace signet::daemon

// The dispatch scenarios of the info, session, login, token and PIN request
// types (dispatch_test.cc runs them for every request type of the schema).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "daemon/dispatch_fixture_test_util.h"
#include "signet/version.hpp"

namespace signet::daemon {
namespace {

using core::kRo;
using core::kRw;
using core::kUserPin;

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

// AttachRing belongs to the Unix connection (Connection::AttachRing makes the
// ring and passes its memfd on the socket); Dispatch has no socket and
// refuses it on the event loop, so no other transport can ask for one.
void AttachRingIsTheConnections(DispatchFixture& t) {
  Ran ran = t.Run(RequestBody::AttachRingRequest,
                  [](auto& fbb) { return wire::CreateAttachRingRequest(fbb); });
  EXPECT_EQ(ran.rv(), CKR_FUNCTION_NOT_SUPPORTED);
  EXPECT_EQ(ran.route, Route::kEventLoop);
  EXPECT_EQ(ran.audit, "");
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

void LoginWithPinOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  Ran ran = t.Run(RequestBody::LoginRequest, [&](auto& fbb) {
    return wire::CreateLoginRequest(fbb, s, CKU_USER, t.Bytes(fbb, kUserPin));
  });
  ExpectOk(ran, "audit op=login user=user slot=0 result=CKR_OK" + kOwnerTail);
  EXPECT_EQ(ran.route, Route::kWorker);
  EXPECT_EQ(t.hsm_->GetSessionInfo(*t.owner_, s)->state, CKS_RW_USER_FUNCTIONS);
}
void LoginWithPinRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  Ran ran = t.Run(RequestBody::LoginRequest, [&](auto& fbb) {
    return wire::CreateLoginRequest(fbb, s, CKU_USER, t.Bytes(fbb, "wrong-pin-5678"));
  });
  ExpectRefused(ran, CKR_PIN_INCORRECT,
                "audit op=login user=user slot=0 result=CKR_PIN_INCORRECT" + kOwnerTail);
  EXPECT_EQ(ran.log.find("wrong-pin"), std::string::npos) << "a PIN reached the log";
}

// A login that asks for a ticket gets one from a node with the ticket key
// (dispatch_fixture_test_util.h gives the fixture's Hsm one); logging in
// by that ticket is audited as such.
void LoginByTicketOk(DispatchFixture& t) {
  std::shared_ptr<core::ClientState> issuer = t.Peer(), other_node = t.Peer();
  CK_SESSION_HANDLE s = t.Session(*issuer);
  Ran issued = t.Run(
      RequestBody::LoginRequest,
      [&](auto& fbb) {
        return wire::CreateLoginRequest(fbb, s, CKU_USER, t.Bytes(fbb, kUserPin), true);
      },
      issuer.get());
  ASSERT_EQ(issued.rv(), CKR_OK);
  ASSERT_EQ(issued.response->body_type(), wire::ResponseBody::DataResponse);
  auto* data = issued.response->body_as_DataResponse()->data();
  const std::string ticket(data->begin(), data->end());
  CK_SESSION_HANDLE other = t.Session(*other_node);
  Ran ran = t.Run(
      RequestBody::LoginRequest,
      [&](auto& fbb) {
        return wire::CreateLoginRequest(fbb, other, CKU_USER, 0, false, t.Bytes(fbb, ticket));
      },
      other_node.get());
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_NE(ran.audit.find("op=login user=user slot=0 by=ticket result=CKR_OK"), std::string::npos)
      << ran.audit;
}
void LoginByTicketRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  Ran ran = t.Run(RequestBody::LoginRequest, [&](auto& fbb) {
    return wire::CreateLoginRequest(fbb, s, CKU_USER, 0, false, t.Bytes(fbb, "not a ticket"));
  });
  ExpectRefused(ran, CKR_PIN_INCORRECT,
                "audit op=login user=user slot=0 by=ticket result=CKR_PIN_INCORRECT" + kOwnerTail);
}

void LoginOk(DispatchFixture& t) {
  LoginWithPinOk(t);
  LoginByTicketOk(t);
}
void LoginRefused(DispatchFixture& t) {
  LoginWithPinRefused(t);
  LoginByTicketRefused(t);
}

void UseStableHandlesOk(DispatchFixture& t) {
  Ran ran = t.Run(RequestBody::UseStableHandlesRequest, [&](auto& fbb) {
    return wire::CreateUseStableHandlesRequest(fbb, t.Bytes(fbb, std::string(32, 'k')));
  });
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
}
void UseStableHandlesRefused(DispatchFixture& t) {
  Ran ran = t.Run(RequestBody::UseStableHandlesRequest, [&](auto& fbb) {
    return wire::CreateUseStableHandlesRequest(fbb, t.Bytes(fbb, "short"));
  });
  EXPECT_EQ(ran.rv(), CKR_ARGUMENTS_BAD);
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

}  // namespace

ScenarioTable SessionScenarios() {
  return {
      {RequestBody::GetInfoRequest, {GetInfoOk, nullptr}},
      {RequestBody::OpenSessionRequest, {OpenSessionOk, OpenSessionRefused}},
      {RequestBody::CloseSessionRequest, {CloseSessionOk, CloseSessionRefused}},
      {RequestBody::CloseAllSessionsRequest, {CloseAllSessionsOk, CloseAllSessionsRefused}},
      {RequestBody::GetSessionInfoRequest, {GetSessionInfoOk, GetSessionInfoRefused}},
      {RequestBody::LoginRequest, {LoginOk, LoginRefused}},
      {RequestBody::UseStableHandlesRequest, {UseStableHandlesOk, UseStableHandlesRefused}},
      {RequestBody::LogoutRequest, {LogoutOk, LogoutRefused}},
      {RequestBody::InitTokenRequest, {InitTokenOk, InitTokenRefused}},
      {RequestBody::InitPinRequest, {InitPinOk, InitPinRefused}},
      {RequestBody::SetPinRequest, {SetPinOk, SetPinRefused}},
      {RequestBody::GetStatsRequest, {GetStatsOk, nullptr}},
      {RequestBody::AttachRingRequest, {AttachRingIsTheConnections, nullptr}},
  };
}

}  // namespace signet::daemon

// Send* for the info, session, login and token/PIN operations.
#include "client/client_impl.h"
#include "client/decode.h"
#include "client/encode.h"

namespace signet::client {

using wire::RequestBody;

Result<Pending<ServerInfo>> Client::SendGetInfo() {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto body = wire::CreateGetInfoRequest(fbb);
  return request.Enqueue(RequestBody::GetInfoRequest, body.Union(), DecodeInfo);
}

Result<Pending<Handle>> Client::SendOpenSession(CK_SLOT_ID slot, CK_FLAGS flags) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto body = wire::CreateOpenSessionRequest(fbb, slot, flags);
  return request.Enqueue(RequestBody::OpenSessionRequest, body.Union(), DecodeSession);
}

Result<Pending<void>> Client::SendCloseSession(Handle session) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto body = wire::CreateCloseSessionRequest(fbb, session);
  return request.Enqueue(RequestBody::CloseSessionRequest, body.Union(), DecodeStatus);
}

Result<Pending<void>> Client::SendCloseAllSessions(CK_SLOT_ID slot) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto body = wire::CreateCloseAllSessionsRequest(fbb, slot);
  return request.Enqueue(RequestBody::CloseAllSessionsRequest, body.Union(), DecodeStatus);
}

Result<Pending<SessionInfo>> Client::SendGetSessionInfo(Handle session) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto body = wire::CreateGetSessionInfoRequest(fbb, session);
  return request.Enqueue(RequestBody::GetSessionInfoRequest, body.Union(), DecodeSessionInfo);
}

Result<Pending<void>> Client::SendLogin(Handle session, CK_USER_TYPE user, ByteView pin) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto body = wire::CreateLoginRequest(fbb, session, user, EncodeBytes(fbb, pin));
  return request.Enqueue(RequestBody::LoginRequest, body.Union(), DecodeStatus, /*secret=*/true);
}

Result<Pending<Bytes>> Client::SendLoginForTicket(Handle session, CK_USER_TYPE user, ByteView pin) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto body = wire::CreateLoginRequest(fbb, session, user, EncodeBytes(fbb, pin),
                                       /*want_ticket=*/true);
  return request.Enqueue(RequestBody::LoginRequest, body.Union(), DecodeLoginTicket,
                         /*secret=*/true);
}

Result<Pending<void>> Client::SendLoginWithTicket(Handle session, CK_USER_TYPE user,
                                                  ByteView ticket) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto body = wire::CreateLoginRequest(fbb, session, user, /*pin=*/0, /*want_ticket=*/false,
                                       EncodeBytes(fbb, ticket));
  return request.Enqueue(RequestBody::LoginRequest, body.Union(), DecodeStatus, /*secret=*/true);
}

Result<Pending<void>> Client::SendUseStableHandles(ByteView key) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto body = wire::CreateUseStableHandlesRequest(fbb, EncodeBytes(fbb, key));
  return request.Enqueue(RequestBody::UseStableHandlesRequest, body.Union(), DecodeStatus,
                         /*secret=*/true);
}

Result<Pending<void>> Client::SendLogout(Handle session) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto body = wire::CreateLogoutRequest(fbb, session);
  return request.Enqueue(RequestBody::LogoutRequest, body.Union(), DecodeStatus);
}

Result<Pending<InitTokenResult>> Client::SendInitToken(CK_SLOT_ID slot, ByteView so_pin,
                                                       std::string_view label,
                                                       ByteView user_pin) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto so = EncodeBytes(fbb, so_pin);
  auto name = fbb.CreateString(label.data(), label.size());
  flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>> user = 0;
  if (!user_pin.empty()) user = EncodeBytes(fbb, user_pin);
  auto body = wire::CreateInitTokenRequest(fbb, slot, so, name, user);
  return request.Enqueue(RequestBody::InitTokenRequest, body.Union(), DecodeInitToken,
                        /*secret=*/true);
}

Result<Pending<void>> Client::SendInitPin(Handle session, ByteView pin) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto body = wire::CreateInitPinRequest(fbb, session, EncodeBytes(fbb, pin));
  return request.Enqueue(RequestBody::InitPinRequest, body.Union(), DecodeStatus,
                        /*secret=*/true);
}

Result<Pending<void>> Client::SendSetPin(Handle session, ByteView old_pin, ByteView new_pin) {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto old_offset = EncodeBytes(fbb, old_pin);
  auto new_offset = EncodeBytes(fbb, new_pin);
  auto body = wire::CreateSetPinRequest(fbb, session, old_offset, new_offset);
  return request.Enqueue(RequestBody::SetPinRequest, body.Union(), DecodeStatus,
                        /*secret=*/true);
}

Result<Pending<ServerStats>> Client::SendGetStats() {
  Impl::Request request = impl_->NewRequest();
  auto& fbb = request.builder();
  auto body = wire::CreateGetStatsRequest(fbb);
  return request.Enqueue(RequestBody::GetStatsRequest, body.Union(), DecodeStats);
}

}  // namespace signet::client

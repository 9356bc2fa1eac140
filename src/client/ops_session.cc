// Send* for the info, session, login and token/PIN operations.
#include "client/client_impl.h"
#include "client/decode.h"
#include "client/encode.h"

namespace signet::client {

using wire::RequestBody;

Result<Pending<ServerInfo>> Client::SendGetInfo() {
  auto& fbb = impl_->builder();
  auto body = wire::CreateGetInfoRequest(fbb);
  return impl_->Enqueue(RequestBody::GetInfoRequest, body.Union(), DecodeInfo);
}

Result<Pending<Handle>> Client::SendOpenSession(CK_SLOT_ID slot, CK_FLAGS flags) {
  auto& fbb = impl_->builder();
  auto body = wire::CreateOpenSessionRequest(fbb, slot, flags);
  return impl_->Enqueue(RequestBody::OpenSessionRequest, body.Union(), DecodeSession);
}

Result<Pending<void>> Client::SendCloseSession(Handle session) {
  auto& fbb = impl_->builder();
  auto body = wire::CreateCloseSessionRequest(fbb, session);
  return impl_->Enqueue(RequestBody::CloseSessionRequest, body.Union(), DecodeStatus);
}

Result<Pending<void>> Client::SendCloseAllSessions(CK_SLOT_ID slot) {
  auto& fbb = impl_->builder();
  auto body = wire::CreateCloseAllSessionsRequest(fbb, slot);
  return impl_->Enqueue(RequestBody::CloseAllSessionsRequest, body.Union(), DecodeStatus);
}

Result<Pending<SessionInfo>> Client::SendGetSessionInfo(Handle session) {
  auto& fbb = impl_->builder();
  auto body = wire::CreateGetSessionInfoRequest(fbb, session);
  return impl_->Enqueue(RequestBody::GetSessionInfoRequest, body.Union(), DecodeSessionInfo);
}

Result<Pending<void>> Client::SendLogin(Handle session, CK_USER_TYPE user, ByteView pin) {
  auto& fbb = impl_->builder();
  auto body = wire::CreateLoginRequest(fbb, session, user, EncodeBytes(fbb, pin));
  return impl_->Enqueue(RequestBody::LoginRequest, body.Union(), DecodeStatus, /*secret=*/true);
}

Result<Pending<void>> Client::SendLogout(Handle session) {
  auto& fbb = impl_->builder();
  auto body = wire::CreateLogoutRequest(fbb, session);
  return impl_->Enqueue(RequestBody::LogoutRequest, body.Union(), DecodeStatus);
}

Result<Pending<InitTokenResult>> Client::SendInitToken(CK_SLOT_ID slot, ByteView so_pin,
                                                       std::string_view label,
                                                       ByteView user_pin) {
  auto& fbb = impl_->builder();
  auto so = EncodeBytes(fbb, so_pin);
  auto name = fbb.CreateString(label.data(), label.size());
  flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>> user = 0;
  if (!user_pin.empty()) user = EncodeBytes(fbb, user_pin);
  auto body = wire::CreateInitTokenRequest(fbb, slot, so, name, user);
  return impl_->Enqueue(RequestBody::InitTokenRequest, body.Union(), DecodeInitToken,
                        /*secret=*/true);
}

Result<Pending<void>> Client::SendInitPin(Handle session, ByteView pin) {
  auto& fbb = impl_->builder();
  auto body = wire::CreateInitPinRequest(fbb, session, EncodeBytes(fbb, pin));
  return impl_->Enqueue(RequestBody::InitPinRequest, body.Union(), DecodeStatus,
                        /*secret=*/true);
}

Result<Pending<void>> Client::SendSetPin(Handle session, ByteView old_pin, ByteView new_pin) {
  auto& fbb = impl_->builder();
  auto old_offset = EncodeBytes(fbb, old_pin);
  auto new_offset = EncodeBytes(fbb, new_pin);
  auto body = wire::CreateSetPinRequest(fbb, session, old_offset, new_offset);
  return impl_->Enqueue(RequestBody::SetPinRequest, body.Union(), DecodeStatus,
                        /*secret=*/true);
}

Result<Pending<ServerStats>> Client::SendGetStats() {
  auto& fbb = impl_->builder();
  auto body = wire::CreateGetStatsRequest(fbb);
  return impl_->Enqueue(RequestBody::GetStatsRequest, body.Union(), DecodeStats);
}

}  // namespace signet::client

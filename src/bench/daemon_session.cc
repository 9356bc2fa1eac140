#include "bench/daemon_session.h"

#include "base/secure_bytes.h"

namespace signet::bench {

using client::StringAttribute;
using client::UlongAttribute;

Result<UserSession> OpenUserSession(const std::string& socket, const std::string& pin,
                                    const std::string& token_label) {
  UserSession user;
  SIGNET_ASSIGN_OR_RETURN(user.client, client::Client::Connect({.address = socket}));
  SIGNET_ASSIGN_OR_RETURN(client::ServerInfo info, user.client->GetInfo());
  const client::SlotInfo* slot = nullptr;
  for (const auto& s : info.slots) {
    if (s.token_present && (token_label.empty() || s.label == token_label)) {
      slot = &s;
      break;
    }
  }
  if (slot == nullptr) {
    return MakeError(CKR_TOKEN_NOT_PRESENT, token_label.empty()
                                                ? "the daemon has no token"
                                                : "no token labelled '" + token_label + "'");
  }
  SIGNET_ASSIGN_OR_RETURN(user.session, user.client->OpenSession(slot->slot_id));
  SIGNET_TRY(user.client->Login(user.session, CKU_USER, AsBytes(pin)));
  return user;
}

Result<std::vector<client::Handle>> FindKeys(UserSession& user, const std::string& label,
                                             CK_OBJECT_CLASS object_class) {
  return user.client->FindObjects(
      user.session, {StringAttribute(CKA_LABEL, label), UlongAttribute(CKA_CLASS, object_class)});
}

}  // namespace signet::bench

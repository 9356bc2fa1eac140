// A bench client's own connection to signetd: one read-write session,
// logged in as the user, and the lookup of token keys by label. Shared by
// the daemon backend's signing clients (daemon_backend.cc) and its other
// operations (daemon_operations.cc).
// Thread contract: a UserSession belongs to one thread at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "signet/client.hpp"

namespace signet::bench {

// UserSession: one connection, one read-write session, logged in as user.
struct UserSession {
  std::unique_ptr<client::Client> client;
  client::Handle session = 0;
};

// OpenUserSession connects to `socket`, opens a session on the token
// labelled `token_label` (the first token when empty) and logs in with
// `pin`. CKR_TOKEN_NOT_PRESENT when there is no such token; the daemon's
// errors as they come.
Result<UserSession> OpenUserSession(const std::string& socket, const std::string& pin,
                                    const std::string& token_label);

// FindKeys returns the objects of class `object_class` labelled `label`.
Result<std::vector<client::Handle>> FindKeys(UserSession& user, const std::string& label,
                                             CK_OBJECT_CLASS object_class);

}  // namespace signet::bench

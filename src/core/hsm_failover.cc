// Hsm: what a client needs to move to another node of a shared keystore
// (docs/SCALING.md "Clients that use every node"): re-login tickets and
// stable object handles.
#include "core/hsm_internal.h"
#include "core/login_ticket.h"

namespace signet::core {

Result<Bytes> HsmImpl::IssueLoginTicket(ClientState& c, CK_SESSION_HANDLE s, CK_USER_TYPE user_type,
                                        ByteView pin) {
  if (options_.login_ticket_keys.empty()) {
    return MakeError(CKR_FUNCTION_NOT_SUPPORTED, "this node has no login-ticket key");
  }
  SIGNET_ASSIGN_OR_RETURN(keystore::UserType user, ToUserType(user_type));
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  const bool logged_in = user == keystore::UserType::kUser ? r.logged_in_user : r.logged_in_so;
  if (!logged_in) return MakeError(CKR_USER_NOT_LOGGED_IN, "a ticket follows a login");
  return SealLoginTicket(options_.login_ticket_keys.front(), r.slot->serial(), user, pin,
                         TicketClock::now() + kLoginTicketLifetime);
}

Status HsmImpl::LoginWithTicket(ClientState& c, CK_SESSION_HANDLE s, CK_USER_TYPE user_type,
                                ByteView ticket) {
  if (options_.login_ticket_keys.empty()) {
    return MakeError(CKR_FUNCTION_NOT_SUPPORTED, "this node has no login-ticket key");
  }
  SIGNET_ASSIGN_OR_RETURN(keystore::UserType user, ToUserType(user_type));
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  // Each key in turn: a ticket sealed under another key answers
  // CKR_PIN_INCORRECT, which the next key may still open.
  const TicketClock::time_point now = TicketClock::now();
  Result<SecureBytes> pin = MakeError(CKR_PIN_INCORRECT, "no key opens the ticket");
  for (const SecureBytes& key : options_.login_ticket_keys) {
    pin = OpenLoginTicket(key, r.slot->serial(), user, ticket, now);
    if (pin.ok() || pin.error().code != CKR_PIN_INCORRECT) break;
  }
  if (!pin.ok()) return std::move(pin).error();
  return Login(c, s, user_type, *pin);
}

Status HsmImpl::UseStableHandles(ClientState& c, ByteView key) {
  base::MutexLock lock(&c.mu);
  if (c.stable_handles) {
    if (c.stable_handles->SameKey(key)) return OkStatus();
    return MakeError(CKR_ARGUMENTS_BAD,
                     "this connection already numbers its objects by another key");
  }
  SIGNET_ASSIGN_OR_RETURN(StableHandles handles, StableHandles::Make(key));
  c.stable_handles.emplace(std::move(handles));
  return OkStatus();
}

}  // namespace signet::core

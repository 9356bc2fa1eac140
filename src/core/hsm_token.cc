// HsmImpl::InitToken (PKCS#11 §5.5 C_InitToken): create a token on the free
// slot, or re-initialise an existing one; ServeNewTokens: serve the tokens
// other daemons created in a shared keystore.
#include <algorithm>
#include <optional>

#include "core/hsm_internal.h"
#include "keystore/pin_policy.h"
#include "keystore/slot_ids.h"

namespace signet::core {

Result<std::pair<CK_SLOT_ID, std::string>> HsmImpl::InitToken(ClientState& c, CK_SLOT_ID slot_id,
                                                              ByteView so_pin,
                                                              std::string_view label,
                                                              ByteView user_pin) {
  // The PIN rules (keystore/pin_policy.h), checked before anything else:
  // re-initialisation wipes the token before it sets the user PIN, so a
  // user PIN the keystore would refuse must not get that far.
  SIGNET_TRY(keystore::CheckPinLength(so_pin, "SO PIN"));
  if (!user_pin.empty()) SIGNET_TRY(keystore::CheckPinLength(user_pin, "user PIN"));
  base::MutexLock init_lock(&init_mu_);
  CK_SLOT_ID free_slot;
  std::vector<keystore::TokenInfo> tokens;  // the others: their labels and ids
  {
    base::ReaderMutexLock lock(&slots_mu_);
    free_slot = next_slot_id_;
    for (const auto& [id, slot] : slots_) {
      if (id != slot_id) tokens.push_back(slot->token().Info());
    }
  }
  if (slot_id == free_slot) {
    // A new token is a new trust root on this daemon (and the CLI's default
    // token after a restart may be the first one): administrators only.
    // CKR_TOKEN_WRITE_PROTECTED is C_InitToken's code for "this slot may
    // not be written" (PKCS#11 §5.5); no login can change it.
    if (!c.admin) {
      return MakeError(CKR_TOKEN_WRITE_PROTECTED,
                       "creating a token needs an admin connection (the daemon's own uid or root "
                       "on the Unix socket, or the admin certificate over TLS)");
    }
    SIGNET_ASSIGN_OR_RETURN(auto created, keystore_->CreateToken(label, so_pin, user_pin,
                                                                 options_.token_options, tokens));
    auto& [location, token] = created;
    const keystore::TokenInfo info = token->Info();
    const CK_SLOT_ID id = info.slot_id.value_or(free_slot);
    served_.insert(location);
    SIGNET_ASSIGN_OR_RETURN(std::unique_ptr<TokenSlot> slot,
                            ServeToken(id, location, std::move(token)));
    EnterSlotLocked(id, std::move(slot));
    return std::make_pair(id, info.serial);
  }
  TokenSlot* slot = FindSlot(slot_id);
  if (slot == nullptr) return MakeError(CKR_SLOT_ID_INVALID, "no such slot");
  if (slot->sessions.load() > 0) {
    return MakeError(CKR_SESSION_EXISTS, "close every session on the token first");
  }
  SIGNET_TRY(keystore::CheckTokenLabelFree(label, tokens));
  // Re-initialisation (§5.5): with the right SO PIN every object goes, the
  // label changes and the user PIN must be set again by the SO.
  // The SO PIN check counts like a Login, and is throttled like one.
  SIGNET_TRY(ThrottledPinCheck(c, *slot, keystore::UserType::kSo,
                               [&] { return slot->token().Reinitialize(so_pin, label); }));
  if (!user_pin.empty()) {
    SIGNET_TRY(slot->Login(keystore::UserType::kSo, so_pin));
    Status set = slot->token().InitUserPin(user_pin);
    slot->Logout(keystore::UserType::kSo);
    SIGNET_TRY(set);
  }
  SIGNET_TRY(slot->LoadObjects());
  return std::make_pair(slot_id, slot->token().Info().serial);
}

void HsmImpl::ServeNewTokens() {
  if (!keystore_->Shared()) return;
  base::MutexLock init_lock(&init_mu_);
  Result<std::vector<std::string>> locations = keystore_->ListTokens();
  if (!locations.ok()) return;  // the database is away: the slots known go on
  for (const std::string& location : *locations) {
    if (served_.count(location) != 0) continue;
    auto token = keystore_->OpenToken(location, options_.token_options);
    if (!token.ok()) continue;  // not readable now: looked for again next time
    const std::optional<CK_SLOT_ID> id = (*token)->Info().slot_id;
    if (!id || FindSlot(*id) != nullptr) {
      // Kept without a slot id, or on a taken one (the database's UNIQUE
      // slot ids forbid both): left to the next start, which numbers such
      // tokens, rather than opened again at every look.
      served_.insert(location);
      continue;
    }
    auto slot = ServeToken(*id, location, std::move(*token));
    if (!slot.ok()) continue;
    served_.insert(location);
    EnterSlotLocked(*id, std::move(*slot));
  }
}

void HsmImpl::EnterSlotLocked(CK_SLOT_ID id, std::unique_ptr<TokenSlot> slot) {
  base::WriterMutexLock lock(&slots_mu_);
  slots_.emplace(id, std::move(slot));
  next_slot_id_ = std::max(next_slot_id_, id + 1);
}

TokenSlot* HsmImpl::FindOrServeSlot(CK_SLOT_ID slot_id) {
  if (TokenSlot* slot = FindSlot(slot_id)) return slot;
  ServeNewTokens();
  return FindSlot(slot_id);
}

}  // namespace signet::core

#include "pkcs11/login_registry.h"

#include "pkcs11/session.h"

namespace signet::pkcs11 {

LoginRegistry::Snapshot LoginRegistry::Get(CK_SLOT_ID slot) const {
  std::lock_guard lock(mu_);
  const std::uint64_t epoch = epoch_.load(std::memory_order_acquire);
  auto it = slots_.find(slot);
  if (it == slots_.end()) return Snapshot{kNobody, {}, epoch};
  return Snapshot{it->second.user, it->second.pin, epoch};
}

CK_USER_TYPE LoginRegistry::User(CK_SLOT_ID slot) const {
  std::lock_guard lock(mu_);
  auto it = slots_.find(slot);
  return it == slots_.end() ? kNobody : it->second.user;
}

std::uint64_t LoginRegistry::Set(CK_SLOT_ID slot, CK_USER_TYPE user, crypto::ByteView pin) {
  std::lock_guard lock(mu_);
  slots_[slot] = Entry{user, crypto::SecureBytes(pin.begin(), pin.end())};
  return epoch_.fetch_add(1, std::memory_order_acq_rel) + 1;
}

std::uint64_t LoginRegistry::Clear(CK_SLOT_ID slot) {
  std::lock_guard lock(mu_);
  slots_.erase(slot);
  return epoch_.fetch_add(1, std::memory_order_acq_rel) + 1;
}

}  // namespace signet::pkcs11

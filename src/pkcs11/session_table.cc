#include "pkcs11/session_table.h"

namespace signet::pkcs11 {

SessionTable::SessionTable() : rng_(std::random_device{}()) {}

CK_SESSION_HANDLE SessionTable::NewHandle() {
  base::WriterMutexLock lock(&mu_);
  for (;;) {
    const CK_SESSION_HANDLE h = rng_() & 0xffffffffu;
    if (h != CK_INVALID_HANDLE && sessions_.count(h) == 0) {
      // Reserve the handle so a concurrent NewHandle cannot return it too.
      sessions_.emplace(h, nullptr);
      return h;
    }
  }
}

void SessionTable::Insert(std::shared_ptr<Session> session) {
  base::WriterMutexLock lock(&mu_);
  const CK_SESSION_HANDLE h = session->handle;
  sessions_[h] = std::move(session);
}

std::shared_ptr<Session> SessionTable::Find(CK_SESSION_HANDLE handle) const {
  base::ReaderMutexLock lock(&mu_);
  auto it = sessions_.find(handle);
  return it == sessions_.end() ? nullptr : it->second;
}

std::shared_ptr<Session> SessionTable::Remove(CK_SESSION_HANDLE handle) {
  base::WriterMutexLock lock(&mu_);
  auto it = sessions_.find(handle);
  if (it == sessions_.end()) return nullptr;
  std::shared_ptr<Session> session = std::move(it->second);
  sessions_.erase(it);
  return session;
}

std::vector<std::shared_ptr<Session>> SessionTable::RemoveIf(
    const std::function<bool(const Session&)>& pred) {
  base::WriterMutexLock lock(&mu_);
  std::vector<std::shared_ptr<Session>> removed;
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (it->second != nullptr && pred(*it->second)) {
      removed.push_back(std::move(it->second));
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
  return removed;
}

std::vector<std::shared_ptr<Session>> SessionTable::OnSlot(CK_SLOT_ID slot) const {
  base::ReaderMutexLock lock(&mu_);
  std::vector<std::shared_ptr<Session>> out;
  for (const auto& [handle, session] : sessions_) {
    if (session != nullptr && session->slot == slot) out.push_back(session);
  }
  return out;
}

}  // namespace signet::pkcs11

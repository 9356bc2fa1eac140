#include "keystore/kek_holder.h"

namespace signet::keystore {

void KekHolder::Set(UserType user, SecureBytes kek) {
  auto shared = std::make_shared<const SecureBytes>(std::move(kek));
  base::MutexLock lock(&mu_);
  kek_ = std::move(shared);
  user_ = user;
}

void KekHolder::Clear() {
  base::MutexLock lock(&mu_);
  kek_.reset();
  user_.reset();
}

std::shared_ptr<const SecureBytes> KekHolder::Current() const {
  base::MutexLock lock(&mu_);
  return kek_;
}

Result<std::shared_ptr<const SecureBytes>> KekHolder::SoKek() const {
  base::MutexLock lock(&mu_);
  if (user_ != UserType::kSo || !kek_) {
    return MakeError(CKR_USER_NOT_LOGGED_IN, "InitUserPin requires the SO to be logged in");
  }
  return kek_;
}

}  // namespace signet::keystore

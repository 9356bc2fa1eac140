#include "core/token_slot.h"

namespace signet::core {

TokenSlot::TokenSlot(CK_SLOT_ID id, std::filesystem::path file,
                     std::unique_ptr<keystore::Token> token)
    : id_(id), file_(std::move(file)), token_(std::move(token)) {}

namespace {
RecordPtr MakeRecord(AttributeMap attributes, bool has_secret) {
  auto rec = std::make_shared<ObjectRecord>();
  rec->attributes = std::move(attributes);
  rec->has_secret = has_secret;
  return rec;
}
}  // namespace

Status TokenSlot::LoadObjects() {
  SIGNET_ASSIGN_OR_RETURN(auto stored, token_->ListObjects());
  std::unique_lock lock(objects_mu_);
  objects_.clear();
  for (auto& obj : stored) {
    objects_[obj.handle] = MakeRecord(std::move(obj.attributes), obj.has_secret);
  }
  return OkStatus();
}

RecordPtr TokenSlot::Get(keystore::ObjectHandle id) const {
  std::shared_lock lock(objects_mu_);
  auto it = objects_.find(id);
  return it == objects_.end() ? nullptr : it->second;
}

std::vector<std::pair<keystore::ObjectHandle, RecordPtr>> TokenSlot::Snapshot() const {
  std::shared_lock lock(objects_mu_);
  return {objects_.begin(), objects_.end()};
}

Result<keystore::ObjectHandle> TokenSlot::Create(AttributeMap attributes,
                                                 const crypto::SecureBytes* secret) {
  SIGNET_ASSIGN_OR_RETURN(keystore::ObjectHandle id, token_->CreateObject(attributes, secret));
  std::unique_lock lock(objects_mu_);
  objects_[id] = MakeRecord(std::move(attributes), secret != nullptr);
  return id;
}

Status TokenSlot::Update(keystore::ObjectHandle id, const AttributeMap& changes) {
  // The exclusive lock spans the database write so two updates of one
  // object cannot interleave their cache copies.
  std::unique_lock lock(objects_mu_);
  auto it = objects_.find(id);
  if (it == objects_.end()) return MakeError(CKR_OBJECT_HANDLE_INVALID, "no such object");
  SIGNET_TRY(token_->UpdateAttributes(id, changes));
  auto rec = std::make_shared<ObjectRecord>(*it->second);
  for (const auto& [type, value] : changes) rec->attributes[type] = value;
  it->second = std::move(rec);
  return OkStatus();
}

Status TokenSlot::Destroy(keystore::ObjectHandle id) {
  std::unique_lock lock(objects_mu_);
  SIGNET_TRY(token_->DestroyObject(id));
  objects_.erase(id);
  return OkStatus();
}

Result<std::optional<keystore::PoolTake>> TokenSlot::TakePoolKey(
    std::string_view pool, const keystore::PoolObjectsBuilder& build) {
  SIGNET_ASSIGN_OR_RETURN(auto take, token_->TakePoolKey(pool, build));
  if (take) {
    std::unique_lock lock(objects_mu_);
    objects_[take->private_handle] = MakeRecord(take->private_attributes, true);
    objects_[take->public_handle] = MakeRecord(take->public_attributes, false);
  }
  return take;
}

Status TokenSlot::Login(keystore::UserType user, crypto::ByteView pin) {
  std::lock_guard lock(login_mu_);
  int other = user == keystore::UserType::kSo ? user_logins_ : so_logins_;
  if (other > 0) {
    return MakeError(CKR_USER_ANOTHER_ALREADY_LOGGED_IN,
                     "another connection is logged in to this token as the other user type");
  }
  SIGNET_TRY(token_->Login(user, pin));
  (user == keystore::UserType::kSo ? so_logins_ : user_logins_)++;
  return OkStatus();
}

void TokenSlot::Logout(keystore::UserType user) {
  std::lock_guard lock(login_mu_);
  int& count = user == keystore::UserType::kSo ? so_logins_ : user_logins_;
  if (count > 0) --count;
  if (user_logins_ == 0 && so_logins_ == 0) token_->Logout();
}

int TokenSlot::logged_in(keystore::UserType user) const {
  std::lock_guard lock(login_mu_);
  return user == keystore::UserType::kSo ? so_logins_ : user_logins_;
}

}  // namespace signet::core

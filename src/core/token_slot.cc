#include "core/token_slot.h"

#include <algorithm>

#include "core/object_classes.h"
#include "core/unique_id.h"

namespace signet::core {

std::size_t ObjectBytes(const AttributeMap& attributes, std::size_t secret_size) {
  std::size_t total = kObjectOverhead + secret_size;
  for (const auto& [type, value] : attributes) total += sizeof type + value.size();
  return total;
}

TokenSlot::TokenSlot(CK_SLOT_ID id, std::filesystem::path file,
                     std::unique_ptr<keystore::Token> token, TokenPolicy policy)
    : id_(id),
      file_(std::move(file)),
      token_(std::move(token)),
      policy_(policy),
      serial_(token_->Info().serial) {}

Status TokenSlot::Reserve(std::size_t objects, std::size_t bytes) {
  base::MutexLock lock(&quota_mu_);
  if (used_objects_ + objects > policy_.max_objects) {
    return MakeError(CKR_DEVICE_MEMORY,
                     "token quota reached: " + std::to_string(policy_.max_objects) + " objects");
  }
  if (used_bytes_ + bytes > policy_.max_bytes) {
    return MakeError(CKR_DEVICE_MEMORY,
                     "token quota reached: " + std::to_string(policy_.max_bytes) + " bytes");
  }
  used_objects_ += objects;
  used_bytes_ += bytes;
  return OkStatus();
}

void TokenSlot::Release(std::size_t objects, std::size_t bytes) {
  base::MutexLock lock(&quota_mu_);
  used_objects_ -= std::min(objects, used_objects_);
  used_bytes_ -= std::min(bytes, used_bytes_);
}

std::size_t TokenSlot::used_objects() const {
  base::MutexLock lock(&quota_mu_);
  return used_objects_;
}

std::size_t TokenSlot::used_bytes() const {
  base::MutexLock lock(&quota_mu_);
  return used_bytes_;
}

namespace {
RecordPtr MakeRecord(AttributeMap attributes, bool has_secret) {
  auto rec = std::make_shared<ObjectRecord>();
  rec->attributes = std::move(attributes);
  rec->has_secret = has_secret;
  return rec;
}
}  // namespace

Status TokenSlot::LoadObjects() {
  SIGNET_ASSIGN_OR_RETURN(std::int64_t generation, token_->ObjectsGeneration());
  return LoadObjectsAt(generation);
}

Status TokenSlot::LoadObjectsAt(std::int64_t generation) {
  // `generation` was read before the objects: a change in between shows as
  // a newer generation at the next RefreshObjects.
  SIGNET_ASSIGN_OR_RETURN(auto stored, token_->ListObjects());
  base::WriterMutexLock lock(&objects_mu_);
  loaded_generation_ = generation;
  objects_.clear();
  object_bytes_.clear();
  std::size_t bytes = 0;
  for (auto& obj : stored) {
    // Records written before an attribute of their class had a default get
    // it now (object_classes.h), so reading old token files needs no migration.
    FillClassDefaults(obj.attributes);
    if (obj.attributes.count(CKA_UNIQUE_ID) == 0) {
      obj.attributes[CKA_UNIQUE_ID] = DerivedUniqueId(serial_, obj.handle);
    }
    // Loaded objects count without their wrapped value (kObjectOverhead
    // stands for it): the quota bounds growth, not what is already there.
    std::size_t size = ObjectBytes(obj.attributes, 0);
    bytes += size;
    object_bytes_[obj.handle] = size;
    objects_[obj.handle] = MakeRecord(std::move(obj.attributes), obj.has_secret);
  }
  base::MutexLock quota(&quota_mu_);
  used_objects_ = objects_.size();
  used_bytes_ = bytes;
  return OkStatus();
}

Status TokenSlot::RefreshObjects() {
  auto generation = token_->ObjectsGenerationNow();
  if (!generation.ok()) return OkStatus();  // unreachable: keep what is here
  {
    base::ReaderMutexLock lock(&objects_mu_);
    if (*generation == loaded_generation_) return OkStatus();
  }
  return LoadObjectsAt(*generation);
}

RecordPtr TokenSlot::Get(keystore::ObjectHandle id) const {
  base::ReaderMutexLock lock(&objects_mu_);
  auto it = objects_.find(id);
  return it == objects_.end() ? nullptr : it->second;
}

std::vector<std::pair<keystore::ObjectHandle, RecordPtr>> TokenSlot::Snapshot() const {
  base::ReaderMutexLock lock(&objects_mu_);
  return {objects_.begin(), objects_.end()};
}

Result<keystore::ObjectHandle> TokenSlot::Create(AttributeMap attributes,
                                                 const SecureBytes* secret) {
  std::size_t size = ObjectBytes(attributes, secret != nullptr ? secret->size() : 0);
  SIGNET_TRY(Reserve(1, size));
  auto id = token_->CreateObject(attributes, secret);
  if (!id.ok()) {
    Release(1, size);
    return std::move(id).error();
  }
  base::WriterMutexLock lock(&objects_mu_);
  objects_[*id] = MakeRecord(std::move(attributes), secret != nullptr);
  object_bytes_[*id] = size;
  return *id;
}

Result<std::vector<keystore::ObjectHandle>> TokenSlot::CreateObjects(
    std::vector<keystore::NewObject> objects, const Bytes* unique_label) {
  // The quota counts the whole batch before anything is stored, as Create
  // does for one object.
  std::vector<std::size_t> sizes;
  std::size_t total = 0;
  for (const keystore::NewObject& object : objects) {
    sizes.push_back(
        ObjectBytes(object.attributes, object.secret != nullptr ? object.secret->size() : 0));
    total += sizes.back();
  }
  SIGNET_TRY(Reserve(objects.size(), total));
  auto ids = token_->CreateObjects(objects, unique_label);
  if (!ids.ok()) {
    Release(objects.size(), total);
    return std::move(ids).error();
  }
  base::WriterMutexLock lock(&objects_mu_);
  for (std::size_t i = 0; i < ids->size(); ++i) {
    objects_[(*ids)[i]] =
        MakeRecord(std::move(objects[i].attributes), objects[i].secret != nullptr);
    object_bytes_[(*ids)[i]] = sizes[i];
  }
  return std::move(*ids);
}

Status TokenSlot::Update(keystore::ObjectHandle id, const AttributeMap& changes) {
  // The exclusive lock spans the database write so two updates of one
  // object cannot interleave their cache copies.
  base::WriterMutexLock lock(&objects_mu_);
  auto it = objects_.find(id);
  if (it == objects_.end()) return MakeError(CKR_OBJECT_HANDLE_INVALID, "no such object");
  auto rec = std::make_shared<ObjectRecord>(*it->second);
  for (const auto& [type, value] : changes) rec->attributes[type] = value;
  std::size_t& counted = object_bytes_[id];
  std::size_t secret = counted - std::min(counted, ObjectBytes(it->second->attributes, 0));
  std::size_t size = ObjectBytes(rec->attributes, secret);
  if (size > counted) SIGNET_TRY(Reserve(0, size - counted));
  Status updated = token_->UpdateAttributes(id, changes);
  if (!updated.ok()) {
    if (size > counted) Release(0, size - counted);
    return updated;
  }
  if (size < counted) Release(0, counted - size);
  counted = size;
  it->second = std::move(rec);
  return OkStatus();
}

Status TokenSlot::Destroy(keystore::ObjectHandle id) {
  base::WriterMutexLock lock(&objects_mu_);
  SIGNET_TRY(token_->DestroyObject(id));
  objects_.erase(id);
  auto counted = object_bytes_.find(id);
  if (counted != object_bytes_.end()) {
    Release(1, counted->second);
    object_bytes_.erase(counted);
  }
  return OkStatus();
}

Status TokenSlot::DestroyObjects(const std::vector<keystore::ObjectHandle>& ids) {
  base::WriterMutexLock lock(&objects_mu_);
  SIGNET_TRY(token_->DestroyObjects(ids));
  for (keystore::ObjectHandle id : ids) {
    objects_.erase(id);
    auto counted = object_bytes_.find(id);
    if (counted != object_bytes_.end()) {
      Release(1, counted->second);
      object_bytes_.erase(counted);
    }
  }
  return OkStatus();
}

Result<std::optional<keystore::PoolTake>> TokenSlot::TakePoolKey(
    std::string_view pool, const keystore::PoolObjectsBuilder& build, const Bytes* unique_label) {
  // Room for two objects first; their bytes are known only after the take
  // and are counted then (a pool key pair is a few KB).
  SIGNET_TRY(Reserve(2, 0));
  auto take = token_->TakePoolKey(pool, build, unique_label);
  if (!take.ok() || !take->has_value()) {
    Release(2, 0);
    return take;
  }
  std::size_t priv = ObjectBytes((*take)->private_attributes, 0);
  std::size_t pub = ObjectBytes((*take)->public_attributes, 0);
  {
    base::MutexLock quota(&quota_mu_);
    used_bytes_ += priv + pub;
  }
  base::WriterMutexLock lock(&objects_mu_);
  objects_[(*take)->private_handle] = MakeRecord((*take)->private_attributes, true);
  objects_[(*take)->public_handle] = MakeRecord((*take)->public_attributes, false);
  object_bytes_[(*take)->private_handle] = priv;
  object_bytes_[(*take)->public_handle] = pub;
  return take;
}

Status TokenSlot::Login(keystore::UserType user, ByteView pin) {
  base::MutexLock lock(&login_mu_);
  int other = user == keystore::UserType::kSo ? user_logins_ : so_logins_;
  if (other > 0) {
    return MakeError(CKR_USER_ANOTHER_ALREADY_LOGGED_IN,
                     "another connection is logged in to this token as the other user type");
  }
  SIGNET_TRY(token_->Login(user, pin));
  (user == keystore::UserType::kSo ? so_logins_ : user_logins_)++;
  return OkStatus();
}

Status TokenSlot::ReauthenticateUser(ByteView pin) {
  base::MutexLock lock(&login_mu_);
  if (user_logins_ == 0) return MakeError(CKR_USER_NOT_LOGGED_IN, "the user is not logged in");
  // Token::Login with the right PIN re-seats the same KEK: nothing changes
  // for the connections already logged in.
  return token_->Login(keystore::UserType::kUser, pin);
}

void TokenSlot::Logout(keystore::UserType user) {
  base::MutexLock lock(&login_mu_);
  int& count = user == keystore::UserType::kSo ? so_logins_ : user_logins_;
  if (count > 0) --count;
  if (user_logins_ == 0 && so_logins_ == 0) token_->Logout();
}

int TokenSlot::logged_in(keystore::UserType user) const {
  base::MutexLock lock(&login_mu_);
  return user == keystore::UserType::kSo ? so_logins_ : user_logins_;
}

}  // namespace signet::core

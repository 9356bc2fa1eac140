// Hsm: several token objects created or destroyed in one keystore
// transaction (issue 10 defects 8 and 13): the two halves of an imported
// key pair, the objects `signet delete` removes, and "create unless a key
// with this label exists" as one atomic step.
#include <set>

#include "core/hsm_internal.h"

namespace signet::core {

Result<Bytes> CommonLabel(const std::vector<const AttributeMap*>& maps) {
  std::optional<Bytes> label;
  for (const AttributeMap* map : maps) {
    auto it = map->find(CKA_LABEL);
    if (it == map->end()) continue;
    if (label && *label != it->second) {
      return MakeError(CKR_TEMPLATE_INCONSISTENT, "unique_label needs one CKA_LABEL for all");
    }
    label = it->second;
  }
  if (!label || label->empty()) {
    return MakeError(CKR_TEMPLATE_INCOMPLETE, "unique_label needs a CKA_LABEL");
  }
  return *label;
}

Result<std::vector<CK_OBJECT_HANDLE>> HsmImpl::StoreTokenObjects(ClientState& c, const Resolved& r,
                                                                 std::vector<PendingObject> objects,
                                                                 const Bytes* unique_label) {
  std::vector<keystore::NewObject> stored;
  for (const PendingObject& object : objects) {
    SIGNET_TRY(CheckMayStore(r, object.attrs));
    stored.push_back({object.attrs, object.secret ? &object.secret->value : nullptr});
  }
  SIGNET_ASSIGN_OR_RETURN(auto ids, r.slot->CreateObjects(std::move(stored), unique_label));
  std::vector<CK_OBJECT_HANDLE> handles;
  for (keystore::ObjectHandle id : ids) handles.push_back(HandleForToken(c, r.slot->id(), id));
  return handles;
}

Result<std::vector<CK_OBJECT_HANDLE>> HsmImpl::CreateObjects(ClientState& c, CK_SESSION_HANDLE s,
                                                             const std::vector<Template>& templates,
                                                             bool unique_label) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  if (templates.empty()) return MakeError(CKR_ARGUMENTS_BAD, "no objects to create");
  std::vector<PendingObject> objects;
  std::vector<const AttributeMap*> maps;
  for (const Template& t : templates) {
    SIGNET_ASSIGN_OR_RETURN(PendingObject object, PrepareImport(t, /*value_is_pkcs8=*/false));
    if (!BoolOr(object.attrs, CKA_TOKEN, false)) {
      return MakeError(CKR_TEMPLATE_INCONSISTENT,
                       "objects created together must be token objects (CKA_TOKEN true)");
    }
    objects.push_back(std::move(object));
  }
  for (const PendingObject& object : objects) maps.push_back(&object.attrs);
  std::optional<Bytes> label;
  if (unique_label) {
    SIGNET_ASSIGN_OR_RETURN(label, CommonLabel(maps));
  }
  return StoreTokenObjects(c, r, std::move(objects), label ? &*label : nullptr);
}

Status HsmImpl::DestroyObjects(ClientState& c, CK_SESSION_HANDLE s,
                               const std::vector<CK_OBJECT_HANDLE>& objects) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  if (objects.empty()) return MakeError(CKR_ARGUMENTS_BAD, "no objects to destroy");
  if (std::set<CK_OBJECT_HANDLE>(objects.begin(), objects.end()).size() != objects.size()) {
    return MakeError(CKR_ARGUMENTS_BAD, "an object is listed twice");
  }
  // Every check first, so a refusal destroys nothing.
  std::vector<keystore::ObjectHandle> token_ids;
  for (CK_OBJECT_HANDLE o : objects) {
    SIGNET_ASSIGN_OR_RETURN(ResolvedObject obj, ResolveObject(c, r, o));
    SIGNET_TRY(CheckMayDestroy(r, obj));
    if (obj.token_object) token_ids.push_back(obj.token_id);
  }
  if (!token_ids.empty()) SIGNET_TRY(r.slot->DestroyObjects(token_ids));
  base::MutexLock lock(&c.mu);
  for (CK_OBJECT_HANDLE o : objects) {
    auto it = c.handles.find(o);
    if (it == c.handles.end()) continue;
    if (it->second.token_object) c.token_handles.erase({r.slot->id(), it->second.token_id});
    ForgetSessionObjectLocked(c, it->second);
    c.handles.erase(it);
  }
  return OkStatus();
}

}  // namespace signet::core

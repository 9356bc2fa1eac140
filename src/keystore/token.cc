// Token's default FindObjects, shared by every backend that has no faster
// way to search.
#include "keystore/token.h"

#include "keystore/object_match.h"

namespace signet::keystore {

Result<std::vector<StoredObject>> Token::FindObjects(const AttributeMap& match) const {
  SIGNET_ASSIGN_OR_RETURN(std::vector<StoredObject> all, ListObjects());
  std::vector<StoredObject> out;
  for (auto& object : all) {
    if (Matches(object.attributes, match)) out.push_back(std::move(object));
  }
  return out;
}

}  // namespace signet::keystore

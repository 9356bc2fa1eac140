// Attribute matching for FindObjects (PKCS#11 section 5.7: an object matches
// when it has every template attribute with exactly the same value bytes).
// Pure function, safe from any thread.
#pragma once

#include "keystore/token.h"

namespace signet::keystore {

// Matches: true when `attributes` holds every entry of `match` byte for byte.
inline bool Matches(const AttributeMap& attributes, const AttributeMap& match) {
  for (const auto& [type, value] : match) {
    auto it = attributes.find(type);
    if (it == attributes.end() || it->second != value) return false;
  }
  return true;
}

}  // namespace signet::keystore

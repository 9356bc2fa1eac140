// pkey_match, pkey_set_attributes and pkey_get_attributes (25, 27, 28).
// Attributes are the key object's PKCS#11 attributes, by CKA_* number with
// PKCS#11's value bytes (docs/CRYPTECH.md).
#include <algorithm>

#include "core/unique_id.h"
#include "daemon/cryptech_session.h"

namespace signet::daemon {

namespace hal = proto::hal;
using hal::Error;

namespace {

// kMaxAttributes: attributes one request may name (a match filter, a get
// or set); a libhal PKCS#11 template holds a few dozen at most.
constexpr std::uint32_t kMaxAttributes = 128;

struct Candidate {
  core::Uuid uuid;
  bool token = false;
};

// ReadAttributes reads `n` (type, opaque value) pairs.
bool ReadAttributes(proto::XdrReader& in, std::uint32_t n,
                    std::vector<std::pair<CK_ATTRIBUTE_TYPE, ByteView>>& out) {
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint32_t type = 0;
    ByteView value;
    if (!in.GetU32(type) || !in.GetOpaque(value)) return false;
    out.emplace_back(type, value);
  }
  return true;
}

}  // namespace

Error CryptechSession::PkeyMatch(Reader& in, Writer& out) {
  std::uint32_t session = 0, type = 0, curve = 0, mask = 0, flags = 0, n = 0;
  if (!in.GetU32(session) || !in.GetU32(type) || !in.GetU32(curve) || !in.GetU32(mask) ||
      !in.GetU32(flags) || !in.GetU32(n)) {
    return Error::kXdrBufferOverflow;
  }
  if (n > kMaxAttributes) return Error::kBadArguments;
  std::vector<std::pair<CK_ATTRIBUTE_TYPE, ByteView>> filter;
  std::uint32_t state = 0, max = 0;
  ByteView previous;
  if (!ReadAttributes(in, n, filter) || !in.GetU32(state) || !in.GetU32(max) ||
      !in.GetOpaque(previous)) {
    return Error::kXdrBufferOverflow;
  }
  if (max == 0 || state > static_cast<std::uint32_t>(hal::MatchState::kDone)) {
    return Error::kBadArguments;
  }
  if (previous.size() != hal::kUuidLength) return Error::kKeyNameTooLong;
  if (RequireUser() != Error::kOk) {
    // As libhal: a client that may not read keys finds none.
    out.PutU32(static_cast<std::uint32_t>(hal::MatchState::kDone));
    out.PutU32(0);
    return Error::kOk;
  }

  // Every key this connection can see that passes the filter, in UUID order.
  auto objects = hsm_.FindObjects(*client_, session_, {}, 0);
  if (!objects.ok()) return HalErrorOf(objects.error());
  std::vector<CK_ATTRIBUTE_TYPE> types = KeyFactTypes();
  types.push_back(CKA_UNIQUE_ID);
  for (const auto& f : filter) types.push_back(f.first);
  std::vector<Candidate> found;
  for (CK_OBJECT_HANDLE object : *objects) {
    auto attrs = Attributes(object, types);
    KeyFacts facts = KeyFactsOf(attrs);
    auto uuid = core::UuidFromText(attrs[CKA_UNIQUE_ID]);
    if (facts.type == hal::KeyType::kNone || !uuid) continue;
    if (type != 0 && static_cast<std::uint32_t>(facts.type) != type) continue;
    if (curve != 0 && static_cast<std::uint32_t>(facts.curve) != curve) continue;
    if (((flags ^ facts.flags) & mask) != 0) continue;
    bool same = std::all_of(filter.begin(), filter.end(), [&](const auto& f) {
      auto it = attrs.find(f.first);
      return it != attrs.end() &&
             std::equal(it->second.begin(), it->second.end(), f.second.begin(), f.second.end());
    });
    if (same) found.push_back({*uuid, (facts.flags & hal::kFlagToken) != 0});
  }
  std::sort(found.begin(), found.end(),
            [](const Candidate& a, const Candidate& b) { return a.uuid < b.uuid; });

  // libhal's paging: token keys, then session keys, each after `previous`.
  core::Uuid after{};
  std::copy(previous.begin(), previous.end(), after.begin());
  std::vector<core::Uuid> page;
  auto fill = [&](bool token) {
    for (const Candidate& c : found) {
      if (page.size() == max) return;
      if (c.token == token && c.uuid > after) page.push_back(c.uuid);
    }
  };
  auto next = static_cast<hal::MatchState>(state);
  if (next == hal::MatchState::kStart) {
    after = {};
    next = hal::MatchState::kToken;
  }
  if (next == hal::MatchState::kToken) {
    if (!((mask & hal::kFlagToken) && !(flags & hal::kFlagToken))) fill(true);
    if (page.size() < max) {
      after = {};
      next = hal::MatchState::kVolatile;
    }
  }
  if (next == hal::MatchState::kVolatile && page.size() < max) {
    if (!((mask & hal::kFlagToken) && (flags & hal::kFlagToken))) fill(false);
    if (page.size() < max) next = hal::MatchState::kDone;
  }
  if (8 + page.size() * proto::XdrOpaqueSize(hal::kUuidLength) > hal::kReplySpace) {
    return Error::kXdrBufferOverflow;  // libhal's answer to a page past the packet
  }
  out.PutU32(static_cast<std::uint32_t>(next));
  out.PutU32(static_cast<std::uint32_t>(page.size()));
  for (const core::Uuid& uuid : page) out.PutOpaque(uuid);
  return Error::kOk;
}

Error CryptechSession::PkeySetAttributes(Reader& in, Writer&) {
  std::uint32_t handle = 0, n = 0;
  if (!in.GetU32(handle) || !in.GetU32(n)) return Error::kXdrBufferOverflow;
  struct Change {
    CK_ATTRIBUTE_TYPE type;
    std::optional<ByteView> value;  // nullopt: delete
  };
  std::vector<Change> changes;
  for (std::uint32_t i = 0; i < n && i <= kMaxAttributes; ++i) {
    std::uint32_t type = 0, word = 0;
    ByteView value;
    if (!in.GetU32(type) || !in.PeekU32(word)) return Error::kXdrBufferOverflow;
    if (word == hal::kNilAttribute) {
      in.GetU32(word);
      changes.push_back({type, std::nullopt});
    } else {
      if (!in.GetOpaque(value)) return Error::kXdrBufferOverflow;
      changes.push_back({type, value});
    }
  }
  if (n == 0 || n > kMaxAttributes) return Error::kBadArguments;
  OpenKey* key = FindKey(handle);
  if (key == nullptr) return Error::kKeyNotFound;
  if (Error e = RequireUser(); e != Error::kOk) return e;
  for (const Change& change : changes) {
    auto current = Attributes(key->object, {change.type});
    auto it = current.find(change.type);
    if (!change.value) {
      // signet keeps every attribute its class defines: "deleting" one
      // empties it (CKA_ID, CKA_LABEL: read back as length 0); one that
      // cannot be empty is refused (docs/CRYPTECH.md).
      if (it == current.end() || it->second.empty()) continue;
      Status emptied = hsm_.SetAttributeValue(*client_, session_, key->object, {{change.type, {}}});
      if (!emptied.ok()) return HalErrorOf(emptied.error());
      continue;
    }
    if (it != current.end() && std::equal(it->second.begin(), it->second.end(),
                                          change.value->begin(), change.value->end())) {
      continue;  // already so (the PKCS#11 library writes back what it read)
    }
    Status set =
        hsm_.SetAttributeValue(*client_, session_, key->object,
                               {{change.type, Bytes(change.value->begin(), change.value->end())}});
    if (!set.ok()) return HalErrorOf(set.error());
  }
  key->facts = KeyFactsOf(Attributes(key->object, KeyFactTypes()));
  return Error::kOk;
}

Error CryptechSession::PkeyGetAttributes(Reader& in, Writer& out) {
  std::uint32_t handle = 0, n = 0;
  if (!in.GetU32(handle) || !in.GetU32(n)) return Error::kXdrBufferOverflow;
  if (n > kMaxAttributes) return Error::kBadArguments;
  std::vector<CK_ATTRIBUTE_TYPE> types;
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint32_t type = 0;
    if (!in.GetU32(type)) return Error::kXdrBufferOverflow;
    types.push_back(type);
  }
  std::uint32_t buffer = 0;
  if (!in.GetU32(buffer)) return Error::kXdrBufferOverflow;
  if (n == 0) return Error::kBadArguments;
  if (4 * (1 + 2 * std::size_t{n}) + buffer > hal::kReplySpace) return Error::kRpcPacketOverflow;
  OpenKey* key = FindKey(handle);
  if (key == nullptr) return Error::kKeyNotFound;
  auto attrs = Attributes(key->object, types);
  out.PutU32(n);
  if (buffer == 0) {  // lengths only; an absent attribute has length 0
    for (CK_ATTRIBUTE_TYPE type : types) {
      out.PutU32(static_cast<std::uint32_t>(type));
      auto it = attrs.find(type);
      out.PutU32(it == attrs.end() ? 0 : static_cast<std::uint32_t>(it->second.size()));
    }
    return Error::kOk;
  }
  std::size_t total = 0;
  for (CK_ATTRIBUTE_TYPE type : types) {
    auto it = attrs.find(type);
    if (it == attrs.end()) return Error::kAttributeNotFound;
    total += it->second.size();
  }
  if (total > buffer) return Error::kResultTooLong;
  for (CK_ATTRIBUTE_TYPE type : types) {
    out.PutU32(static_cast<std::uint32_t>(type));
    out.PutOpaque(attrs[type]);
  }
  return Error::kOk;
}

}  // namespace signet::daemon

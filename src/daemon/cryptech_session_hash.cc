// The hash opcodes of CryptechSession (7-12): hashes and HMACs computed in
// signetd, each behind a hash handle of the connection that started it.
#include "daemon/cryptech_keys.h"
#include "daemon/cryptech_session.h"

namespace signet::daemon {

namespace hal = proto::hal;
using hal::Error;

namespace {

// kMaxHashes: hash handles one connection may hold open at once.
constexpr std::size_t kMaxHashes = 32;
// hal::kReplySpace: result bytes a reply can hold after its header.

}  // namespace

Error CryptechSession::HashGetDigestLength(Reader& in, Writer& out) {
  std::uint32_t alg = 0;
  if (!in.GetU32(alg)) return Error::kXdrBufferOverflow;
  const CryptechDigest* digest = FindCryptechDigest(alg);
  if (digest == nullptr) return Error::kBadArguments;
  out.PutU32(static_cast<std::uint32_t>(digest->length));
  return Error::kOk;
}

Error CryptechSession::HashGetDigestAlgorithmId(Reader& in, Writer& out) {
  std::uint32_t alg = 0;
  std::uint32_t max = 0;
  if (!in.GetU32(alg) || !in.GetU32(max)) return Error::kXdrBufferOverflow;
  if (max > hal::kReplySpace - 4) return Error::kRpcPacketOverflow;
  const CryptechDigest* digest = FindCryptechDigest(alg);
  if (digest == nullptr) return Error::kBadArguments;
  if (digest->algorithm_id.size() > max) return Error::kResultTooLong;
  out.PutOpaque(digest->algorithm_id);
  return Error::kOk;
}

Error CryptechSession::HashGetAlgorithm(Reader& in, Writer& out) {
  std::uint32_t handle = 0;
  if (!in.GetU32(handle)) return Error::kXdrBufferOverflow;
  auto it = hashes_.find(handle);
  if (it == hashes_.end()) return Error::kBadArguments;
  out.PutU32(static_cast<std::uint32_t>(it->second->digest().id));
  return Error::kOk;
}

Error CryptechSession::HashInitialize(Reader& in, Writer& out) {
  std::uint32_t session = 0;
  std::uint32_t alg = 0;
  ByteView key;
  if (!in.GetU32(session) || !in.GetU32(alg) || !in.GetOpaque(key)) {
    return Error::kXdrBufferOverflow;
  }
  const CryptechDigest* digest = FindCryptechDigest(alg);
  if (digest == nullptr) return Error::kBadArguments;
  if (hashes_.size() >= kMaxHashes) return Error::kAllocationFailure;
  auto hash = CryptechHash::Start(*digest, key);
  if (!hash.ok()) return HalErrorOf(hash.error());
  const std::uint32_t handle = next_handle_++;
  hashes_.emplace(handle, std::move(*hash));
  out.PutU32(handle);
  return Error::kOk;
}

Error CryptechSession::HashUpdate(Reader& in, Writer&) {
  std::uint32_t handle = 0;
  ByteView data;
  if (!in.GetU32(handle) || !in.GetOpaque(data)) return Error::kXdrBufferOverflow;
  auto it = hashes_.find(handle);
  if (it == hashes_.end()) return Error::kBadArguments;
  Status update = it->second->Update(data);
  return update.ok() ? Error::kOk : HalErrorOf(update.error());
}

Error CryptechSession::HashFinalize(Reader& in, Writer& out) {
  std::uint32_t handle = 0;
  std::uint32_t length = 0;
  if (!in.GetU32(handle) || !in.GetU32(length)) return Error::kXdrBufferOverflow;
  if (length > hal::kReplySpace - 4) return Error::kRpcPacketOverflow;
  std::unique_ptr<CryptechHash> hash = TakeHash(handle);  // ended even on error
  if (hash == nullptr || length == 0 || length < hash->digest().length) {
    return Error::kBadArguments;
  }
  auto digest = hash->Finish();
  if (!digest.ok()) return HalErrorOf(digest.error());
  // Exactly the digest, however much room the caller offered.
  out.PutOpaque(*digest);
  return Error::kOk;
}

std::unique_ptr<CryptechHash> CryptechSession::TakeHash(std::uint32_t handle) {
  auto it = hashes_.find(handle);
  if (it == hashes_.end()) return nullptr;
  std::unique_ptr<CryptechHash> hash = std::move(it->second);
  hashes_.erase(it);
  return hash;
}

}  // namespace signet::daemon

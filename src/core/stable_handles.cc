#include "core/stable_handles.h"

namespace signet::core {
namespace {

constexpr std::uint64_t kStableBit = std::uint64_t{1} << 63;
constexpr int kObjectBits = 40;
constexpr int kSlotBits = 23;
constexpr std::uint64_t kObjectMask = (std::uint64_t{1} << kObjectBits) - 1;
constexpr std::uint64_t kSlotMask = (std::uint64_t{1} << kSlotBits) - 1;

static_assert(sizeof(CK_OBJECT_HANDLE) == sizeof(std::uint64_t),
              "stable handles need a 64-bit CK_OBJECT_HANDLE");

}  // namespace

Result<StableHandles> StableHandles::Make(ByteView key) {
  SIGNET_ASSIGN_OR_RETURN(crypto::KeyedPermutation permutation,
                          crypto::KeyedPermutation::Make(key));
  return StableHandles(std::move(permutation));
}

std::optional<CK_OBJECT_HANDLE> StableHandles::HandleOf(CK_SLOT_ID slot,
                                                        keystore::ObjectHandle id) const {
  const auto object = static_cast<std::uint64_t>(id);
  if (slot > kSlotMask || object > kObjectMask) return std::nullopt;
  const std::uint64_t handle =
      permutation_.Forward(kStableBit | (std::uint64_t{slot} << kObjectBits) | object);
  if (handle == CK_INVALID_HANDLE) return std::nullopt;
  return handle;
}

std::optional<std::pair<CK_SLOT_ID, keystore::ObjectHandle>> StableHandles::ObjectOf(
    CK_OBJECT_HANDLE handle) const {
  const std::uint64_t value = permutation_.Backward(handle);
  if ((value & kStableBit) == 0) return std::nullopt;
  return std::make_pair(static_cast<CK_SLOT_ID>((value >> kObjectBits) & kSlotMask),
                        static_cast<keystore::ObjectHandle>(value & kObjectMask));
}

}  // namespace signet::core

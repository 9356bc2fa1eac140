#include "keystore/pin_policy.h"

#include <string>

namespace signet::keystore {

Status CheckPinLength(std::span<const std::uint8_t> pin, std::string_view which) {
  if (pin.size() < kMinPinLen || pin.size() > kMaxPinLen) {
    return MakeError(CKR_PIN_LEN_RANGE, std::string(which) + " length must be " +
                                            std::to_string(kMinPinLen) + "-" +
                                            std::to_string(kMaxPinLen) + " bytes");
  }
  return OkStatus();
}

}  // namespace signet::keystore

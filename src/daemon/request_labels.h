// Request labels for the per-request metrics (core/request_metrics.h): the
// operation index of a wire request (its RequestBody type), the mechanism
// slot it names, and the label values the metrics endpoint prints for both
// ("sign", "CKM_ECDSA").
//
// Pure functions over constant tables: safe from any thread. RequestOp and
// RequestMechanismSlot are on the request path and do no allocation and no
// string work.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "proto/signet_generated.h"

namespace signet::daemon {

// RequestOp: the operation index of `request` (its body type).
inline std::size_t RequestOp(const wire::Request& request) {
  return static_cast<std::size_t>(request.body_type());
}

// RequestMechanismSlot: the mechanism slot (core::RequestMetrics) of the
// mechanism `request` names: a table row, kOtherMechanism for one not in
// the table, kNoMechanism when the operation takes none.
std::size_t RequestMechanismSlot(const wire::Request& request);

// OpLabel: the operation's label, the request type in snake case without
// "Request" ("sign", "sign_batch", "get_attribute_value").
std::string OpLabel(std::size_t op);

// MechanismLabel: the mechanism slot's label: the CKM_ name, "none" or
// "other".
std::string_view MechanismLabel(std::size_t slot);

}  // namespace signet::daemon

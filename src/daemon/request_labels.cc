#include "daemon/request_labels.h"

#include <array>
#include <cctype>

#include "core/request_metrics.h"

namespace signet::daemon {
namespace {

using wire::RequestBody;
using MechanismOf = const wire::Mechanism* (*)(const wire::Request&);

static_assert(static_cast<std::size_t>(RequestBody::MAX) < core::RequestMetrics::kMaxOps,
              "core::RequestMetrics::kMaxOps must cover every request type");

template <typename T>
const wire::Mechanism* Of(const wire::Request& request) {
  const T* body = request.body_as<T>();
  return body ? body->mechanism() : nullptr;
}

// kMechanismOf: for each request type that names a mechanism, how to read
// it; nullptr for the others.
constexpr auto kMechanismOf = [] {
  std::array<MechanismOf, static_cast<std::size_t>(RequestBody::MAX) + 1> t{};
  auto set = [&t](RequestBody b, MechanismOf f) { t[static_cast<std::size_t>(b)] = f; };
  set(RequestBody::GenerateKeyPairRequest, Of<wire::GenerateKeyPairRequest>);
  set(RequestBody::GenerateKeyRequest, Of<wire::GenerateKeyRequest>);
  set(RequestBody::SignRequest, Of<wire::SignRequest>);
  set(RequestBody::SignBatchRequest, Of<wire::SignBatchRequest>);
  set(RequestBody::VerifyRequest, Of<wire::VerifyRequest>);
  set(RequestBody::DigestRequest, Of<wire::DigestRequest>);
  set(RequestBody::EncryptRequest, Of<wire::EncryptRequest>);
  set(RequestBody::DecryptRequest, Of<wire::DecryptRequest>);
  set(RequestBody::WrapKeyRequest, Of<wire::WrapKeyRequest>);
  set(RequestBody::UnwrapKeyRequest, Of<wire::UnwrapKeyRequest>);
  set(RequestBody::StreamUpdateRequest, Of<wire::StreamUpdateRequest>);
  set(RequestBody::DeriveKeyRequest, Of<wire::DeriveKeyRequest>);
  return t;
}();

}  // namespace

std::size_t RequestMechanismSlot(const wire::Request& request) {
  const std::size_t op = RequestOp(request);
  MechanismOf of = op < kMechanismOf.size() ? kMechanismOf[op] : nullptr;
  const wire::Mechanism* mechanism = of ? of(request) : nullptr;
  if (mechanism == nullptr) return core::RequestMetrics::kNoMechanism;
  return core::RequestMetrics::MechanismSlot(static_cast<CK_MECHANISM_TYPE>(mechanism->type()));
}

std::string OpLabel(std::size_t op) {
  if (op > static_cast<std::size_t>(RequestBody::MAX)) return "unknown";
  std::string_view name = wire::EnumNameRequestBody(static_cast<RequestBody>(op));
  if (name.size() > 7 && name.substr(name.size() - 7) == "Request") name.remove_suffix(7);
  std::string out;
  for (char c : name) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (!out.empty()) out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

std::string_view MechanismLabel(std::size_t slot) {
  if (slot < core::RequestMetrics::kTableRows) return kMechanismTable[slot].name;
  return slot == core::RequestMetrics::kNoMechanism ? "none" : "other";
}

}  // namespace signet::daemon

#include <cstring>

#include "base/rv_names.h"
#include "daemon/cryptech_keys.h"
#include "daemon/log.h"

namespace signet::daemon {
namespace {

namespace hal = proto::hal;

// kFlagAttributes: each usage flag and the attribute that carries it on a
// private key and on a public one.
struct FlagAttribute {
  std::uint32_t flag;
  CK_ATTRIBUTE_TYPE on_private;
  CK_ATTRIBUTE_TYPE on_public;
};
constexpr FlagAttribute kFlagAttributes[] = {
    {hal::kFlagDigitalSignature, CKA_SIGN, CKA_VERIFY},
    {hal::kFlagKeyEncipherment, CKA_UNWRAP, CKA_WRAP},
    {hal::kFlagDataEncipherment, CKA_DECRYPT, CKA_ENCRYPT},
};

bool IsTrue(const std::map<CK_ATTRIBUTE_TYPE, Bytes>& a, CK_ATTRIBUTE_TYPE type) {
  auto it = a.find(type);
  return it != a.end() && it->second.size() == 1 && it->second[0] != 0;
}

std::optional<CK_ULONG> Ulong(const std::map<CK_ATTRIBUTE_TYPE, Bytes>& a, CK_ATTRIBUTE_TYPE t) {
  auto it = a.find(t);
  if (it == a.end() || it->second.size() != sizeof(CK_ULONG)) return std::nullopt;
  CK_ULONG value = 0;
  std::memcpy(&value, it->second.data(), sizeof value);
  return value;
}

}  // namespace

hal::Error HalErrorOf(const Error& error) {
  switch (error.code) {
    case CKR_PIN_INCORRECT:
      return hal::Error::kPinIncorrect;
    case CKR_PIN_LOCKED:
    case CKR_USER_NOT_LOGGED_IN:
    case CKR_ATTRIBUTE_READ_ONLY:
    case CKR_KEY_FUNCTION_NOT_PERMITTED:
    case CKR_KEY_UNEXTRACTABLE:
    case CKR_KEY_NOT_WRAPPABLE:  // the wrap policy: an untrusted receiver
    case CKR_ACTION_PROHIBITED:
    case CKR_USER_TYPE_INVALID:
    case CKR_USER_ANOTHER_ALREADY_LOGGED_IN:
      return hal::Error::kForbidden;
    case CKR_OBJECT_HANDLE_INVALID:
    case CKR_KEY_HANDLE_INVALID:
      return hal::Error::kKeyNotFound;
    case CKR_SIGNATURE_INVALID:
    case CKR_SIGNATURE_LEN_RANGE:
      return hal::Error::kInvalidSignature;
    case CKR_KEY_SIZE_RANGE:
    case CKR_KEY_TYPE_INCONSISTENT:
    case CKR_CURVE_NOT_SUPPORTED:
      return hal::Error::kUnsupportedKey;
    case CKR_DEVICE_MEMORY:
    case CKR_HOST_MEMORY:
      return hal::Error::kAllocationFailure;
    case CKR_WRAPPED_KEY_INVALID:
    case CKR_WRAPPED_KEY_LEN_RANGE:
      return hal::Error::kKeywrapBadLength;
    case CKR_ATTRIBUTE_TYPE_INVALID:
    case CKR_ATTRIBUTE_VALUE_INVALID:
    case CKR_TEMPLATE_INCOMPLETE:
    case CKR_TEMPLATE_INCONSISTENT:
    case CKR_ARGUMENTS_BAD:
    case CKR_DATA_LEN_RANGE:
    case CKR_DATA_INVALID:
    case CKR_MECHANISM_PARAM_INVALID:
      return hal::Error::kBadArguments;
    default:
      // No libhal code says it: the daemon's log does.
      Log("cryptech: " + DescribeError(error));
      return hal::Error::kImpossible;
  }
}

core::Template KeyFlagTemplate(std::uint32_t flags, bool private_key) {
  core::Template t;
  for (const FlagAttribute& f : kFlagAttributes) {
    t.push_back({private_key ? f.on_private : f.on_public, BoolBytes((flags & f.flag) != 0)});
  }
  t.push_back({CKA_TOKEN, BoolBytes((flags & hal::kFlagToken) != 0)});
  t.push_back({CKA_PRIVATE, BoolBytes((flags & hal::kFlagPublic) == 0)});
  if (private_key) {
    t.push_back({CKA_EXTRACTABLE, BoolBytes((flags & hal::kFlagExportable) != 0)});
  }
  return t;
}

const std::vector<CK_ATTRIBUTE_TYPE>& KeyFactTypes() {
  static const std::vector<CK_ATTRIBUTE_TYPE> kTypes = {
      CKA_CLASS, CKA_KEY_TYPE, CKA_EC_PARAMS, CKA_TOKEN, CKA_PRIVATE, CKA_EXTRACTABLE,
      CKA_SIGN,  CKA_VERIFY,   CKA_UNWRAP,    CKA_WRAP,  CKA_DECRYPT, CKA_ENCRYPT};
  return kTypes;
}

KeyFacts KeyFactsOf(const std::map<CK_ATTRIBUTE_TYPE, Bytes>& a) {
  KeyFacts facts;
  const auto cls = Ulong(a, CKA_CLASS);
  const auto key_type = Ulong(a, CKA_KEY_TYPE);
  const bool is_private = cls == CKO_PRIVATE_KEY;
  if (key_type == CKK_RSA) {
    facts.type = is_private ? hal::KeyType::kRsaPrivate : hal::KeyType::kRsaPublic;
  } else if (key_type == CKK_EC) {
    auto params = a.find(CKA_EC_PARAMS);
    auto type = params == a.end() ? Result<crypto::KeyType>(MakeError(CKR_GENERAL_ERROR, ""))
                                  : crypto::KeyTypeFromEcParams(params->second);
    facts.curve = type.ok() ? CurveOf(*type) : hal::Curve::kNone;
    if (facts.curve != hal::Curve::kNone) {
      facts.type = is_private ? hal::KeyType::kEcPrivate : hal::KeyType::kEcPublic;
    }
  }
  for (const FlagAttribute& f : kFlagAttributes) {
    if (IsTrue(a, is_private ? f.on_private : f.on_public)) facts.flags |= f.flag;
  }
  if (IsTrue(a, CKA_TOKEN)) facts.flags |= hal::kFlagToken;
  if (!IsTrue(a, CKA_PRIVATE)) facts.flags |= hal::kFlagPublic;
  if (!is_private || IsTrue(a, CKA_EXTRACTABLE)) facts.flags |= hal::kFlagExportable;
  return facts;
}

std::optional<crypto::KeyType> CurveKeyType(std::uint32_t curve) {
  switch (static_cast<hal::Curve>(curve)) {
    case hal::Curve::kP256:
      return crypto::KeyType::kEcP256;
    case hal::Curve::kP384:
      return crypto::KeyType::kEcP384;
    case hal::Curve::kP521:
      return crypto::KeyType::kEcP521;
    default:
      return std::nullopt;
  }
}

hal::Curve CurveOf(crypto::KeyType type) {
  for (std::uint32_t c = 1; c <= 3; ++c) {
    if (CurveKeyType(c) == type) return static_cast<hal::Curve>(c);
  }
  return hal::Curve::kNone;
}

}  // namespace signet::daemon

// KeySpec parsing/naming and the KeyType table (key_types.h): curve names,
// NIDs and the CKA_EC_PARAMS encodings PKCS#11 uses.
#include <openssl/obj_mac.h>

#include <algorithm>
#include <array>
#include <charconv>

#include "crypto/key_types.h"
#include "crypto/keys.h"

namespace signet::crypto {
namespace internal {
namespace {

// DER OBJECT IDENTIFIERs (tag 06): prime256v1 1.2.840.10045.3.1.7,
// secp384r1 1.3.132.0.34, secp521r1 1.3.132.0.35, secp256k1 1.3.132.0.10,
// id-Ed25519 1.3.101.112, id-X25519 1.3.101.110, id-X448 1.3.101.111,
// id-Ed448 1.3.101.113 (RFC 8410), prime192v1 1.2.840.10045.3.1.1.
constexpr std::uint8_t kP256Oid[] = {0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};
constexpr std::uint8_t kP384Oid[] = {0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22};
constexpr std::uint8_t kP521Oid[] = {0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23};
constexpr std::uint8_t kSecp256k1Oid[] = {0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a};
constexpr std::uint8_t kEd25519Oid[] = {0x06, 0x03, 0x2b, 0x65, 0x70};
constexpr std::uint8_t kX25519Oid[] = {0x06, 0x03, 0x2b, 0x65, 0x6e};
constexpr std::uint8_t kX448Oid[] = {0x06, 0x03, 0x2b, 0x65, 0x6f};
constexpr std::uint8_t kEd448Oid[] = {0x06, 0x03, 0x2b, 0x65, 0x71};
constexpr std::uint8_t kP192Oid[] = {0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x01};

// PKCS#11 3.0 (section 2.3.10) also lets CKA_EC_PARAMS name Ed25519 and
// Ed448 by the PrintableString "edwards25519" / "edwards448"; we accept it
// but emit the OID.
constexpr std::uint8_t kEdwards25519String[] = {0x13, 0x0c, 'e', 'd', 'w', 'a', 'r',
                                                'd',  's',  '2', '5', '5', '1', '9'};
constexpr std::uint8_t kEdwards448String[] = {0x13, 0x0a, 'e', 'd', 'w', 'a',
                                              'r',  'd',  's', '4', '4', '8'};
// And X25519 / X448 (section 2.3.7) by "curve25519" / "curve448".
constexpr std::uint8_t kCurve25519String[] = {0x13, 0x0a, 'c', 'u', 'r', 'v',
                                              'e',  '2',  '5', '5', '1', '9'};
constexpr std::uint8_t kCurve448String[] = {0x13, 0x08, 'c', 'u', 'r', 'v', 'e', '4', '4', '8'};

// Indexed by KeyType.
constexpr std::array<KeyTypeInfo, 15> kKeyTypes = {{
    {KeyType::kRsa, "rsa", "RSA", nullptr, NID_undef, {}, 0},
    {KeyType::kEcP256, "ec:p256", "EC", "P-256", NID_X9_62_prime256v1, kP256Oid, 32},
    {KeyType::kEcP384, "ec:p384", "EC", "P-384", NID_secp384r1, kP384Oid, 48},
    {KeyType::kEcP521, "ec:p521", "EC", "P-521", NID_secp521r1, kP521Oid, 66},
    {KeyType::kEcSecp256k1, "ec:secp256k1", "EC", "secp256k1", NID_secp256k1, kSecp256k1Oid, 32},
    {KeyType::kEd25519, "ed25519", "ED25519", nullptr, NID_undef, kEd25519Oid, 32},
    {KeyType::kX25519, "x25519", "X25519", nullptr, NID_undef, kX25519Oid, 32},
    {KeyType::kX448, "x448", "X448", nullptr, NID_undef, kX448Oid, 56},
    {KeyType::kEd448, "ed448", "ED448", nullptr, NID_undef, kEd448Oid, 57},
    // The RFC 7919 groups: no CKA_EC_PARAMS, no curve NID (IsEc is false);
    // field_bytes is the prime's length.
    {KeyType::kDhFfdhe2048, "dh:ffdhe2048", "DH", "ffdhe2048", NID_undef, {}, 256},
    {KeyType::kDhFfdhe3072, "dh:ffdhe3072", "DH", "ffdhe3072", NID_undef, {}, 384},
    {KeyType::kDhFfdhe4096, "dh:ffdhe4096", "DH", "ffdhe4096", NID_undef, {}, 512},
    {KeyType::kDhFfdhe6144, "dh:ffdhe6144", "DH", "ffdhe6144", NID_undef, {}, 768},
    {KeyType::kDhFfdhe8192, "dh:ffdhe8192", "DH", "ffdhe8192", NID_undef, {}, 1024},
    {KeyType::kEcP192, "ec:secp192r1", "EC", "P-192", NID_X9_62_prime192v1, kP192Oid, 24},
}};

bool SameBytes(ByteView a, ByteView b) { return std::ranges::equal(a, b); }

}  // namespace

const KeyTypeInfo& InfoFor(KeyType type) { return kKeyTypes[static_cast<std::size_t>(type)]; }

const KeyTypeInfo* InfoForCurveNid(int nid) {
  if (nid == NID_undef) return nullptr;
  auto it = std::ranges::find(kKeyTypes, nid, &KeyTypeInfo::nid);
  return it == kKeyTypes.end() ? nullptr : &*it;
}

std::span<const KeyTypeInfo> AllKeyTypes() { return kKeyTypes; }

bool IsRawKey(KeyType type) { return IsEdwards(type) || IsMontgomery(type); }

}  // namespace internal

Result<KeySpec> ParseKeySpec(std::string_view text) {
  constexpr std::string_view kRsaPrefix = "rsa:";
  if (text.starts_with(kRsaPrefix)) {
    std::string_view digits = text.substr(kRsaPrefix.size());
    int bits = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits);
    if (ec != std::errc() || end != digits.data() + digits.size() || bits <= 0) {
      return MakeError(CKR_ARGUMENTS_BAD, "bad RSA key size in key spec: " + std::string(text));
    }
    return KeySpec{KeyType::kRsa, bits};
  }
  // "ec:p192" names secp192r1 the way the other NIST curves are named.
  if (text == "ec:p192") return KeySpec{KeyType::kEcP192, 0};
  for (const auto& info : internal::AllKeyTypes()) {
    if (info.type != KeyType::kRsa && !IsDh(info.type) && info.spec_name == text) {
      return KeySpec{info.type, 0};
    }
  }
  return MakeError(
      CKR_ARGUMENTS_BAD,
      "unknown key spec '" + std::string(text) +
          "' (want rsa:BITS, ec:p256, ec:p384, ec:p521, ec:secp256k1, ec:secp192r1, ed25519, "
          "ed448, x25519 or x448)");
}

std::string KeySpecName(const KeySpec& spec) {
  if (spec.type == KeyType::kRsa) return "rsa:" + std::to_string(spec.rsa_bits);
  return std::string(internal::InfoFor(spec.type).spec_name);
}

bool IsEc(KeyType type) { return internal::InfoFor(type).nid != NID_undef; }

bool IsBenchOnly(KeyType type) { return type == KeyType::kEcP192; }

bool IsMontgomery(KeyType type) { return type == KeyType::kX25519 || type == KeyType::kX448; }

bool IsEdwards(KeyType type) { return type == KeyType::kEd25519 || type == KeyType::kEd448; }

bool IsDh(KeyType type) {
  return type == KeyType::kDhFfdhe2048 || type == KeyType::kDhFfdhe3072 ||
         type == KeyType::kDhFfdhe4096 || type == KeyType::kDhFfdhe6144 ||
         type == KeyType::kDhFfdhe8192;
}

Bytes EcParamsDer(KeyType type) {
  auto der = internal::InfoFor(type).ec_params_der;
  return Bytes(der.begin(), der.end());
}

Result<KeyType> KeyTypeFromEcParams(ByteView der) {
  if (internal::SameBytes(der, internal::kEdwards25519String)) return KeyType::kEd25519;
  if (internal::SameBytes(der, internal::kEdwards448String)) return KeyType::kEd448;
  if (internal::SameBytes(der, internal::kCurve25519String)) return KeyType::kX25519;
  if (internal::SameBytes(der, internal::kCurve448String)) return KeyType::kX448;
  for (const auto& info : internal::AllKeyTypes()) {
    if (!info.ec_params_der.empty() && internal::SameBytes(der, info.ec_params_der)) {
      return info.type;
    }
  }
  return MakeError(CKR_CURVE_NOT_SUPPORTED, "unsupported CKA_EC_PARAMS");
}

}  // namespace signet::crypto

// ECDSA on secp256k1 through libsecp256k1: the process-wide context, the
// key forms PrivateKey and PublicKey cache, key generation, sign and
// verify (secp256k1_ecdsa.h).
#include "crypto/secp256k1_ecdsa.h"

#include <openssl/core_names.h>
#include <secp256k1.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "base/secure_bytes.h"
#include "crypto/key_types.h"
#include "crypto/ossl_error.h"
#include "crypto/symmetric.h"

namespace signet::crypto::internal {

constexpr std::size_t kScalarBytes = 32;
// An uncompressed point: 04 || X || Y.
constexpr std::size_t kPointBytes = 1 + 2 * kScalarBytes;
// The longest DER signature: SEQUENCE of two 33-byte INTEGERs.
constexpr std::size_t kMaxDerBytes = 72;

class Secp256k1Secret {
 public:
  Secp256k1Secret() = default;
  Secp256k1Secret(const Secp256k1Secret&) = delete;
  Secp256k1Secret& operator=(const Secp256k1Secret&) = delete;
  ~Secp256k1Secret() { WipeBytes(bytes_); }

  const unsigned char* data() const { return bytes_.data(); }
  std::array<unsigned char, kScalarBytes>& bytes() { return bytes_; }

 private:
  std::array<unsigned char, kScalarBytes> bytes_{};
};

class Secp256k1Point {
 public:
  const secp256k1_pubkey& get() const { return point_; }
  secp256k1_pubkey* mutable_point() { return &point_; }

 private:
  secp256k1_pubkey point_{};
};

namespace {

// IgnoreCallback: libsecp256k1 reports misuse (a null argument) and
// impossible states through callbacks whose defaults abort(). A library
// never aborts its host (docs/STYLE.md "Errors"): with this one the call
// returns 0, which every caller here turns into an error.
void IgnoreCallback(const char* /*message*/, void* /*data*/) {}

struct ContextDeleter {
  void operator()(secp256k1_context* ctx) const { secp256k1_context_destroy(ctx); }
};
using ContextPtr = std::unique_ptr<secp256k1_context, ContextDeleter>;

// NewContext creates the context and randomises it once with 32 DRBG bytes
// (blinding of the secret-dependent scalar multiplications, the side-channel
// protection secp256k1_context_randomize documents). nullptr on failure.
ContextPtr NewContext() {
  ContextPtr ctx(secp256k1_context_create(SECP256K1_CONTEXT_NONE));
  if (!ctx) return nullptr;
  secp256k1_context_set_illegal_callback(ctx.get(), IgnoreCallback, nullptr);
  secp256k1_context_set_error_callback(ctx.get(), IgnoreCallback, nullptr);
  Result<SecureBytes> seed = RandomBytes(kScalarBytes);
  if (!seed.ok() || secp256k1_context_randomize(ctx.get(), seed->data()) != 1) return nullptr;
  return ctx;
}

// Context returns the process-wide context, made on first use (a
// function-local static: C++ makes its initialisation thread-safe), or
// nullptr when it could not be made. Only const pointers to it leave here,
// so after creation every use is a const one (secp256k1_ecdsa.h).
const secp256k1_context* Context() {
  static const ContextPtr ctx = NewContext();
  return ctx.get();
}

Result<const secp256k1_context*> NeedContext() {
  const secp256k1_context* ctx = Context();
  if (ctx == nullptr) return MakeError(CKR_FUNCTION_FAILED, "libsecp256k1 context setup failed");
  return ctx;
}

// MessageScalar is ECDSA's e for a 256-bit group order (SEC 1 section 4.1.3
// step 5): the leftmost 32 bytes of a longer digest; a shorter one is the
// big-endian number it spells, so it is padded on the left (OpenSSL reads
// digests the same way, and both reduce e mod n).
std::array<unsigned char, kScalarBytes> MessageScalar(ByteView digest) {
  std::array<unsigned char, kScalarBytes> out{};
  const std::size_t n = std::min(digest.size(), kScalarBytes);
  if (n != 0) std::memcpy(out.data() + (kScalarBytes - n), digest.data(), n);
  return out;
}

}  // namespace

Result<std::shared_ptr<const Secp256k1Secret>> Secp256k1SecretOf(const EVP_PKEY* pkey) {
  SIGNET_ASSIGN_OR_RETURN(const secp256k1_context* ctx, NeedContext());
  BIGNUM* raw = nullptr;
  if (!EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_PRIV_KEY, &raw)) {
    return OsslError(CKR_FUNCTION_FAILED, "secp256k1 key without a private scalar");
  }
  BignumPtr d(raw);  // BN_clear_free
  auto secret = std::make_shared<Secp256k1Secret>();
  if (BN_bn2binpad(d.get(), secret->bytes().data(), kScalarBytes) < 0 ||
      secp256k1_ec_seckey_verify(ctx, secret->data()) != 1) {
    return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "secp256k1 private scalar out of range");
  }
  return std::shared_ptr<const Secp256k1Secret>(std::move(secret));
}

Result<std::shared_ptr<const Secp256k1Point>> Secp256k1PointOf(const EVP_PKEY* pkey) {
  SIGNET_ASSIGN_OR_RETURN(const secp256k1_context* ctx, NeedContext());
  std::array<unsigned char, kPointBytes> encoded{};
  std::size_t len = 0;
  if (!EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, encoded.data(),
                                       encoded.size(), &len)) {
    return OsslError(CKR_ATTRIBUTE_VALUE_INVALID, "secp256k1 key without a public point");
  }
  auto point = std::make_shared<Secp256k1Point>();
  if (secp256k1_ec_pubkey_parse(ctx, point->mutable_point(), encoded.data(), len) != 1) {
    return MakeError(CKR_ATTRIBUTE_VALUE_INVALID, "libsecp256k1 refuses the public point");
  }
  return std::shared_ptr<const Secp256k1Point>(std::move(point));
}

Result<Secp256k1KeyPair> Secp256k1Generate() {
  SIGNET_ASSIGN_OR_RETURN(const secp256k1_context* ctx, NeedContext());
  auto secret = std::make_shared<Secp256k1Secret>();
  do {
    SIGNET_ASSIGN_OR_RETURN(SecureBytes drawn, RandomBytes(kScalarBytes));
    std::copy(drawn.begin(), drawn.end(), secret->bytes().begin());
  } while (secp256k1_ec_seckey_verify(ctx, secret->data()) != 1);
  secp256k1_pubkey pub;
  std::array<unsigned char, kPointBytes> point{};
  std::size_t point_len = point.size();
  if (secp256k1_ec_pubkey_create(ctx, &pub, secret->data()) != 1 ||
      secp256k1_ec_pubkey_serialize(ctx, point.data(), &point_len, &pub,
                                    SECP256K1_EC_UNCOMPRESSED) != 1) {
    return MakeError(CKR_FUNCTION_FAILED, "libsecp256k1 public key computation failed");
  }
  SIGNET_ASSIGN_OR_RETURN(
      EvpPkeyPtr pkey, EcKeypairFromParts(KeyType::kEcSecp256k1, ByteView(secret->bytes()), point));
  return Secp256k1KeyPair{std::move(pkey), std::move(secret)};
}

Result<Bytes> Secp256k1Sign(const Secp256k1Secret* key, ByteView digest, EcdsaFormat format) {
  if (key == nullptr) return MakeError(CKR_GENERAL_ERROR, "secp256k1 key without its scalar");
  SIGNET_ASSIGN_OR_RETURN(const secp256k1_context* ctx, NeedContext());
  const auto e = MessageScalar(digest);
  // The nonce's extra data comes from the private DRBG, as OpenSSL's
  // nonces do; SecureBytes wipes it.
  SIGNET_ASSIGN_OR_RETURN(SecureBytes extra, RandomBytes(kScalarBytes));
  secp256k1_ecdsa_signature sig;
  if (secp256k1_ecdsa_sign(ctx, &sig, e.data(), key->data(), secp256k1_nonce_function_rfc6979,
                           extra.data()) != 1) {
    return MakeError(CKR_FUNCTION_FAILED, "libsecp256k1 signing failed");
  }
  if (format == EcdsaFormat::kRaw) {
    Bytes out(2 * kScalarBytes);
    secp256k1_ecdsa_signature_serialize_compact(ctx, out.data(), &sig);
    return out;
  }
  Bytes out(kMaxDerBytes);
  std::size_t len = out.size();
  if (secp256k1_ecdsa_signature_serialize_der(ctx, out.data(), &len, &sig) != 1) {
    return MakeError(CKR_FUNCTION_FAILED, "libsecp256k1 DER encoding failed");
  }
  out.resize(len);
  return out;
}

Status Secp256k1Verify(const Secp256k1Point* key, ByteView digest, ByteView signature,
                       EcdsaFormat format) {
  if (key == nullptr) return MakeError(CKR_GENERAL_ERROR, "secp256k1 key without its point");
  SIGNET_ASSIGN_OR_RETURN(const secp256k1_context* ctx, NeedContext());
  secp256k1_ecdsa_signature sig;
  // parse_compact refuses r or s not below n; parse_der takes them and
  // makes a signature that fails to verify: CKR_SIGNATURE_INVALID either way.
  const bool parsed =
      format == EcdsaFormat::kRaw
          ? signature.size() == 2 * kScalarBytes &&
                secp256k1_ecdsa_signature_parse_compact(ctx, &sig, signature.data()) == 1
          : secp256k1_ecdsa_signature_parse_der(ctx, &sig, signature.data(), signature.size()) == 1;
  if (!parsed) return MakeError(CKR_SIGNATURE_INVALID, "malformed ECDSA signature");
  // OpenSSL accepts either s and -s mod n; libsecp256k1 only the low one.
  secp256k1_ecdsa_signature_normalize(ctx, &sig, &sig);
  const auto e = MessageScalar(digest);
  if (secp256k1_ecdsa_verify(ctx, &sig, e.data(), &key->get()) != 1) {
    return MakeError(CKR_SIGNATURE_INVALID, "signature invalid");
  }
  return OkStatus();
}

}  // namespace signet::crypto::internal

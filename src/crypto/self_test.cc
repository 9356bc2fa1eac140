// Start-up known-answer tests. Each check recomputes a published answer with
// signet's own wrappers (not raw OpenSSL), so a broken wrapper fails here
// before any key is stored or any request served.
#include "crypto/self_test.h"

#include <mutex>
#include <optional>
#include <string>

#include "base/hex.h"
#include "crypto/self_test_internal.h"
#include "crypto/self_test_vectors.h"
#include "crypto/symmetric.h"

namespace signet::crypto {
namespace internal {
namespace {

// PKCS#8 PrivateKeyInfo header for an Ed25519 seed (RFC 8410 section 7):
// SEQUENCE { INTEGER 0, SEQUENCE { OID 1.3.101.112 }, OCTET STRING {
// OCTET STRING (32 bytes) } }.
constexpr std::uint8_t kEd25519Pkcs8Prefix[] = {0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06,
                                                0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20};

Error Failed(std::string_view name, std::string_view detail) {
  return MakeError(CKR_FUNCTION_FAILED,
                   "self-test " + std::string(name) + " failed: " + std::string(detail));
}

// Expect turns a failed step into the named self-test failure.
template <typename T>
Result<T> Expect(Result<T> r, std::string_view name, std::string_view step) {
  if (!r.ok()) return Failed(name, std::string(step) + ": " + r.error().message);
  return r;
}

Status ExpectEqual(ByteView got, ByteView want, std::string_view name, std::string_view what) {
  if (!EqualConstantTime(got, want)) return Failed(name, std::string(what) + " mismatch");
  return OkStatus();
}

// DecodeVector decodes one hex field of a vector; a malformed field is the
// named self-test's failure, not a crash.
Result<Bytes> DecodeVector(std::string_view hex, std::string_view name) {
  std::optional<Bytes> bytes = FromHex(hex);
  if (!bytes) return Failed(name, "vector: not hex");
  return std::move(*bytes);
}

// VerifyRejectsFlip checks that `sig` verifies and that the same signature
// with one bit flipped does not: a verifier that accepts anything fails.
Status VerifyRejectsFlip(const PublicKey& pub, const SignParams& params, ByteView msg, ByteView sig,
                         std::string_view name) {
  SIGNET_TRY(Expect(Verify(pub, params, msg, sig), name, "verify"));
  Bytes flipped(sig.begin(), sig.end());
  flipped[flipped.size() / 2] ^= 0x01;
  if (Verify(pub, params, msg, flipped).ok()) return Failed(name, "accepted a corrupted signature");
  return OkStatus();
}

}  // namespace

Status CheckDigest(const DigestVector& v) {
  SIGNET_ASSIGN_OR_RETURN(Bytes want, DecodeVector(v.digest_hex, v.name));
  SIGNET_ASSIGN_OR_RETURN(Bytes got, Expect(Digest(v.alg, AsBytes(v.message)), v.name, "digest"));
  return ExpectEqual(got, want, v.name, "digest");
}

Status CheckGcm(const GcmVector& v) {
  Bytes key, iv, aad, plain, want;
  SIGNET_ASSIGN_OR_RETURN(key, DecodeVector(v.key_hex, v.name));
  SIGNET_ASSIGN_OR_RETURN(iv, DecodeVector(v.iv_hex, v.name));
  SIGNET_ASSIGN_OR_RETURN(aad, DecodeVector(v.aad_hex, v.name));
  SIGNET_ASSIGN_OR_RETURN(plain, DecodeVector(v.plaintext_hex, v.name));
  SIGNET_ASSIGN_OR_RETURN(
      want, DecodeVector(std::string(v.ciphertext_hex) + std::string(v.tag_hex), v.name));
  SIGNET_ASSIGN_OR_RETURN(Bytes got, Expect(AesGcmEncrypt(key, iv, aad, plain), v.name, "encrypt"));
  SIGNET_TRY(ExpectEqual(got, want, v.name, "ciphertext||tag"));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes back,
                          Expect(AesGcmDecrypt(key, iv, aad, want), v.name, "decrypt"));
  return ExpectEqual(back, plain, v.name, "decrypted plaintext");
}

Status CheckKeyWrap(const KeyWrapVector& v) {
  Bytes kek, key, want;
  SIGNET_ASSIGN_OR_RETURN(kek, DecodeVector(v.kek_hex, v.name));
  SIGNET_ASSIGN_OR_RETURN(key, DecodeVector(v.key_hex, v.name));
  SIGNET_ASSIGN_OR_RETURN(want, DecodeVector(v.wrapped_hex, v.name));
  SIGNET_ASSIGN_OR_RETURN(Bytes got, Expect(AesKeyWrapPad(kek, key), v.name, "wrap"));
  SIGNET_TRY(ExpectEqual(got, want, v.name, "wrapped key"));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes back, Expect(AesKeyUnwrapPad(kek, want), v.name, "unwrap"));
  return ExpectEqual(back, key, v.name, "unwrapped key");
}

Status CheckEd25519(const Ed25519Vector& v) {
  Bytes seed, pub_want, msg, sig_want;
  SIGNET_ASSIGN_OR_RETURN(seed, DecodeVector(v.seed_hex, v.name));
  SIGNET_ASSIGN_OR_RETURN(pub_want, DecodeVector(v.public_hex, v.name));
  SIGNET_ASSIGN_OR_RETURN(msg, DecodeVector(v.message_hex, v.name));
  SIGNET_ASSIGN_OR_RETURN(sig_want, DecodeVector(v.signature_hex, v.name));
  SecureBytes pkcs8(std::begin(kEd25519Pkcs8Prefix), std::end(kEd25519Pkcs8Prefix));
  pkcs8.insert(pkcs8.end(), seed.begin(), seed.end());
  SIGNET_ASSIGN_OR_RETURN(PrivateKey key,
                          Expect(PrivateKey::FromPkcs8Der(pkcs8), v.name, "import seed"));
  SIGNET_ASSIGN_OR_RETURN(PublicKey pub, Expect(key.Public(), v.name, "public key"));
  SIGNET_ASSIGN_OR_RETURN(Bytes pub_got, Expect(pub.EcPoint(), v.name, "public key"));
  SIGNET_TRY(ExpectEqual(pub_got, pub_want, v.name, "public key"));
  SignParams params{.scheme = SignScheme::kEddsa};
  SIGNET_ASSIGN_OR_RETURN(Bytes sig, Expect(Sign(key, params, msg), v.name, "sign"));
  SIGNET_TRY(ExpectEqual(sig, sig_want, v.name, "signature"));
  return VerifyRejectsFlip(pub, params, msg, sig_want, v.name);
}

Status CheckSignature(const SignatureVector& v) {
  Bytes spki, sig;
  SIGNET_ASSIGN_OR_RETURN(spki, DecodeVector(v.spki_hex, v.name));
  SIGNET_ASSIGN_OR_RETURN(sig, DecodeVector(v.signature_hex, v.name));
  SIGNET_ASSIGN_OR_RETURN(PublicKey pub, Expect(PublicKey::FromDer(spki), v.name, "import"));
  SignParams params{.scheme = v.scheme, .digest = v.digest};
  return VerifyRejectsFlip(pub, params, AsBytes(v.message), sig, v.name);
}

template <typename Vectors, typename Check>
Status RunEach(const Vectors& vectors, Check check) {
  for (const auto& v : vectors) SIGNET_TRY(check(v));
  return OkStatus();
}

Status RunAllKnownAnswerTests() {
  SIGNET_TRY(RunEach(kDigestVectors, CheckDigest));
  SIGNET_TRY(RunEach(kGcmVectors, CheckGcm));
  SIGNET_TRY(RunEach(kKeyWrapVectors, CheckKeyWrap));
  SIGNET_TRY(RunEach(kEd25519Vectors, CheckEd25519));
  return RunEach(kSignatureVectors, CheckSignature);
}

}  // namespace internal

Status RunSelfTests() {
  static std::once_flag once;
  static Status* result = nullptr;  // leaked on purpose: read after main returns
  std::call_once(once, [] { result = new Status(internal::RunAllKnownAnswerTests()); });
  return *result;
}

}  // namespace signet::crypto

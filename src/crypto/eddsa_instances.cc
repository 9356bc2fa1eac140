#include "crypto/eddsa_instances.h"

#include <decaf/ed255.h>
#include <decaf/ed448.h>
#include <openssl/crypto.h>

#include <array>
#include <cstdint>

#include "crypto/ossl_error.h"

namespace signet::crypto::internal {
namespace {

// Context: an RFC 8032 context as libdecaf takes it. `data` is never
// null: for Ed25519, libdecaf reads its own "no context" pointer as plain
// Ed25519 (no dom2 prefix), which is never what is asked for here.
struct Context {
  const std::uint8_t* data;
  std::uint8_t size;
};

Context ContextOf(const EddsaInstance& instance) {
  static constexpr std::uint8_t kNoBytes = 0;
  if (instance.context.empty()) return {&kNoBytes, 0};
  // CheckParams (sign.cc) bounds the context at kMaxEddsaContext (255).
  return {instance.context.data(), static_cast<std::uint8_t>(instance.context.size())};
}

// Ed25519Calls / Ed448Calls: libdecaf's sizes and functions for one curve,
// so that signing and verifying below are written once. Only the keypair
// forms of signing are used: they derive the public key from the private
// one, so a mismatched pair can never leak the private key.
struct Ed25519Calls {
  static constexpr std::size_t kPrivateBytes = DECAF_EDDSA_25519_PRIVATE_BYTES;
  static constexpr std::size_t kPublicBytes = DECAF_EDDSA_25519_PUBLIC_BYTES;
  static constexpr std::size_t kSignatureBytes = DECAF_EDDSA_25519_SIGNATURE_BYTES;
  using Keypair = decaf_eddsa_25519_keypair_s;
  using Prehash = decaf_ed25519_prehash_ctx_s;
  static void DeriveKeypair(Keypair* kp, const std::uint8_t* priv) {
    decaf_ed25519_derive_keypair(kp, priv);
  }
  static void DestroyKeypair(Keypair* kp) { decaf_ed25519_keypair_destroy(kp); }
  static void Sign(std::uint8_t* sig, const Keypair* kp, ByteView m, Context ctx) {
    decaf_ed25519_keypair_sign(sig, kp, m.data(), m.size(), 0, ctx.data, ctx.size);
  }
  static void SignPrehash(std::uint8_t* sig, const Keypair* kp, const Prehash* h, Context ctx) {
    decaf_ed25519_keypair_sign_prehash(sig, kp, h, ctx.data, ctx.size);
  }
  static decaf_error_t Verify(const std::uint8_t* sig, const std::uint8_t* pub, ByteView m,
                              Context ctx) {
    return decaf_ed25519_verify(sig, pub, m.data(), m.size(), 0, ctx.data, ctx.size);
  }
  static decaf_error_t VerifyPrehash(const std::uint8_t* sig, const std::uint8_t* pub,
                                     const Prehash* h, Context ctx) {
    return decaf_ed25519_verify_prehash(sig, pub, h, ctx.data, ctx.size);
  }
  static void HashInit(Prehash* h) { decaf_ed25519_prehash_init(h); }
  static void HashUpdate(Prehash* h, ByteView m) {
    decaf_ed25519_prehash_update(h, m.data(), m.size());
  }
  static void HashDestroy(Prehash* h) { decaf_ed25519_prehash_destroy(h); }
};

struct Ed448Calls {
  static constexpr std::size_t kPrivateBytes = DECAF_EDDSA_448_PRIVATE_BYTES;
  static constexpr std::size_t kPublicBytes = DECAF_EDDSA_448_PUBLIC_BYTES;
  static constexpr std::size_t kSignatureBytes = DECAF_EDDSA_448_SIGNATURE_BYTES;
  using Keypair = decaf_eddsa_448_keypair_s;
  using Prehash = decaf_ed448_prehash_ctx_s;
  static void DeriveKeypair(Keypair* kp, const std::uint8_t* priv) {
    decaf_ed448_derive_keypair(kp, priv);
  }
  static void DestroyKeypair(Keypair* kp) { decaf_ed448_keypair_destroy(kp); }
  static void Sign(std::uint8_t* sig, const Keypair* kp, ByteView m, Context ctx) {
    decaf_ed448_keypair_sign(sig, kp, m.data(), m.size(), 0, ctx.data, ctx.size);
  }
  static void SignPrehash(std::uint8_t* sig, const Keypair* kp, const Prehash* h, Context ctx) {
    decaf_ed448_keypair_sign_prehash(sig, kp, h, ctx.data, ctx.size);
  }
  static decaf_error_t Verify(const std::uint8_t* sig, const std::uint8_t* pub, ByteView m,
                              Context ctx) {
    return decaf_ed448_verify(sig, pub, m.data(), m.size(), 0, ctx.data, ctx.size);
  }
  static decaf_error_t VerifyPrehash(const std::uint8_t* sig, const std::uint8_t* pub,
                                     const Prehash* h, Context ctx) {
    return decaf_ed448_verify_prehash(sig, pub, h, ctx.data, ctx.size);
  }
  static void HashInit(Prehash* h) { decaf_ed448_prehash_init(h); }
  static void HashUpdate(Prehash* h, ByteView m) {
    decaf_ed448_prehash_update(h, m.data(), m.size());
  }
  static void HashDestroy(Prehash* h) { decaf_ed448_prehash_destroy(h); }
};

// MessageHash: the ph instances' PH(M), wiped by libdecaf when it goes.
template <typename Calls>
class MessageHash {
 public:
  explicit MessageHash(ByteView message) {
    Calls::HashInit(&state_);
    Calls::HashUpdate(&state_, message);
  }
  ~MessageHash() { Calls::HashDestroy(&state_); }
  MessageHash(const MessageHash&) = delete;
  MessageHash& operator=(const MessageHash&) = delete;
  const typename Calls::Prehash* get() const { return &state_; }

 private:
  typename Calls::Prehash state_;
};

template <typename Calls>
Result<Bytes> SignWith(EVP_PKEY* pkey, const EddsaInstance& instance, ByteView message) {
  std::array<std::uint8_t, Calls::kPrivateBytes> secret{};
  std::size_t secret_len = secret.size();
  if (EVP_PKEY_get_raw_private_key(pkey, secret.data(), &secret_len) != 1 ||
      secret_len != secret.size()) {
    OPENSSL_cleanse(secret.data(), secret.size());
    return OsslError(CKR_FUNCTION_FAILED, "EdDSA private key not readable");
  }
  typename Calls::Keypair keypair;
  Calls::DeriveKeypair(&keypair, secret.data());
  OPENSSL_cleanse(secret.data(), secret.size());
  const Context context = ContextOf(instance);
  Bytes sig(Calls::kSignatureBytes);
  if (instance.prehash) {
    MessageHash<Calls> hash(message);
    Calls::SignPrehash(sig.data(), &keypair, hash.get(), context);
  } else {
    Calls::Sign(sig.data(), &keypair, message, context);
  }
  Calls::DestroyKeypair(&keypair);
  return sig;
}

template <typename Calls>
Status VerifyWith(EVP_PKEY* pkey, const EddsaInstance& instance, ByteView message,
                  ByteView signature) {
  std::array<std::uint8_t, Calls::kPublicBytes> public_key{};
  std::size_t public_len = public_key.size();
  if (EVP_PKEY_get_raw_public_key(pkey, public_key.data(), &public_len) != 1 ||
      public_len != public_key.size()) {
    return OsslError(CKR_FUNCTION_FAILED, "EdDSA public key not readable");
  }
  if (signature.size() != Calls::kSignatureBytes) {
    return MakeError(CKR_SIGNATURE_LEN_RANGE, "EdDSA signature of the wrong length");
  }
  const Context context = ContextOf(instance);
  decaf_error_t result;
  if (instance.prehash) {
    MessageHash<Calls> hash(message);
    result = Calls::VerifyPrehash(signature.data(), public_key.data(), hash.get(), context);
  } else {
    result = Calls::Verify(signature.data(), public_key.data(), message, context);
  }
  if (result != DECAF_SUCCESS) return MakeError(CKR_SIGNATURE_INVALID, "EdDSA signature invalid");
  return OkStatus();
}

}  // namespace

Result<Bytes> DecafEddsaSign(EVP_PKEY* pkey, KeyType type, const EddsaInstance& instance,
                             ByteView message) {
  return type == KeyType::kEd448 ? SignWith<Ed448Calls>(pkey, instance, message)
                                 : SignWith<Ed25519Calls>(pkey, instance, message);
}

Status DecafEddsaVerify(EVP_PKEY* pkey, KeyType type, const EddsaInstance& instance,
                        ByteView message, ByteView signature) {
  return type == KeyType::kEd448 ? VerifyWith<Ed448Calls>(pkey, instance, message, signature)
                                 : VerifyWith<Ed25519Calls>(pkey, instance, message, signature);
}

}  // namespace signet::crypto::internal

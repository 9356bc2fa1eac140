// Raw RSA-CRT arithmetic, confined to this file (see rsa_crt.h). Uses the
// deprecated RSA_padding_add_PKCS1_PSS_mgf1 for PSS encoding because EVP has
// no "encode only" call.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "crypto/rsa_crt.h"

#include <openssl/core_names.h>
#include <openssl/rsa.h>

#include <array>
#include <cstring>
#include <vector>

#include "base/mutex.h"

namespace signet::crypto {

// Blinding: a pair (A, Ai) = (r^e, r^-1) mod n for a random r, both kept
// in Montgomery form (times R mod n) so that applying or squaring one is a
// single Montgomery multiplication. Each use
// squares both, which gives the pair for r^2 at the cost of two
// multiplications instead of a modular inverse; after kBlindingUses uses
// the pair is dropped and a fresh r drawn (OpenSSL's own BN_BLINDING does
// the same, with the same count).
struct Blinding {
  BignumPtr a, ai;
  int uses = 0;
};
constexpr int kBlindingUses = 32;

struct RsaCrtKey::Components {
  BignumPtr n, e, p, q, dp, dq, qinv;
  std::unique_ptr<BN_MONT_CTX, Deleter<BN_MONT_CTX_free>> mont_n, mont_p, mont_q;
  std::size_t modulus_bytes = 0;
  // Spare blinding pairs: a signature takes one and gives it back updated,
  // so concurrent signatures never share a factor.
  mutable base::Mutex blinding_mu;
  mutable std::vector<Blinding> blindings GUARDED_BY(blinding_mu);
};

namespace {

// ThreadBnCtx returns this thread's scratch BN_CTX (BN_CTX is single-threaded;
// one per thread avoids an allocation per half-exponentiation).
BN_CTX* ThreadBnCtx() {
  thread_local BnCtxPtr ctx(BN_CTX_secure_new());
  return ctx.get();
}

Result<Blinding> FreshBlinding(const RsaCrtKey::Components& c, BN_CTX* ctx) {
  Blinding b{BignumPtr(BN_new()), BignumPtr(BN_new()), 0};
  BignumPtr r(BN_new());
  if (!b.a || !b.ai || !r) return MakeError(CKR_HOST_MEMORY, "bignum allocation failed");
  BN_set_flags(r.get(), BN_FLG_CONSTTIME);
  // A non-invertible r (probability ~2^-1023) retries.
  for (int attempt = 0;; ++attempt) {
    if (attempt == 8 || BN_priv_rand_range(r.get(), c.n.get()) != 1) {
      return MakeError(CKR_FUNCTION_FAILED, "blinding factor generation failed");
    }
    if (BN_mod_inverse(b.ai.get(), r.get(), c.n.get(), ctx) != nullptr) break;
  }
  if (BN_mod_exp_mont(b.a.get(), r.get(), c.e.get(), c.n.get(), ctx, c.mont_n.get()) != 1 ||
      BN_to_montgomery(b.a.get(), b.a.get(), c.mont_n.get(), ctx) != 1 ||
      BN_to_montgomery(b.ai.get(), b.ai.get(), c.mont_n.get(), ctx) != 1) {
    return MakeError(CKR_FUNCTION_FAILED, "blinding failed");
  }
  return b;
}

// TakeBlinding hands out a pair no other signature holds.
Result<Blinding> TakeBlinding(const RsaCrtKey::Components& c, BN_CTX* ctx) {
  {
    base::MutexLock lock(&c.blinding_mu);
    if (!c.blindings.empty()) {
      Blinding b = std::move(c.blindings.back());
      c.blindings.pop_back();
      return b;
    }
  }
  return FreshBlinding(c, ctx);
}

// ReturnBlinding squares a used pair and keeps it for the next signature,
// unless it has been used kBlindingUses times.
void ReturnBlinding(const RsaCrtKey::Components& c, Blinding b, BN_CTX* ctx) {
  if (++b.uses >= kBlindingUses ||
      BN_mod_mul_montgomery(b.a.get(), b.a.get(), b.a.get(), c.mont_n.get(), ctx) != 1 ||
      BN_mod_mul_montgomery(b.ai.get(), b.ai.get(), b.ai.get(), c.mont_n.get(), ctx) != 1) {
    return;
  }
  base::MutexLock lock(&c.blinding_mu);
  c.blindings.push_back(std::move(b));
}

Result<BignumPtr> GetParam(EVP_PKEY* pkey, const char* name) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(pkey, name, &bn) != 1) {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT, "RSA key lacks CRT component");
  }
  return BignumPtr(bn);
}

// EncodePkcs1 builds EM = 00 01 FF..FF 00 T (RFC 8017 9.2).
Result<Bytes> EncodePkcs1(const SignParams& params, ByteView digest_or_info, std::size_t k) {
  // The DigestInfo prefix (base/mechanism_table.h); none for kNone, where
  // the caller passed a whole DigestInfo.
  const auto prefix = FactsOf(params.digest).digest_info();
  Bytes t(prefix.begin(), prefix.end());
  t.insert(t.end(), digest_or_info.begin(), digest_or_info.end());
  if (t.size() + 11 > k) return MakeError(CKR_DATA_LEN_RANGE, "input too long for the modulus");
  Bytes em(k, 0xff);
  em[0] = 0x00;
  em[1] = 0x01;
  em[k - t.size() - 1] = 0x00;
  std::memcpy(em.data() + k - t.size(), t.data(), t.size());
  return em;
}

Result<Bytes> EncodePss(const PrivateKey& key, const SignParams& params, ByteView digest,
                        std::size_t k) {
  const RSA* rsa = EVP_PKEY_get0_RSA(key.get0_pkey());
  const EVP_MD* md = FetchedDigest(params.digest);
  const EVP_MD* mgf1 = FetchedDigest(params.pss_mgf1 == DigestAlg::kNone ? params.digest
                                                                           : params.pss_mgf1);
  if (rsa == nullptr || md == nullptr || mgf1 == nullptr) {
    return MakeError(CKR_MECHANISM_PARAM_INVALID, "PSS needs a digest");
  }
  const int salt_len = params.pss_salt_len < 0 ? RSA_PSS_SALTLEN_DIGEST : params.pss_salt_len;
  Bytes em(k);
  if (RSA_padding_add_PKCS1_PSS_mgf1(const_cast<RSA*>(rsa), em.data(), digest.data(), md, mgf1,
                                     salt_len) != 1) {
    return MakeError(CKR_DATA_LEN_RANGE, "PSS encoding failed");
  }
  return em;
}

}  // namespace

struct SplitRsaSignature::State {
  std::shared_ptr<const RsaCrtKey> key;
  BignumPtr message;          // encoded message m
  BignumPtr blinded;          // m * r^e mod n
  BignumPtr unblind;          // r^-1 * R mod n (Montgomery form)
  std::array<BignumPtr, 2> half;  // s_p, s_q
  std::array<bool, 2> half_ok{false, false};
};

SplitRsaSignature::SplitRsaSignature(std::unique_ptr<State> state) : state_(std::move(state)) {}
SplitRsaSignature::~SplitRsaSignature() = default;

Result<std::unique_ptr<SplitRsaSignature>> SplitRsaSignature::Start(
    std::shared_ptr<const RsaCrtKey> key, const SignParams& params, ByteView input) {
  const auto& c = key->components();
  const std::size_t k = c.modulus_bytes;
  Bytes digest(input.begin(), input.end());
  if (!params.prehashed && params.digest != DigestAlg::kNone) {
    SIGNET_ASSIGN_OR_RETURN(digest, Digest(params.digest, input));
  } else if (params.digest != DigestAlg::kNone && digest.size() != DigestSize(params.digest)) {
    return MakeError(CKR_DATA_LEN_RANGE, "digest has the wrong length");
  }
  Bytes em;
  if (params.scheme == SignScheme::kRsaPkcs1) {
    SIGNET_ASSIGN_OR_RETURN(em, EncodePkcs1(params, digest, k));
  } else if (params.scheme == SignScheme::kRsaPss) {
    SIGNET_ASSIGN_OR_RETURN(em, EncodePss(key->key(), params, digest, k));
  } else {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT, "not an RSA scheme");
  }
  auto state = std::make_unique<State>();
  state->key = std::move(key);
  BN_CTX* ctx = ThreadBnCtx();
  state->message.reset(BN_bin2bn(em.data(), static_cast<int>(em.size()), nullptr));
  state->blinded.reset(BN_new());
  if (!state->message || !state->blinded) {
    return MakeError(CKR_HOST_MEMORY, "bignum allocation failed");
  }
  // blinded = m * r^e, unblind = r^-1 (mod n); the pair goes back squared.
  SIGNET_ASSIGN_OR_RETURN(Blinding blinding, TakeBlinding(c, ctx));
  state->unblind.reset(BN_dup(blinding.ai.get()));
  if (!state->unblind ||
      BN_mod_mul_montgomery(state->blinded.get(), state->message.get(), blinding.a.get(),
                            c.mont_n.get(), ctx) != 1) {
    return MakeError(CKR_FUNCTION_FAILED, "blinding failed");
  }
  ReturnBlinding(c, std::move(blinding), ctx);
  return std::unique_ptr<SplitRsaSignature>(new SplitRsaSignature(std::move(state)));
}

void SplitRsaSignature::ComputeHalf(int half) {
  const auto& c = state_->key->components();
  const BIGNUM* prime = half == 0 ? c.p.get() : c.q.get();
  const BIGNUM* exponent = half == 0 ? c.dp.get() : c.dq.get();
  BN_MONT_CTX* mont = half == 0 ? c.mont_p.get() : c.mont_q.get();
  BN_CTX* ctx = ThreadBnCtx();
  BignumPtr reduced(BN_new()), out(BN_new());
  state_->half_ok[half] =
      reduced && out && BN_nnmod(reduced.get(), state_->blinded.get(), prime, ctx) == 1 &&
      BN_mod_exp_mont_consttime(out.get(), reduced.get(), exponent, prime, ctx, mont) == 1;
  state_->half[half] = std::move(out);
}

Result<Bytes> SplitRsaSignature::Finish() {
  if (!state_->half_ok[0] || !state_->half_ok[1]) {
    return MakeError(CKR_FUNCTION_FAILED, "RSA half-exponentiation failed");
  }
  const auto& c = state_->key->components();
  BN_CTX* ctx = ThreadBnCtx();
  BignumPtr h(BN_new()), s(BN_new()), check(BN_new());
  // Garner: s = s_q + q * ((s_p - s_q) * qinv mod p), then unblind.
  const bool combined =
      h && s && check &&
      BN_mod_sub(h.get(), state_->half[0].get(), state_->half[1].get(), c.p.get(), ctx) == 1 &&
      BN_mod_mul(h.get(), h.get(), c.qinv.get(), c.p.get(), ctx) == 1 &&
      BN_mul(s.get(), h.get(), c.q.get(), ctx) == 1 &&
      BN_add(s.get(), s.get(), state_->half[1].get()) == 1 &&
      BN_mod_mul_montgomery(s.get(), s.get(), state_->unblind.get(), c.mont_n.get(), ctx) == 1 &&
      BN_mod_exp_mont(check.get(), s.get(), c.e.get(), c.n.get(), ctx, c.mont_n.get()) == 1;
  if (!combined) return MakeError(CKR_FUNCTION_FAILED, "RSA recombination failed");
  // The fault check: a wrong half would otherwise reveal a prime (Boneh,
  // DeMillo, Lipton). Nothing leaves unless s^e == m.
  if (BN_cmp(check.get(), state_->message.get()) != 0) {
    return MakeError(CKR_FUNCTION_FAILED, "RSA signature failed its consistency check");
  }
  Bytes out(c.modulus_bytes);
  if (BN_bn2binpad(s.get(), out.data(), static_cast<int>(out.size())) < 0) {
    return MakeError(CKR_FUNCTION_FAILED, "RSA signature encoding failed");
  }
  return out;
}

RsaCrtKey::RsaCrtKey(std::unique_ptr<Components> components, PrivateKey key)
    : components_(std::move(components)), key_(std::move(key)) {}
RsaCrtKey::~RsaCrtKey() = default;

Result<std::shared_ptr<const RsaCrtKey>> RsaCrtKey::Create(const PrivateKey& key) {
  if (key.spec().type != KeyType::kRsa) {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT, "CRT split needs an RSA key");
  }
  EVP_PKEY* pkey = key.get0_pkey();
  auto c = std::make_unique<Components>();
  SIGNET_ASSIGN_OR_RETURN(c->n, GetParam(pkey, OSSL_PKEY_PARAM_RSA_N));
  SIGNET_ASSIGN_OR_RETURN(c->e, GetParam(pkey, OSSL_PKEY_PARAM_RSA_E));
  SIGNET_ASSIGN_OR_RETURN(c->p, GetParam(pkey, OSSL_PKEY_PARAM_RSA_FACTOR1));
  SIGNET_ASSIGN_OR_RETURN(c->q, GetParam(pkey, OSSL_PKEY_PARAM_RSA_FACTOR2));
  SIGNET_ASSIGN_OR_RETURN(c->dp, GetParam(pkey, OSSL_PKEY_PARAM_RSA_EXPONENT1));
  SIGNET_ASSIGN_OR_RETURN(c->dq, GetParam(pkey, OSSL_PKEY_PARAM_RSA_EXPONENT2));
  SIGNET_ASSIGN_OR_RETURN(c->qinv, GetParam(pkey, OSSL_PKEY_PARAM_RSA_COEFFICIENT1));
  for (BIGNUM* secret : {c->p.get(), c->q.get(), c->dp.get(), c->dq.get(), c->qinv.get()}) {
    BN_set_flags(secret, BN_FLG_CONSTTIME);
  }
  BN_CTX* ctx = ThreadBnCtx();
  c->mont_n.reset(BN_MONT_CTX_new());
  c->mont_p.reset(BN_MONT_CTX_new());
  c->mont_q.reset(BN_MONT_CTX_new());
  if (!c->mont_n || !c->mont_p || !c->mont_q ||
      BN_MONT_CTX_set(c->mont_n.get(), c->n.get(), ctx) != 1 ||
      BN_MONT_CTX_set(c->mont_p.get(), c->p.get(), ctx) != 1 ||
      BN_MONT_CTX_set(c->mont_q.get(), c->q.get(), ctx) != 1) {
    return MakeError(CKR_FUNCTION_FAILED, "Montgomery setup failed");
  }
  c->modulus_bytes = static_cast<std::size_t>(BN_num_bytes(c->n.get()));
  return std::shared_ptr<const RsaCrtKey>(new RsaCrtKey(std::move(c), key));
}

}  // namespace signet::crypto

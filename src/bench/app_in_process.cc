#include "bench/app_in_process.h"

#include <chrono>

#include "crypto/digest.h"
#include "crypto/sign.h"
#include "crypto/symmetric.h"

namespace signet::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kRootBytes = 32;  // the first version's root: SHA-256 size

double Ms(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

}  // namespace

Result<InProcessFiles> InProcessFiles::Create() {
  SIGNET_ASSIGN_OR_RETURN(SecureBytes key, crypto::RandomBytes(32));
  return InProcessFiles(std::move(key));
}

Result<FileTimes> InProcessFiles::RunFile(const SignAlgorithm& algo, std::size_t payload_size) {
  SIGNET_ASSIGN_OR_RETURN(TokenMechanism m, TokenMechanismFor(algo));
  const crypto::SignParams& params = m.verify;  // what the token signs with
  Bytes first_version(kRootBytes), payload(payload_size), iv(crypto::kGcmIvSize);
  SIGNET_TRY(crypto::FillRandom(first_version));
  SIGNET_TRY(crypto::FillRandom(payload));
  SIGNET_TRY(crypto::FillRandom(iv));
  FileTimes t;

  const auto t0 = Clock::now();  // create
  SIGNET_ASSIGN_OR_RETURN(crypto::PrivateKey key, GenerateBenchKey(algo));
  const auto t_key = Clock::now();
  SIGNET_ASSIGN_OR_RETURN(Bytes root1, crypto::Digest(crypto::DigestAlg::kSha256, first_version));
  SIGNET_ASSIGN_OR_RETURN(Bytes sig1, crypto::Sign(key, params, root1));
  const auto t1 = Clock::now();
  // The token holds the public key object from the start; here it is made
  // between the timed phases.
  SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey pub, key.Public());
  const auto t1_upload = Clock::now();
  SIGNET_ASSIGN_OR_RETURN(Bytes sealed, crypto::AesGcmEncrypt(aes_key_, iv, {}, payload));
  SIGNET_ASSIGN_OR_RETURN(Bytes root, crypto::Digest(crypto::DigestAlg::kSha256, sealed));
  SIGNET_ASSIGN_OR_RETURN(Bytes sig, crypto::Sign(key, params, root));
  const auto t2 = Clock::now();  // download
  const Status verified = crypto::Verify(pub, params, root, sig);
  SIGNET_ASSIGN_OR_RETURN(Bytes check_root, crypto::Digest(crypto::DigestAlg::kSha256, sealed));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes opened, crypto::AesGcmDecrypt(aes_key_, iv, {}, sealed));
  const auto t3 = Clock::now();

  t.keygen_ms = Ms(t0, t_key);
  t.create_ms = Ms(t0, t1);
  t.upload_ms = Ms(t1_upload, t2);
  t.download_ms = Ms(t2, t3);
  if (!verified.ok()) return MakeError(CKR_GENERAL_ERROR, "the upload signature did not verify");
  if (check_root != root) return MakeError(CKR_GENERAL_ERROR, "the ciphertext's hash changed");
  if (!std::equal(opened.begin(), opened.end(), payload.begin(), payload.end())) {
    return MakeError(CKR_GENERAL_ERROR, "decryption did not return the payload");
  }
  if (Status first = crypto::Verify(pub, params, root1, sig1); !first.ok()) {
    return MakeError(CKR_GENERAL_ERROR, "the first version's signature did not verify");
  }
  return t;
}

}  // namespace signet::bench

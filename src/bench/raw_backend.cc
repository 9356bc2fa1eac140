#include "bench/raw_backend.h"

#include <array>
#include <cstring>
#include <memory>
#include <utility>

#include "crypto/aes_modes.h"
#include "crypto/key_agreement.h"
#include "crypto/keys.h"
#include "crypto/mac.h"
#include "crypto/rsa_encrypt.h"
#include "crypto/sign.h"
#include "crypto/symmetric.h"

namespace signet::bench {
namespace {

// Outcome drops an operation's output, keeping only whether it succeeded.
template <typename T>
Status Outcome(const Result<T>& r) {
  if (!r.ok()) return r.error();
  return OkStatus();
}

// The key pair of one algorithm, shared read-only by every client thread
// (EVP_PKEY is safe for concurrent signing).
struct SharedKey {
  crypto::PrivateKey key;
  crypto::PublicKey pub;
};

class RawBackend : public SignerBackend {
 public:
  std::string_view name() const override { return "raw"; }

  Result<WorkerFactory> Prepare(const SignAlgorithm& algo, bool verify) override {
    SIGNET_ASSIGN_OR_RETURN(auto key, GenerateBenchKey(algo));
    SIGNET_ASSIGN_OR_RETURN(auto pub, key.Public());
    auto shared = std::make_shared<const SharedKey>(SharedKey{std::move(key), std::move(pub)});
    // OpenSSL's own code for every algorithm: the reference (raw_backend.h).
    crypto::SignParams params = algo.params;
    params.engine = crypto::SignEngine::kOpenssl;
    const std::size_t input_size = SignInputSize(algo);
    return WorkerFactory([shared, params, input_size, verify](int) -> Result<Operation> {
      // Each client signs its own random digest, as separate clients would.
      Bytes input(input_size);
      SIGNET_TRY(crypto::FillRandom(input));
      return Operation([shared, params, verify, input = std::move(input)](std::uint64_t) {
        return SignOnce(*shared, params, input, verify);
      });
    });
  }

  Result<WorkerFactory> PrepareOperation(const BenchOperation& op) override {
    switch (op.kind) {
      case BenchOperationKind::kEncrypt:
      case BenchOperationKind::kMac: {
        SIGNET_ASSIGN_OR_RETURN(SecureBytes key_value, crypto::RandomBytes(32));
        auto key = std::make_shared<const SecureBytes>(std::move(key_value));
        return WorkerFactory([key, &op](int) -> Result<Operation> {
          auto data = std::make_shared<Bytes>(op.data_size);
          SIGNET_TRY(crypto::FillRandom(*data));
          return Operation(
              [key, data, &op](std::uint64_t i) { return SymmetricOnce(op, *key, *data, i); });
        });
      }
      case BenchOperationKind::kDecrypt: {
        SIGNET_ASSIGN_OR_RETURN(auto key, crypto::PrivateKey::Generate(op.key));
        SIGNET_ASSIGN_OR_RETURN(auto pub, key.Public());
        Bytes secret(32);
        SIGNET_TRY(crypto::FillRandom(secret));
        SIGNET_ASSIGN_OR_RETURN(Bytes ciphertext, crypto::RsaEncrypt(pub, kOaepSha1, secret));
        auto shared = std::make_shared<const std::pair<crypto::PrivateKey, Bytes>>(
            std::move(key), std::move(ciphertext));
        return WorkerFactory([shared](int) -> Result<Operation> {
          return Operation([shared](std::uint64_t) -> Status {
            SIGNET_ASSIGN_OR_RETURN(SecureBytes plain,
                                    crypto::RsaDecrypt(shared->first, kOaepSha1, shared->second));
            return plain.size() == 32 ? OkStatus() : MakeError(CKR_GENERAL_ERROR, "bad length");
          });
        });
      }
      case BenchOperationKind::kDerive: {
        SIGNET_ASSIGN_OR_RETURN(auto own, crypto::PrivateKey::Generate(op.key));
        SIGNET_ASSIGN_OR_RETURN(auto peer_key, crypto::PrivateKey::Generate(op.key));
        SIGNET_ASSIGN_OR_RETURN(auto peer, peer_key.Public());
        auto shared = std::make_shared<const std::pair<crypto::PrivateKey, crypto::PublicKey>>(
            std::move(own), std::move(peer));
        return WorkerFactory([shared](int) -> Result<Operation> {
          return Operation([shared](std::uint64_t) -> Status {
            return Outcome(crypto::EcdhSharedSecret(shared->first, shared->second, false));
          });
        });
      }
    }
    return MakeError(CKR_FUNCTION_NOT_SUPPORTED, "raw does not measure " + std::string(op.id));
  }

 private:
  static constexpr crypto::RsaCipherParams kOaepSha1{
      crypto::RsaPadding::kOaep, DigestAlg::kSha1, DigestAlg::kSha1, {}};

  // SymmetricOnce: one AES-GCM / AES-CBC encryption or HMAC-SHA256 of
  // `data`; the IV holds the operation's index, so no two repeat.
  static Status SymmetricOnce(const BenchOperation& op, const SecureBytes& key, const Bytes& data,
                              std::uint64_t index) {
    std::array<std::uint8_t, 16> iv{};
    std::memcpy(iv.data(), &index, sizeof index);
    switch (op.mechanism) {
      case CKM_AES_GCM:
        return Outcome(crypto::AesGcmEncrypt(key, ByteView(iv.data(), 12), {}, data, 16));
      case CKM_AES_CBC:
        return Outcome(
            crypto::AesEncrypt(crypto::BlockMode::kCbc, key, crypto::AesModeParams{iv}, data));
      default: {
        SIGNET_ASSIGN_OR_RETURN(
            auto mac, crypto::MacStream::Start({crypto::MacKind::kHmac, DigestAlg::kSha256}, key));
        SIGNET_TRY(mac.Update(data));
        return Outcome(mac.Finish());
      }
    }
  }

  static Status SignOnce(const SharedKey& k, const crypto::SignParams& params,
                         const Bytes& input, bool verify) {
    SIGNET_ASSIGN_OR_RETURN(Bytes signature, crypto::Sign(k.key, params, input));
    if (verify) SIGNET_TRY(crypto::Verify(k.pub, params, input, signature));
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<SignerBackend> MakeRawBackend() { return std::make_unique<RawBackend>(); }

}  // namespace signet::bench

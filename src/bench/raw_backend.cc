#include "bench/raw_backend.h"

#include <memory>

#include "crypto/keys.h"
#include "crypto/sign.h"
#include "crypto/symmetric.h"

namespace signet::bench {
namespace {

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
    SIGNET_ASSIGN_OR_RETURN(auto key, crypto::PrivateKey::Generate(algo.spec));
    SIGNET_ASSIGN_OR_RETURN(auto pub, key.Public());
    auto shared = std::make_shared<const SharedKey>(SharedKey{std::move(key), std::move(pub)});
    const crypto::SignParams params = algo.params;
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

 private:
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

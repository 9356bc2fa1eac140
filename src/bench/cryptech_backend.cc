#include "bench/cryptech_backend.h"

#include <string_view>

#include "bench/cryptech_connection.h"
#include "crypto/digest.h"
#include "crypto/sign.h"

namespace signet::bench {
namespace {

using proto::hal::User;

// kText: what parallel-signatures.py signs by default (its -t).
constexpr std::string_view kText = "Hamsters'R'Us";
// kSigMax: the script's sig_max, room for RSA-8192.
constexpr std::uint32_t kSigMax = 1024;
// kSession: the session word; the script sends 0, and libhal records it
// without using it.
constexpr std::uint32_t kSession = 0;

// SignsThroughCryptech: libhal signs with RSA and ECDSA on its three curves.
bool SignsThroughCryptech(crypto::KeyType type) {
  using crypto::KeyType;
  return type == KeyType::kRsa || type == KeyType::kEcP256 || type == KeyType::kEcP384 ||
         type == KeyType::kEcP521;
}

// KeySetup: what every client of one algorithm shares (read-only).
struct KeySetup {
  std::string socket;
  std::string pin;
  SecureBytes pkcs8;  // the key as PKCS#8 PrivateKeyInfo
  Bytes input;        // what PKEY_SIGN signs: DigestInfo (RSA) or digest (ECDSA)
  Bytes digest;       // what crypto::Verify checks the signature against
  crypto::PublicKey public_key;
  crypto::SignParams verify_params;
  bool verify = true;
  std::ostream* warnings = nullptr;
};

// ClientWorker: one client's connection and its session key, deleted when
// the worker goes (after the load).
class ClientWorker {
 public:
  ClientWorker(std::shared_ptr<const KeySetup> setup,
               std::unique_ptr<CryptechConnection> connection, std::uint32_t pkey)
      : setup_(std::move(setup)), connection_(std::move(connection)), pkey_(pkey) {}

  ~ClientWorker() {
    Status deleted = connection_->PkeyDelete(pkey_);
    if (!deleted.ok() && setup_->warnings != nullptr) {
      *setup_->warnings << "bench parallel: warning: " << deleted.error().message << '\n';
    }
  }
  ClientWorker(const ClientWorker&) = delete;
  ClientWorker& operator=(const ClientWorker&) = delete;

  Status Next() {
    SIGNET_ASSIGN_OR_RETURN(Bytes signature, connection_->PkeySign(pkey_, setup_->input, kSigMax));
    if (!setup_->verify) return OkStatus();
    return crypto::Verify(setup_->public_key, setup_->verify_params, setup_->digest, signature);
  }

 private:
  std::shared_ptr<const KeySetup> setup_;
  std::unique_ptr<CryptechConnection> connection_;
  std::uint32_t pkey_;
};

Result<std::unique_ptr<CryptechConnection>> LoggedIn(const std::string& socket,
                                                     const std::string& pin) {
  SIGNET_ASSIGN_OR_RETURN(auto connection, CryptechConnection::Connect(socket));
  SIGNET_TRY(connection->Login(User::kNormal, AsBytes(pin)));
  return connection;
}

Result<Operation> MakeClientOperation(const std::shared_ptr<const KeySetup>& setup) {
  SIGNET_ASSIGN_OR_RETURN(auto connection, LoggedIn(setup->socket, setup->pin));
  SIGNET_ASSIGN_OR_RETURN(
      cryptech::LoadedKey key,
      connection->PkeyLoad(kSession, setup->pkcs8, proto::hal::kFlagDigitalSignature));
  auto worker = std::make_shared<ClientWorker>(setup, std::move(connection), key.pkey);
  return Operation([worker](std::uint64_t) { return worker->Next(); });
}

}  // namespace

Result<CryptechSignInput> MakeCryptechSignInput(const SignAlgorithm& algo) {
  const DigestAlg hash = algo.params.digest;
  CryptechSignInput out;
  SIGNET_ASSIGN_OR_RETURN(out.digest, crypto::Digest(hash, AsBytes(kText)));
  if (algo.spec.type == crypto::KeyType::kRsa) {
    const auto prefix = FactsOf(hash).digest_info();
    out.input.assign(prefix.begin(), prefix.end());
  }
  out.input.insert(out.input.end(), out.digest.begin(), out.digest.end());
  return out;
}

CryptechBackend::CryptechBackend(CryptechBackendOptions options) : options_(std::move(options)) {}
CryptechBackend::~CryptechBackend() = default;

Result<std::unique_ptr<CryptechBackend>> CryptechBackend::Create(CryptechBackendOptions options) {
  std::unique_ptr<CryptechBackend> backend(new CryptechBackend(std::move(options)));
  CryptechBackendOptions& o = backend->options_;
  if (o.socket.empty()) {
    SIGNET_ASSIGN_OR_RETURN(backend->local_,
                            LocalDaemon::Start("", {}, {.cryptech_listener = true}));
    o.socket = backend->local_->cryptech_socket();
    o.pin = backend->local_->pin();
  } else if (o.pin.empty()) {
    return MakeError(CKR_ARGUMENTS_BAD, "a Cryptech socket needs --pin or SIGNET_PIN");
  }
  SIGNET_TRY(LoggedIn(o.socket, o.pin));
  return backend;
}

Result<WorkerFactory> CryptechBackend::Prepare(const SignAlgorithm& algo, bool verify) {
  if (!SignsThroughCryptech(algo.spec.type)) {
    return MakeError(CKR_MECHANISM_INVALID,
                     "libhal's RPC signs with RSA and ECDSA on P-256, P-384 and P-521, not " +
                         AlgorithmName(algo));
  }
  SIGNET_ASSIGN_OR_RETURN(crypto::PrivateKey key, GenerateBenchKey(algo));
  SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey public_key, key.Public());
  SIGNET_ASSIGN_OR_RETURN(SecureBytes pkcs8, key.ToPkcs8Der());
  SIGNET_ASSIGN_OR_RETURN(CryptechSignInput input, MakeCryptechSignInput(algo));
  crypto::SignParams params = algo.params;  // prehashed: the digest is verified
  params.ecdsa_format = crypto::EcdsaFormat::kRaw;
  auto setup = std::make_shared<const KeySetup>(
      KeySetup{options_.socket, options_.pin, std::move(pkcs8), std::move(input.input),
               std::move(input.digest), std::move(public_key), params, verify, options_.warnings});
  return WorkerFactory([setup](int) { return MakeClientOperation(setup); });
}

}  // namespace signet::bench

#include "bench/daemon_backend.h"

#include <array>
#include <cstdlib>
#include <deque>

#include "base/secure_bytes.h"
#include "bench/daemon_keys.h"
#include "bench/daemon_operations.h"
#include "bench/daemon_session.h"
#include "bench/token_mechanisms.h"
#include "crypto/symmetric.h"

namespace signet::bench {
namespace {


Status GenerateKey(UserSession& user, const SignAlgorithm& algo, const TokenMechanism& m,
                   const std::string& label) {
  auto [pub, priv] = SigningKeyTemplates(algo, m, label);
  SIGNET_TRY(user.client->GenerateKeyPair(user.session, {.type = m.keygen}, pub, priv));
  return OkStatus();
}

// KeySetup: what every client of one algorithm shares (read-only).
struct KeySetup {
  std::string socket, pin, token_label, key_label;
  TokenMechanism mechanism;
  crypto::PublicKey public_key;
  bool verify = true;
  int pipeline = 1;
  int batch = 1;
};

// ClientWorker: one client's connection and its signing loop state.
class ClientWorker {
 public:
  ClientWorker(std::shared_ptr<const KeySetup> setup, UserSession user, client::Handle key,
               Bytes input)
      : setup_(std::move(setup)), user_(std::move(user)), key_(key), input_(std::move(input)) {}

  Status Next() {
    if (setup_->batch > 1) return NextFromBatch();
    if (setup_->pipeline > 1) return NextFromPipeline();
    SIGNET_ASSIGN_OR_RETURN(auto sig, user_.client->Sign(user_.session, key_, Mechanism(), input_));
    return Check(sig);
  }

 private:
  client::Mechanism Mechanism() const { return {.type = setup_->mechanism.sign}; }

  Status Check(const client::Bytes& signature) const {
    if (!setup_->verify) return OkStatus();
    return crypto::Verify(setup_->public_key, setup_->mechanism.verify, input_, signature);
  }

  Status NextFromPipeline() {
    while (in_flight_.size() < static_cast<std::size_t>(setup_->pipeline)) {
      SIGNET_ASSIGN_OR_RETURN(auto pending,
                              user_.client->SendSign(user_.session, key_, Mechanism(), input_));
      in_flight_.push_back(pending);
    }
    auto pending = in_flight_.front();
    in_flight_.pop_front();
    SIGNET_ASSIGN_OR_RETURN(auto sig, user_.client->Wait(pending));
    return Check(sig);
  }

  Status NextFromBatch() {
    if (ready_.empty()) {
      std::vector<client::Bytes> inputs(setup_->batch, input_);
      SIGNET_ASSIGN_OR_RETURN(auto results,
                              user_.client->SignBatch(user_.session, key_, Mechanism(), inputs));
      for (auto& r : results) ready_.push_back(std::move(r));
    }
    Result<client::Bytes> result = std::move(ready_.front());
    ready_.pop_front();
    if (!result.ok()) return std::move(result).error();
    return Check(*result);
  }

  std::shared_ptr<const KeySetup> setup_;
  UserSession user_;
  client::Handle key_;
  Bytes input_;
  std::deque<client::Pending<client::Bytes>> in_flight_;
  std::deque<Result<client::Bytes>> ready_;
};

Result<Operation> MakeClientOperation(const std::shared_ptr<const KeySetup>& setup) {
  SIGNET_ASSIGN_OR_RETURN(UserSession user,
                          OpenUserSession(setup->socket, setup->pin, setup->token_label));
  SIGNET_ASSIGN_OR_RETURN(auto keys, FindKeys(user, setup->key_label, CKO_PRIVATE_KEY));
  if (keys.empty()) return MakeError(CKR_KEY_HANDLE_INVALID, "benchmark key vanished");
  // Each client signs its own random input, as separate clients would.
  Bytes input(setup->mechanism.input_size);
  SIGNET_TRY(crypto::FillRandom(input));
  auto worker =
      std::make_shared<ClientWorker>(setup, std::move(user), keys.front(), std::move(input));
  return Operation([worker](std::uint64_t) { return worker->Next(); });
}

}  // namespace

struct DaemonBackend::Control {
  UserSession user;
};

DaemonBackend::DaemonBackend(DaemonBackendOptions options) : options_(std::move(options)) {}
DaemonBackend::~DaemonBackend() = default;

Result<std::unique_ptr<DaemonBackend>> DaemonBackend::Create(DaemonBackendOptions options) {
  if (options.pipeline < 1 || options.batch < 1 || (options.pipeline > 1 && options.batch > 1)) {
    return MakeError(CKR_ARGUMENTS_BAD, "--pipeline and --batch take K >= 1, and not both");
  }
  std::unique_ptr<DaemonBackend> backend(new DaemonBackend(std::move(options)));
  DaemonBackendOptions& o = backend->options_;
  if (o.socket.empty()) {
    SIGNET_ASSIGN_OR_RETURN(backend->local_, LocalDaemon::Start());
    o.socket = backend->local_->socket();
    o.pin = backend->local_->pin();
    o.token_label = backend->local_->token_label();
  } else if (o.pin.empty()) {
    return MakeError(CKR_ARGUMENTS_BAD, "a daemon given by --socket needs --pin or SIGNET_PIN");
  }
  SIGNET_ASSIGN_OR_RETURN(UserSession user, OpenUserSession(o.socket, o.pin, o.token_label));
  backend->control_ = std::make_unique<Control>(Control{std::move(user)});
  return backend;
}

Result<WorkerFactory> DaemonBackend::Prepare(const SignAlgorithm& algo, bool verify) {
  SIGNET_ASSIGN_OR_RETURN(TokenMechanism mechanism, TokenMechanismFor(algo));
  UserSession& user = control_->user;
  const std::string label = TokenKeyLabel(algo);
  SIGNET_ASSIGN_OR_RETURN(auto found, FindKeys(user, label, CKO_PRIVATE_KEY));
  if (found.empty()) SIGNET_TRY(GenerateKey(user, algo, mechanism, label));
  SIGNET_ASSIGN_OR_RETURN(auto pubs, FindKeys(user, label, CKO_PUBLIC_KEY));
  if (pubs.empty()) return MakeError(CKR_KEY_HANDLE_INVALID, "no public key labelled " + label);
  SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey pub, ReadTokenPublicKey(*user.client, user.session, pubs.front()));
  auto setup = std::make_shared<const KeySetup>(
      KeySetup{options_.socket, options_.pin, options_.token_label, label, mechanism,
               std::move(pub), verify, options_.pipeline, options_.batch});
  return WorkerFactory([setup](int) { return MakeClientOperation(setup); });
}

Result<WorkerFactory> DaemonBackend::PrepareOperation(const BenchOperation& op) {
  return PrepareDaemonOperation({options_.socket, options_.pin, options_.token_label},
                                control_->user, op);
}

Result<client::ServerStats> DaemonBackend::Stats() { return control_->user.client->GetStats(); }

}  // namespace signet::bench

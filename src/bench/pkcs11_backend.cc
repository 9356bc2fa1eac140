#include "bench/pkcs11_backend.h"

#include <p11-kit/pkcs11.h>

#include <vector>

#include "bench/pkcs11_operations.h"
#include "bench/pkcs11_session.h"
#include "bench/token_mechanisms.h"
#include "crypto/symmetric.h"

namespace signet::bench {
namespace {

Status Generate(Session& s, const SignAlgorithm& algo, const TokenMechanism& tm,
                const std::string& label) {
  CK_BBOOL yes = CK_TRUE;
  CK_ULONG bits = algo.spec.rsa_bits;
  CK_BYTE f4[] = {1, 0, 1};
  const Bytes params = crypto::EcParamsDer(algo.spec.type);
  // CKA_ID (the label's bytes) pairs the halves for clients that match by it.
  CK_ATTRIBUTE id{CKA_ID, const_cast<char*>(label.data()), label.size()};
  std::vector<CK_ATTRIBUTE> pub = {{CKA_TOKEN, &yes, 1},
                                   {CKA_VERIFY, &yes, 1},
                                   {CKA_LABEL, const_cast<char*>(label.data()), label.size()},
                                   id};
  if (tm.key_type == CKK_RSA) {
    pub.push_back({CKA_MODULUS_BITS, &bits, sizeof(bits)});
    pub.push_back({CKA_PUBLIC_EXPONENT, f4, sizeof(f4)});
  } else {
    pub.push_back({CKA_EC_PARAMS, const_cast<std::uint8_t*>(params.data()), params.size()});
  }
  std::vector<CK_ATTRIBUTE> priv = {{CKA_TOKEN, &yes, 1},
                                    {CKA_SIGN, &yes, 1},
                                    {CKA_PRIVATE, &yes, 1},
                                    {CKA_SENSITIVE, &yes, 1},
                                    {CKA_LABEL, const_cast<char*>(label.data()), label.size()},
                                    id};
  CK_MECHANISM mech{tm.keygen, nullptr, 0};
  CK_OBJECT_HANDLE pub_h = 0, priv_h = 0;
  P11_TRY("C_GenerateKeyPair", s.f()->C_GenerateKeyPair(s.h(), &mech, pub.data(), pub.size(),
                                                        priv.data(), priv.size(), &pub_h, &priv_h));
  return OkStatus();
}

struct KeySetup {
  std::shared_ptr<const Module> module;
  std::string label;
  TokenMechanism mechanism;
  crypto::PublicKey public_key;
  bool verify = true;
};

class ClientWorker {
 public:
  ClientWorker(std::shared_ptr<const KeySetup> setup, std::unique_ptr<Session> session,
               CK_OBJECT_HANDLE key, Bytes input)
      : setup_(std::move(setup)),
        session_(std::move(session)),
        key_(key),
        input_(std::move(input)) {}

  Status Next() {
    CK_MECHANISM mech{setup_->mechanism.sign, nullptr, 0};
    P11_TRY("C_SignInit", session_->f()->C_SignInit(session_->h(), &mech, key_));
    Bytes sig(1024);
    CK_ULONG len = sig.size();
    P11_TRY("C_Sign",
            session_->f()->C_Sign(session_->h(), input_.data(), input_.size(), sig.data(), &len));
    sig.resize(len);
    if (!setup_->verify) return OkStatus();
    return crypto::Verify(setup_->public_key, setup_->mechanism.verify, input_, sig);
  }

 private:
  std::shared_ptr<const KeySetup> setup_;
  std::unique_ptr<Session> session_;
  CK_OBJECT_HANDLE key_;
  Bytes input_;
};

class Pkcs11Backend : public SignerBackend {
 public:
  explicit Pkcs11Backend(std::shared_ptr<const Module> m, std::unique_ptr<Session> control)
      : module_(std::move(m)), control_(std::move(control)) {}

  std::string_view name() const override { return "pkcs11"; }

  Result<WorkerFactory> PrepareOperation(const BenchOperation& op) override {
    return PrepareTokenOperation(module_, *control_, op);
  }

  Result<WorkerFactory> Prepare(const SignAlgorithm& algo, bool verify) override {
    SIGNET_ASSIGN_OR_RETURN(TokenMechanism tm, TokenMechanismFor(algo));
    const std::string label = TokenKeyLabel(algo);
    SIGNET_ASSIGN_OR_RETURN(auto privs, Find(*control_, label, CKO_PRIVATE_KEY));
    if (privs.empty()) {
      SIGNET_TRY(Generate(*control_, algo, tm, label));
      SIGNET_ASSIGN_OR_RETURN(privs, Find(*control_, label, CKO_PRIVATE_KEY));
    }
    SIGNET_ASSIGN_OR_RETURN(auto pubs, Find(*control_, label, CKO_PUBLIC_KEY));
    if (privs.empty() || pubs.empty()) {
      return MakeError(CKR_KEY_HANDLE_INVALID, "no key pair labelled " + label);
    }
    Session& s = *control_;
    SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey pub,
                            PublicKeyFromAttributes(Attribute(s, pubs[0], CKA_MODULUS),
                                                    Attribute(s, pubs[0], CKA_PUBLIC_EXPONENT),
                                                    Attribute(s, pubs[0], CKA_EC_PARAMS),
                                                    Attribute(s, pubs[0], CKA_EC_POINT)));
    auto setup =
        std::make_shared<const KeySetup>(KeySetup{module_, label, tm, std::move(pub), verify});
    return WorkerFactory([setup](int) -> Result<Operation> {
      SIGNET_ASSIGN_OR_RETURN(auto session, Session::Open(setup->module));
      // Found again in this session: PKCS#11 makes handles valid in every
      // session, but finding costs nothing here and tolerates modules
      // whose handles are per session.
      SIGNET_ASSIGN_OR_RETURN(auto keys, Find(*session, setup->label, CKO_PRIVATE_KEY));
      if (keys.empty())
        return MakeError(CKR_KEY_HANDLE_INVALID, "key not visible in a new session");
      Bytes input(setup->mechanism.input_size);
      SIGNET_TRY(crypto::FillRandom(input));
      auto worker =
          std::make_shared<ClientWorker>(setup, std::move(session), keys[0], std::move(input));
      return Operation([worker](std::uint64_t) { return worker->Next(); });
    });
  }

 private:
  std::shared_ptr<const Module> module_;  // finalised when the last user goes
  std::unique_ptr<Session> control_;
};

}  // namespace

Result<std::unique_ptr<SignerBackend>> MakePkcs11Backend(const Pkcs11BackendOptions& options) {
  if (options.module_path.empty())
    return MakeError(CKR_ARGUMENTS_BAD, "--via pkcs11 needs --module");
  if (options.pin.empty()) {
    return MakeError(CKR_ARGUMENTS_BAD, "--via pkcs11 needs --pin or SIGNET_PIN");
  }
  auto m = std::make_shared<Module>();
  m->pin = options.pin;
  SIGNET_TRY(Load(*m, options));
  SIGNET_ASSIGN_OR_RETURN(auto control, Session::Open(m));
  return std::unique_ptr<SignerBackend>(new Pkcs11Backend(std::move(m), std::move(control)));
}

}  // namespace signet::bench

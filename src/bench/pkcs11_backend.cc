#include "bench/pkcs11_backend.h"

#include <dlfcn.h>
#include <p11-kit/pkcs11.h>

#include <array>
#include <cstring>
#include <vector>

#include "bench/token_mechanisms.h"
#include "crypto/symmetric.h"

namespace signet::bench {
namespace {

Error P11Error(const char* what, CK_RV rv) {
  char code[32];
  std::snprintf(code, sizeof(code), "0x%08lx", static_cast<unsigned long>(rv));
  return MakeError(rv, std::string(what) + " failed: CK_RV " + code);
}

#define P11_TRY(what, call)                                \
  do {                                                     \
    CK_RV p11_rv_ = (call);                                \
    if (p11_rv_ != CKR_OK) return P11Error(what, p11_rv_); \
  } while (0)

// Module: the loaded library and its function list. Closing finalises it.
struct Module {
  void* handle = nullptr;
  CK_FUNCTION_LIST_PTR f = nullptr;
  bool initialized = false;
  CK_SLOT_ID slot = 0;
  std::string pin;

  ~Module() {
    if (initialized) f->C_Finalize(nullptr);
    if (handle != nullptr) dlclose(handle);
  }
};

std::string TrimLabel(const CK_UTF8CHAR (&label)[32]) {
  std::string s(reinterpret_cast<const char*>(label), 32);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}

Status Load(Module& m, const Pkcs11BackendOptions& options) {
  m.handle = dlopen(options.module_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (m.handle == nullptr) return MakeError(CKR_GENERAL_ERROR, std::string("dlopen: ") + dlerror());
  auto get_list = reinterpret_cast<CK_C_GetFunctionList>(dlsym(m.handle, "C_GetFunctionList"));
  if (get_list == nullptr) {
    return MakeError(CKR_GENERAL_ERROR, options.module_path + " has no C_GetFunctionList");
  }
  P11_TRY("C_GetFunctionList", get_list(&m.f));
  CK_C_INITIALIZE_ARGS args{};
  args.flags = CKF_OS_LOCKING_OK;
  P11_TRY("C_Initialize", m.f->C_Initialize(&args));
  m.initialized = true;
  CK_ULONG count = 0;
  P11_TRY("C_GetSlotList", m.f->C_GetSlotList(CK_TRUE, nullptr, &count));
  std::vector<CK_SLOT_ID> slots(count);
  P11_TRY("C_GetSlotList", m.f->C_GetSlotList(CK_TRUE, slots.data(), &count));
  for (CK_ULONG i = 0; i < count; ++i) {
    CK_TOKEN_INFO info{};
    if (m.f->C_GetTokenInfo(slots[i], &info) != CKR_OK) continue;
    if (!(info.flags & CKF_TOKEN_INITIALIZED)) continue;
    if (options.token_label.empty() || TrimLabel(info.label) == options.token_label) {
      m.slot = slots[i];
      return OkStatus();
    }
  }
  return MakeError(CKR_TOKEN_NOT_PRESENT, options.token_label.empty()
                                              ? "the module has no initialised token"
                                              : "no token labelled '" + options.token_label + "'");
}

// Session: one logged-in read-write session, closed on destruction.
class Session {
 public:
  static Result<std::unique_ptr<Session>> Open(std::shared_ptr<const Module> m) {
    CK_SESSION_HANDLE h = 0;
    P11_TRY("C_OpenSession", m->f->C_OpenSession(m->slot, CKF_SERIAL_SESSION | CKF_RW_SESSION,
                                                 nullptr, nullptr, &h));
    auto s = std::unique_ptr<Session>(new Session(std::move(m), h));
    CK_RV rv = s->m_->f->C_Login(
        h, CKU_USER, reinterpret_cast<CK_UTF8CHAR_PTR>(const_cast<char*>(s->m_->pin.data())),
        s->m_->pin.size());
    if (rv != CKR_OK && rv != CKR_USER_ALREADY_LOGGED_IN) return P11Error("C_Login", rv);
    return s;
  }
  ~Session() { m_->f->C_CloseSession(h_); }

  CK_FUNCTION_LIST_PTR f() const { return m_->f; }
  CK_SESSION_HANDLE h() const { return h_; }

 private:
  Session(std::shared_ptr<const Module> m, CK_SESSION_HANDLE h) : m_(std::move(m)), h_(h) {}
  std::shared_ptr<const Module> m_;
  CK_SESSION_HANDLE h_;
};

Result<std::vector<CK_OBJECT_HANDLE>> Find(Session& s, const std::string& label,
                                           CK_OBJECT_CLASS cls) {
  CK_ATTRIBUTE t[] = {{CKA_CLASS, &cls, sizeof(cls)},
                      {CKA_LABEL, const_cast<char*>(label.data()), label.size()}};
  P11_TRY("C_FindObjectsInit", s.f()->C_FindObjectsInit(s.h(), t, 2));
  std::vector<CK_OBJECT_HANDLE> out(16);
  CK_ULONG n = 0;
  CK_RV rv = s.f()->C_FindObjects(s.h(), out.data(), out.size(), &n);
  s.f()->C_FindObjectsFinal(s.h());
  if (rv != CKR_OK) return P11Error("C_FindObjects", rv);
  out.resize(n);
  return out;
}

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

// Attribute reads one attribute (empty when the object lacks it).
Bytes Attribute(Session& s, CK_OBJECT_HANDLE o, CK_ATTRIBUTE_TYPE type) {
  CK_ATTRIBUTE a{type, nullptr, 0};
  if (s.f()->C_GetAttributeValue(s.h(), o, &a, 1) != CKR_OK ||
      a.ulValueLen == CK_UNAVAILABLE_INFORMATION) {
    return {};
  }
  Bytes value(a.ulValueLen);
  a.pValue = value.data();
  if (s.f()->C_GetAttributeValue(s.h(), o, &a, 1) != CKR_OK) return {};
  value.resize(a.ulValueLen);
  return value;
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

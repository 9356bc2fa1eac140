#include "pkcs11/module_state.h"

#include <pthread.h>

#include <chrono>
#include <cstdio>
#include <new>

#include "base/rv_names.h"

namespace signet::pkcs11 {
namespace {

// The module's one global (see the header): guarded by g_mu, which the
// fork handlers hold across fork() so the child never inherits it locked.
// The state pointer lives in static storage and is never destroyed: hosts call
// C_Finalize / C_CloseAllSessions from their own atexit handlers (OpenSSL's
// engine cleanup does), which may run after this library's static
// destructors would have.
base::Mutex g_mu;  // constant-initialised; trivially destructible in libstdc++
alignas(std::shared_ptr<ModuleState>) unsigned char g_state_storage[sizeof(
    std::shared_ptr<ModuleState>)];
std::shared_ptr<ModuleState>& g_state GUARDED_BY(g_mu) =
    *new (g_state_storage) std::shared_ptr<ModuleState>();
bool g_forked GUARDED_BY(g_mu) = false;
std::once_flag g_atfork_once;

// PrepareFork returns holding g_mu; the AfterFork handlers release it.
void PrepareFork() ACQUIRE(g_mu) { g_mu.Lock(); }
void ParentAfterFork() RELEASE(g_mu) { g_mu.Unlock(); }
void ChildAfterFork() RELEASE(g_mu) {
  g_forked = g_state != nullptr;
  g_mu.Unlock();
}

// CheckInitArgs applies PKCS#11 v2.40 §5.4's rules for CK_C_INITIALIZE_ARGS.
// Callbacks without CKF_OS_LOCKING_OK are accepted: the module locks with
// the OS primitives, which is correct for the native threads every Linux
// application uses, rather than refusing with CKR_CANT_LOCK.
CK_RV CheckInitArgs(const CK_C_INITIALIZE_ARGS* args) {
  if (args == nullptr) return CKR_OK;
  if (args->pReserved != nullptr) return CKR_ARGUMENTS_BAD;
  const int callbacks = (args->CreateMutex != nullptr) + (args->DestroyMutex != nullptr) +
                        (args->LockMutex != nullptr) + (args->UnlockMutex != nullptr);
  if (callbacks != 0 && callbacks != 4) return CKR_ARGUMENTS_BAD;
  return CKR_OK;
}

}  // namespace

ModuleState::ModuleState(Result<ModuleConfig> config) : config_(std::move(config)) {}

ModuleState::~ModuleState() = default;

Result<std::shared_ptr<client::Client>> ModuleState::Conn() {
  base::MutexLock lock(&conn_mu_);
  if (conn_ != nullptr) return conn_;
  Result<std::unique_ptr<client::Client>> made = [&]() -> Result<std::unique_ptr<client::Client>> {
    if (!config_.ok()) return config_.error();
    client::ConnectOptions options;
    options.address = config_->socket;
    options.tls_ca_file = config_->tls_ca;
    options.tls_cert_file = config_->tls_cert;
    options.tls_key_file = config_->tls_key;
    options.tls_server_name = config_->tls_server_name;
    options.timeout = std::chrono::seconds(std::stoi(config_->timeout));
    options.shared_memory = config_->shared_memory == "yes";
    return client::Client::Connect(options);
  }();
  if (made.ok()) {
    conn_ = std::move(*made);
    return conn_;
  }
  if (!warned_.exchange(true)) {
    std::fprintf(stderr, "signet-pkcs11: cannot reach signetd: %s\n",
                 DescribeError(made.error()).c_str());
  }
  return MakeError(CKR_DEVICE_ERROR, made.error().message);
}

void ModuleState::DropConn(const client::Client* dead) {
  std::shared_ptr<client::Client> old;  // destroyed outside the lock
  {
    base::MutexLock lock(&conn_mu_);
    if (conn_.get() != dead) return;
    old = std::move(conn_);
    mechanisms_.reset();  // a restarted daemon may offer another list
  }
  InvalidateKeyChecks();
}

Result<client::ServerInfo> ModuleState::GetInfo() {
  SIGNET_ASSIGN_OR_RETURN(std::shared_ptr<client::Client> conn, Conn());
  Result<client::ServerInfo> info = conn->GetInfo();
  if (!info.ok()) {
    if (IsDaemonGone(info.error().code)) DropConn(conn.get());
    return info;
  }
  base::MutexLock lock(&conn_mu_);
  if (!mechanisms_) mechanisms_ = info->mechanisms;
  return info;
}

Result<std::vector<client::MechanismInfo>> ModuleState::Mechanisms() {
  {
    base::MutexLock lock(&conn_mu_);
    if (mechanisms_) return *mechanisms_;
  }
  SIGNET_ASSIGN_OR_RETURN(client::ServerInfo info, GetInfo());
  return info.mechanisms;
}

Result<client::InitTokenResult> ModuleState::InitToken(CK_SLOT_ID slot, ByteView so_pin,
                                                       const std::string& label) {
  SIGNET_ASSIGN_OR_RETURN(std::shared_ptr<client::Client> conn, Conn());
  Result<client::InitTokenResult> result = conn->InitToken(slot, so_pin, label);
  if (!result.ok() && IsDaemonGone(result.error().code)) DropConn(conn.get());
  return result;
}

void ModuleState::Shutdown() {
  for (const std::shared_ptr<Session>& session :
       sessions_.RemoveIf([](const Session&) { return true; })) {
    base::MutexLock lock(&session->mu);
    session->closed = true;
    session->conn.reset();
  }
  std::shared_ptr<client::Client> old;  // closing it ends the daemon's sessions
  base::MutexLock lock(&conn_mu_);
  old = std::move(conn_);
}

std::shared_ptr<ModuleState> CurrentState() {
  base::MutexLock lock(&g_mu);
  if (g_forked) return nullptr;
  return g_state;
}

CK_RV InitializeModule(CK_VOID_PTR init_args) {
  if (CK_RV rv = CheckInitArgs(static_cast<const CK_C_INITIALIZE_ARGS*>(init_args)); rv != CKR_OK) {
    return rv;
  }
  std::call_once(g_atfork_once,
                 [] { pthread_atfork(PrepareFork, ParentAfterFork, ChildAfterFork); });
  base::MutexLock lock(&g_mu);
  if (g_forked) {
    // The parent's state is not ours to free or use in this child: its
    // mutexes may be held by threads that do not exist here. Leak it.
    new std::shared_ptr<ModuleState>(std::move(g_state));
    g_forked = false;
  }
  if (g_state != nullptr) return CKR_CRYPTOKI_ALREADY_INITIALIZED;
  g_state = std::make_shared<ModuleState>(LoadModuleConfig());
  return CKR_OK;
}

CK_RV FinalizeModule(CK_VOID_PTR reserved) {
  if (reserved != nullptr) return CKR_ARGUMENTS_BAD;
  std::shared_ptr<ModuleState> state;
  {
    base::MutexLock lock(&g_mu);
    if (g_forked || g_state == nullptr) return CKR_CRYPTOKI_NOT_INITIALIZED;
    state = std::move(g_state);
  }
  state->Shutdown();
  return CKR_OK;
}

}  // namespace signet::pkcs11

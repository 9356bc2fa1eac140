#include "pkcs11/module_state.h"

#include <pthread.h>
#include <string.h>
#include <sys/random.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <new>

#include "base/rv_names.h"
#include "client/node_choice.h"

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

ModuleState::ModuleState(Result<ModuleConfig> config) : config_(std::move(config)) {
  if (!config_.ok()) return;
  node_count_ = std::max<std::size_t>(1, client::SplitAddresses(config_->socket).size());
  failover_ = node_count_ > 1 && config_->failover == "yes";
  if (failover_) {
    handle_key_ = SecureBytes(32);
    // A getrandom failure leaves the key all zero: handles stay stable,
    // only less unpredictable. (No OpenSSL in the module: pkcs11/CMakeLists.txt.)
    (void)getrandom(handle_key_.data(), handle_key_.size(), 0);
  }
}

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
    if (failover_) {
      // So a handle from this node names the same object on the next one.
      if (Status stable = (*made)->UseStableHandles(handle_key_); !stable.ok()) {
        std::fprintf(stderr, "signet-pkcs11: %s cannot keep object handles across nodes: %s\n",
                     (*made)->address().c_str(), DescribeError(stable.error()).c_str());
      }
    }
    conn_ = std::move(*made);
    conn_logins_.clear();
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
    conn_logins_.clear();
    mechanisms_.reset();  // a restarted daemon may offer another list
  }
  InvalidateKeyChecks();
}

bool ModuleState::Stale(const client::Client* conn) const {
  base::MutexLock lock(&conn_mu_);
  return conn_.get() != conn;
}

void ModuleState::RememberLogin(const client::Client* conn, CK_SLOT_ID slot, CK_USER_TYPE user,
                                client::Bytes& ticket) {
  base::MutexLock lock(&conn_mu_);
  Login& login = logins_[slot];
  login.user = user;
  login.ticket = SecureBytes(ticket.begin(), ticket.end());
  if (!ticket.empty()) explicit_bzero(ticket.data(), ticket.size());
  if (conn_.get() == conn) conn_logins_.insert(slot);
}

void ModuleState::ForgetLogin(CK_SLOT_ID slot) {
  base::MutexLock lock(&conn_mu_);
  logins_.erase(slot);  // SecureBytes wipes the ticket
  conn_logins_.erase(slot);
}

void ModuleState::DropTicket(CK_SLOT_ID slot) {
  base::MutexLock lock(&conn_mu_);
  if (auto it = logins_.find(slot); it != logins_.end()) it->second.ticket = SecureBytes();
}

Status ModuleState::RestoreLogin(client::Client& conn, client::Handle remote, CK_SLOT_ID slot) {
  Login login;
  {
    base::MutexLock lock(&conn_mu_);
    auto it = logins_.find(slot);
    if (it == logins_.end() || (conn_.get() == &conn && conn_logins_.count(slot) != 0)) {
      return OkStatus();
    }
    login.user = it->second.user;
    login.ticket = it->second.ticket;
  }
  if (login.ticket.empty()) {
    return MakeError(CKR_USER_NOT_LOGGED_IN,
                     "the node died and the application's login cannot follow it (the node gave "
                     "no re-login ticket: signetd --login-ticket-key)");
  }
  Status done = conn.LoginWithTicket(remote, login.user, login.ticket);
  // Another session of the application may have logged this connection
  // in meanwhile: that is the state wanted.
  if (!done.ok() && done.error().code != CKR_USER_ALREADY_LOGGED_IN) return done;
  base::MutexLock lock(&conn_mu_);
  if (conn_.get() == &conn) conn_logins_.insert(slot);
  return OkStatus();
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
  logins_.clear();  // SecureBytes wipes the tickets
  conn_logins_.clear();
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

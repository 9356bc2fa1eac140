// ModuleState: everything one C_Initialize ... C_Finalize cycle of the
// PKCS#11 module owns: its config, session table, login registry, a small
// pool of connections for calls that have no session (slot and token
// queries, C_InitToken), and the daemon's mechanism list (fixed for a
// daemon's lifetime, fetched once).
//
// The C ABI forces one process-wide "current" state; it lives behind
// CurrentState() and is the module's only global. After fork() the child
// sees no state (every call returns CKR_CRYPTOKI_NOT_INITIALIZED, PKCS#11
// v2.40 §6.7.1) until it calls C_Initialize; the parent's state is then
// abandoned in the child, never touched (its locks and sockets belong to
// the parent).
//
// Thread contract: ModuleState's methods are safe from any thread. No lock
// of it is held across a round trip to the daemon.
#pragma once

#include <p11-kit/pkcs11.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pkcs11/config.h"
#include "pkcs11/login_registry.h"
#include "pkcs11/session_table.h"
#include "signet/client.hpp"

namespace signet::pkcs11 {

class ModuleState {
 public:
  // ModuleState keeps `config` (or the error that loading it gave, reported
  // by every call that needs the daemon).
  explicit ModuleState(Result<ModuleConfig> config);
  ~ModuleState();

  SessionTable& sessions() { return sessions_; }
  LoginRegistry& logins() { return logins_; }

  // Connect opens a new connection to the daemon. On failure the reason is
  // printed to stderr once per C_Initialize and the call fails with
  // CKR_DEVICE_ERROR.
  [[nodiscard]] Result<std::unique_ptr<client::Client>> Connect();

  // GetInfo asks the daemon for slots, tokens and mechanisms over a pooled
  // connection.
  [[nodiscard]] Result<client::ServerInfo> GetInfo();

  // Mechanisms returns the daemon's mechanism list (cached after the first
  // successful call).
  [[nodiscard]] Result<std::vector<client::MechanismInfo>> Mechanisms();

  // InitToken runs C_InitToken's request over a pooled connection.
  [[nodiscard]] Result<client::InitTokenResult> InitToken(CK_SLOT_ID slot, crypto::ByteView so_pin,
                                                          const std::string& label);

  // Shutdown closes every session (C_Finalize).
  void Shutdown();

 private:
  // Borrow takes an idle pooled connection or opens one; Return gives it
  // back unless the call lost the connection.
  Result<std::unique_ptr<client::Client>> Borrow();
  void Return(std::unique_ptr<client::Client> conn, const Error* error);

  Result<ModuleConfig> config_;
  SessionTable sessions_;
  LoginRegistry logins_;
  std::atomic<bool> warned_{false};

  std::mutex pool_mu_;
  std::vector<std::unique_ptr<client::Client>> idle_;  // guarded by pool_mu_
  std::optional<std::vector<client::MechanismInfo>> mechanisms_;  // guarded by pool_mu_
};

// CurrentState returns the initialised state, or nullptr when the module is
// not initialised (or this is a forked child that has not re-initialised).
std::shared_ptr<ModuleState> CurrentState();

// InitializeModule / FinalizeModule implement C_Initialize / C_Finalize
// (PKCS#11 v2.40 §5.4), including the CK_C_INITIALIZE_ARGS rules.
CK_RV InitializeModule(CK_VOID_PTR init_args);
CK_RV FinalizeModule(CK_VOID_PTR reserved);

}  // namespace signet::pkcs11

// ModuleState: everything one C_Initialize ... C_Finalize cycle of the
// PKCS#11 module owns: its config, session table, the application's one
// connection to signetd (shared by every session and thread: the daemon
// sees one "application" per connection, so object handles, session objects
// and login are application-wide as PKCS#11 v2.40 §5.6 requires), and the
// daemon's mechanism list (fixed for a daemon's lifetime, fetched once).
//
// The C ABI forces one process-wide "current" state; it lives behind
// CurrentState() and is the module's only global. After fork() the child
// sees no state (every call returns CKR_CRYPTOKI_NOT_INITIALIZED, PKCS#11
// v2.40 §6.7.1) until it calls C_Initialize; the parent's state is then
// abandoned in the child, never touched (its locks and sockets belong to
// the parent).
//
// Thread contract: ModuleState's methods are safe from any thread. No lock
// of it is held across a round trip to the daemon, except that Conn()
// connects under conn_mu_ (once per application, so concurrent first
// calls share one connection).
#pragma once

#include <p11-kit/pkcs11.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/secure_bytes.h"
#include "pkcs11/config.h"
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

  // Conn returns the application's connection, connecting on first use
  // (or after DropConn). On failure the reason is printed to stderr once per
  // C_Initialize and the call fails with CKR_DEVICE_ERROR. Only the
  // pointer swap and the connect are under a lock; the Client itself is
  // thread-safe and shared.
  [[nodiscard]] Result<std::shared_ptr<client::Client>> Conn() EXCLUDES(conn_mu_);

  // DropConn forgets `dead` (if it is still the current connection) after a
  // call on it failed because the daemon is gone, so the next Conn()
  // reconnects (e.g. to a restarted daemon, or another node). Without
  // failover, sessions opened on `dead` keep it and keep failing until
  // closed; with it, they move (session_ops.h RestoreSession).
  void DropConn(const client::Client* dead) EXCLUDES(conn_mu_);

  // ---- Failover (docs/SCALING.md "Clients that use every node")

  // failover: the config lists several nodes and allows moving sessions
  // between them. Fixed at C_Initialize.
  bool failover() const { return failover_; }
  // node_count: how many addresses the config lists.
  std::size_t node_count() const { return node_count_; }
  // Stale: `conn` is no longer the application's connection (a call on it
  // found its node gone).
  bool Stale(const client::Client* conn) const EXCLUDES(conn_mu_);
  // RememberLogin keeps the application's login on `slot` as `user` and its
  // re-login ticket (empty when the node gave none), and notes that `conn`
  // is logged in there. Wipes `ticket`.
  void RememberLogin(const client::Client* conn, CK_SLOT_ID slot, CK_USER_TYPE user,
                     client::Bytes& ticket) EXCLUDES(conn_mu_);
  // ForgetLogin drops (and wipes) what RememberLogin kept for `slot`:
  // C_Logout, the slot's last session closed.
  void ForgetLogin(CK_SLOT_ID slot) EXCLUDES(conn_mu_);
  // DropTicket keeps the login but wipes its ticket (the PIN inside is no
  // longer the token's: C_SetPIN).
  void DropTicket(CK_SLOT_ID slot) EXCLUDES(conn_mu_);
  // RestoreLogin logs `conn` in on `slot` (through its session `remote`)
  // with the kept ticket, once per connection; OK when the application is
  // not logged in there. CKR_USER_NOT_LOGGED_IN when it is but holds no
  // ticket; LoginWithTicket's errors otherwise.
  Status RestoreLogin(client::Client& conn, client::Handle remote, CK_SLOT_ID slot)
      EXCLUDES(conn_mu_);

  // key_generation changes whenever a key check cached by a session may
  // have become wrong for the whole application (object destroyed or
  // changed, logout, session objects gone). One atomic load.
  std::uint64_t key_generation() const { return key_generation_.load(std::memory_order_acquire); }
  // InvalidateKeyChecks moves key_generation, emptying every session's
  // checked_keys on its next C_*Init.
  void InvalidateKeyChecks() { key_generation_.fetch_add(1, std::memory_order_acq_rel); }

  // GetInfo asks the daemon for slots, tokens and mechanisms.
  [[nodiscard]] Result<client::ServerInfo> GetInfo() EXCLUDES(conn_mu_);

  // Mechanisms returns the daemon's mechanism list (cached after the first
  // successful call).
  [[nodiscard]] Result<std::vector<client::MechanismInfo>> Mechanisms() EXCLUDES(conn_mu_);

  // InitToken runs C_InitToken's request.
  [[nodiscard]] Result<client::InitTokenResult> InitToken(CK_SLOT_ID slot, ByteView so_pin,
                                                          const std::string& label);

  // Shutdown closes every session and drops the connection (C_Finalize).
  void Shutdown() EXCLUDES(conn_mu_);

 private:
  Result<ModuleConfig> config_;
  SessionTable sessions_;
  std::atomic<bool> warned_{false};
  std::atomic<std::uint64_t> key_generation_{1};

  bool failover_ = false;
  std::size_t node_count_ = 1;
  // handle_key_: this application's key for stable object handles
  // (Client::UseStableHandles), random per C_Initialize.
  SecureBytes handle_key_;

  mutable base::Mutex conn_mu_;
  std::shared_ptr<client::Client> conn_ GUARDED_BY(conn_mu_);
  std::optional<std::vector<client::MechanismInfo>> mechanisms_ GUARDED_BY(conn_mu_);
  struct Login {
    CK_USER_TYPE user = CKU_USER;
    SecureBytes ticket;
  };
  std::map<CK_SLOT_ID, Login> logins_ GUARDED_BY(conn_mu_);
  // The slots conn_ is logged in to; emptied whenever conn_ changes.
  std::set<CK_SLOT_ID> conn_logins_ GUARDED_BY(conn_mu_);
};

// IsDaemonGone: `rv` says the connection to the daemon is lost.
inline bool IsDaemonGone(CK_RV rv) { return rv == CKR_DEVICE_ERROR || rv == CKR_DEVICE_REMOVED; }

// CurrentState returns the initialised state, or nullptr when the module is
// not initialised (or this is a forked child that has not re-initialised).
std::shared_ptr<ModuleState> CurrentState();

// InitializeModule / FinalizeModule implement C_Initialize / C_Finalize
// (PKCS#11 v2.40 §5.4), including the CK_C_INITIALIZE_ARGS rules.
CK_RV InitializeModule(CK_VOID_PTR init_args);
CK_RV FinalizeModule(CK_VOID_PTR reserved);

}  // namespace signet::pkcs11

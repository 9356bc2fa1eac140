#include "bench/local_daemon.h"

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "base/hex.h"
#include "base/secure_bytes.h"
#include "crypto/symmetric.h"
#include "keystore/data_dir.h"

namespace signet::bench {
namespace {

// RandomPin: 16 hex characters from the DRBG; the PINs guard only keys made
// for this run, but there is no reason to make them guessable.
Result<std::string> RandomPin() {
  Bytes raw(8);
  SIGNET_TRY(crypto::FillRandom(raw));
  return ToHex(raw);
}

}  // namespace

std::string SiblingProgram(const std::string& name) {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return name;
  return (self.parent_path() / name).string();
}

Result<std::unique_ptr<LocalDaemon>> LocalDaemon::Start(std::string signetd_path,
                                                        std::vector<std::string> extra_args,
                                                        const LocalDaemonOptions& options) {
  std::unique_ptr<LocalDaemon> d(new LocalDaemon());
  std::string tmpl = (std::filesystem::temp_directory_path() / "signet-bench-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) return MakeError(CKR_DEVICE_ERROR, "mkdtemp failed");
  d->dir_ = tmpl;
  d->socket_ = d->dir_ + "/signetd.sock";
  SIGNET_ASSIGN_OR_RETURN(d->pin_, RandomPin());
  SIGNET_ASSIGN_OR_RETURN(std::string so_pin, RandomPin());
  keystore::TokenOptions token_options;
  token_options.kdf.n = 1024;  // a benchmark token: PIN stretching is not what we measure
  auto token = keystore::CreateInDirectory(d->dir_, d->label_, AsBytes(so_pin), AsBytes(d->pin_),
                                           token_options);
  if (!token.ok()) {
    return MakeError(CKR_FUNCTION_FAILED,
                     "cannot create the benchmark token: " + token.error().message);
  }
  token->reset();  // the daemon opens it; close our handle first
  if (options.cryptech_listener) {
    d->cryptech_socket_ = d->dir_ + "/cryptech.sock";
    extra_args.insert(extra_args.end(),
                      {"--cryptech-socket", d->cryptech_socket_, "--cryptech-token", d->label_});
  }
  // Every client of the bench is this one uid: c = 256 plus the control
  // connection would pass the default cap of 256 per peer.
  extra_args.insert(extra_args.end(), {"--max-connections-per-peer", "1024"});
  // SIGNET_SHARED_MEMORY=no (the module's own switch) keeps the bench's
  // daemon on the socket too, so one variable compares the two transports.
  if (const char* shm = std::getenv("SIGNET_SHARED_MEMORY"); shm && std::string(shm) == "no") {
    extra_args.push_back("--no-shared-memory");
  }
  if (signetd_path.empty()) signetd_path = SiblingProgram("signetd");
  daemon::DaemonStartOptions start;
  start.log_limit = 1u << 20;  // the log serves start-up failures; a long run logs much more
  SIGNET_TRY(d->signetd_.Start(signetd_path, d->dir_, d->socket_, extra_args, start));
  return d;
}

LocalDaemon::~LocalDaemon() {
  signetd_.Terminate();
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

}  // namespace signet::bench

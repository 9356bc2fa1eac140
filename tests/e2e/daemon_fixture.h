// DaemonTest: the fixture every end-to-end test starts from: a temporary
// data directory holding one token made by `signet init` (with a cheap KDF
// so the suite stays fast), and a real signetd serving it on DIR/s.sock.
// TearDown stops the daemon with SIGTERM and expects exit status 0.
//
// Helpers run the CLI and the openssl tool, and open client-library
// sessions. A test's threads may each call OpenUserSession concurrently;
// everything else belongs to the test's main thread.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "process.h"
#include "signet/client.hpp"

namespace signet::e2e {

inline constexpr const char* kSoPin = "e2e-so-pin";
inline constexpr const char* kUserPin = "e2e-user-pin";
inline constexpr const char* kTokenLabel = "e2e-token";

// UserSession: one connection with one read-write session, logged in as user.
struct UserSession {
  std::unique_ptr<client::Client> client;
  client::Handle session = 0;
  CK_SLOT_ID slot = 0;
};

// OpenSslPath: the openssl command-line tool (the independent verifier).
std::string OpenSslPath();

// WriteTextFile / ReadBinaryFile: small helpers for test files.
void WriteTextFile(const std::string& path, const std::string& text);
std::vector<std::uint8_t> ReadBinaryFile(const std::string& path);

class DaemonTest : public ::testing::Test {
 public:  // helpers are called from test threads and free functions too
  void SetUp() override;
  void TearDown() override;

  // DaemonArgs: extra signetd flags for SetUp's start (e.g. TLS listeners);
  // runs after the data directory exists.
  virtual std::vector<std::string> DaemonArgs() { return {}; }

  // StartDaemon (re)starts signetd on the fixture's directory; fails the
  // test when it does not get ready.
  void StartDaemon(const std::vector<std::string>& extra = {});

  // Signet runs the CLI with --socket and --data set for this fixture.
  ProgramResult Signet(std::vector<std::string> args,
                       const std::map<std::string, std::string>& env = {});

  // OpenSsl runs the openssl tool with `args`.
  ProgramResult OpenSsl(const std::vector<std::string>& args);

  // MakeCertificate writes `name`.key (P-256) and `name`.pem for a test PKI:
  // self-signed with the first line of `extensions` when `issuer` is empty,
  // otherwise signed by `issuer`.key/.pem with every line of `extensions`.
  // Fails the test when the openssl tool does.
  void MakeCertificate(const std::string& name, const std::string& issuer,
                       const std::string& common_name, const std::string& extensions);

  // TlsTestPki writes a test PKI with the openssl tool - ca (a CA), server
  // (from ca; localhost and 127.0.0.1, serverAuth), client (from ca,
  // clientAuth), other-ca (an unrelated CA) and intruder (a client
  // certificate from other-ca), each NAME.pem + NAME.key - and returns the
  // signetd flags for a TLS listener on 127.0.0.1:0 that requires client
  // certificates from ca.
  std::vector<std::string> TlsTestPki();

  // TlsClientOptions: how a client reaches the TlsTestPki daemon (TcpPort)
  // with the certificate `cert`.pem / .key of that PKI.
  client::ConnectOptions TlsClientOptions(const std::string& cert = "client");

  // TcpPort reads the port of a `--listen 127.0.0.1:0` daemon from the
  // "tcp_port=" of its log; 0 (and a test failure) when there is none.
  int TcpPort();

  // LogLines: the daemon's log lines that start with `start` and hold every
  // one of `parts`, waiting up to 5 s for them (a line is written before the
  // reply it goes with, but read by the daemon's reader thread); empty when
  // none came.
  std::vector<std::string> LogLines(const std::vector<std::string>& parts,
                                    const std::string& start = "");

  // Connect opens a client connection to the daemon (asserting success).
  std::unique_ptr<client::Client> Connect();

  // OpenUserSession: Connect + OpenSession on the token + user Login;
  // `shared_memory` as in client::ConnectOptions (false: the socket alone).
  // Thread-safe (touches no fixture state but the paths).
  Result<UserSession> OpenUserSession(bool shared_memory = true);

  std::string Path(const std::string& name) const { return dir_.path() + "/" + name; }
  const std::string& data_dir() const { return data_dir_; }
  const std::string& socket_path() const { return socket_; }

  TempDir dir_;
  std::string data_dir_;
  std::string socket_;
  Daemon daemon_;
};

}  // namespace signet::e2e

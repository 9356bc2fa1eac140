// pkcs11_sign_load: signing load through the PKCS#11 module, for the
// failover test (pkcs11_failover_test.cc). It loads the module (address
// from SIGNET_SOCKET), logs in, finds the private key labelled LABEL, and
// for SECONDS runs THREADS threads, each on its own session, signing
// distinct messages with CKM_ECDSA_SHA256 as fast as it can. Then it
// prints one line per call, in order of completion within each thread:
//   sig <epoch ms> <message hex> <signature hex>
//   err <epoch ms> <CK_RV hex>
// Exit 0 when the set-up worked; otherwise 1 with the failing call on
// stderr.
// usage: pkcs11_sign_load MODULE PIN LABEL THREADS SECONDS
#include <p11-kit/pkcs11.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "base/hex.h"
#include "base/secure_bytes.h"
#include "plain_app.h"

namespace {

using signet::e2e::Check;
using signet::e2e::LoadModule;
using signet::e2e::UserSessionOnFirstToken;

using Clock = std::chrono::system_clock;

long long NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch())
      .count();
}

struct Call {
  long long at_ms = 0;
  CK_RV rv = CKR_OK;
  std::string message;
  std::vector<CK_BYTE> signature;
};

// SignLoop signs on its own session until `deadline`.
std::vector<Call> SignLoop(CK_FUNCTION_LIST_PTR p11, CK_SLOT_ID slot, CK_OBJECT_HANDLE key,
                           int thread, Clock::time_point deadline) {
  std::vector<Call> calls;
  CK_SESSION_HANDLE session = CK_INVALID_HANDLE;
  if (!Check("C_OpenSession",
             p11->C_OpenSession(slot, CKF_SERIAL_SESSION, nullptr, nullptr, &session))) {
    return calls;
  }
  for (long n = 0; Clock::now() < deadline; ++n) {
    Call call;
    call.message =
        "pid" + std::to_string(getpid()) + "-t" + std::to_string(thread) + "-" + std::to_string(n);
    CK_MECHANISM mechanism = {CKM_ECDSA_SHA256, nullptr, 0};
    call.rv = p11->C_SignInit(session, &mechanism, key);
    CK_BYTE signature[64];
    CK_ULONG length = sizeof signature;
    if (call.rv == CKR_OK) {
      call.rv = p11->C_Sign(session,
                            reinterpret_cast<CK_BYTE_PTR>(const_cast<char*>(call.message.data())),
                            call.message.size(), signature, &length);
    }
    if (call.rv == CKR_OK) call.signature.assign(signature, signature + length);
    call.at_ms = NowMs();
    calls.push_back(std::move(call));
    if (calls.back().rv != CKR_OK) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  p11->C_CloseSession(session);
  return calls;
}

int Run(const char* module, const std::string& pin, const std::string& label, int threads,
        int seconds) {
  CK_FUNCTION_LIST_PTR p11 = LoadModule(module);
  CK_SLOT_ID slot = 0;
  CK_SESSION_HANDLE session = CK_INVALID_HANDLE;
  if (p11 == nullptr || !UserSessionOnFirstToken(p11, CKF_SERIAL_SESSION, pin, &slot, &session)) {
    return 1;
  }
  CK_OBJECT_CLASS private_key = CKO_PRIVATE_KEY;
  CK_ATTRIBUTE match[] = {{CKA_CLASS, &private_key, sizeof private_key},
                          {CKA_LABEL, const_cast<char*>(label.data()), label.size()}};
  CK_OBJECT_HANDLE key = CK_INVALID_HANDLE;
  CK_ULONG found = 0;
  if (!Check("C_FindObjectsInit", p11->C_FindObjectsInit(session, match, 2)) ||
      !Check("C_FindObjects", p11->C_FindObjects(session, &key, 1, &found)) ||
      !Check("C_FindObjectsFinal", p11->C_FindObjectsFinal(session))) {
    return 1;
  }
  if (found != 1) return Check("C_FindObjects (no key)", CKR_KEY_HANDLE_INVALID) ? 0 : 1;
  std::printf("ready %lld\n", NowMs());
  std::fflush(stdout);

  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(seconds);
  std::vector<std::vector<Call>> results(static_cast<std::size_t>(threads));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] { results[t] = SignLoop(p11, slot, key, t, deadline); });
  }
  for (std::thread& worker : workers) worker.join();
  for (const std::vector<Call>& calls : results) {
    for (const Call& call : calls) {
      if (call.rv == CKR_OK) {
        std::printf("sig %lld %s %s\n", call.at_ms,
                    signet::ToHex(signet::AsBytes(call.message)).c_str(),
                    signet::ToHex(call.signature).c_str());
      } else {
        std::printf("err %lld %lx\n", call.at_ms, static_cast<unsigned long>(call.rv));
      }
    }
  }
  p11->C_Finalize(nullptr);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s MODULE PIN LABEL THREADS SECONDS\n", argv[0]);
    return 2;
  }
  return Run(argv[1], argv[2], argv[3], std::atoi(argv[4]), std::atoi(argv[5]));
}

// The module under concurrency and fork(): 64 threads with their own
// sessions signing with one token key over the application's one
// connection and its shared-memory ring (the daemon's counters show the
// ring carried them), every signature checked by OpenSSL; and a forked
// child that must re-initialise before the module works again.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "ec_verify.h"
#include "module_fixture.h"

namespace signet::e2e {
namespace {

constexpr int kThreads = 64;
constexpr int kSignaturesPerThread = 50;
constexpr char kKeyLabel[] = "shared-ec";

using ThreadsTest = ModuleTest;

// FindKey looks the private key up by label in `session`.
CK_OBJECT_HANDLE FindKey(CK_FUNCTION_LIST_PTR p11, CK_SESSION_HANDLE session) {
  CK_OBJECT_CLASS cls = CKO_PRIVATE_KEY;
  CK_ATTRIBUTE tmpl[] = {{CKA_CLASS, &cls, sizeof(cls)},
                         {CKA_LABEL, const_cast<char*>(kKeyLabel), std::strlen(kKeyLabel)}};
  CK_OBJECT_HANDLE key = CK_INVALID_HANDLE;
  CK_ULONG found = 0;
  if (p11->C_FindObjectsInit(session, tmpl, 2) != CKR_OK) return CK_INVALID_HANDLE;
  p11->C_FindObjects(session, &key, 1, &found);
  p11->C_FindObjectsFinal(session);
  return found == 1 ? key : CK_INVALID_HANDLE;
}

struct ThreadResult {
  CK_RV failure = CKR_OK;
  std::vector<std::vector<std::uint8_t>> messages;
  std::vector<std::vector<std::uint8_t>> signatures;
};

// SignMany: one thread's work, on its own session (logged in through the
// application-wide login of the main session).
void SignMany(CK_FUNCTION_LIST_PTR p11, CK_SLOT_ID slot, int thread, ThreadResult& out) {
  CK_SESSION_HANDLE session = CK_INVALID_HANDLE;
  out.failure = p11->C_OpenSession(slot, CKF_SERIAL_SESSION, nullptr, nullptr, &session);
  if (out.failure != CKR_OK) return;
  const CK_OBJECT_HANDLE key = FindKey(p11, session);
  if (key == CK_INVALID_HANDLE) {
    out.failure = CKR_KEY_HANDLE_INVALID;
    return;
  }
  CK_MECHANISM mech = {CKM_ECDSA_SHA256, nullptr, 0};
  for (int i = 0; i < kSignaturesPerThread && out.failure == CKR_OK; ++i) {
    std::string text = "thread " + std::to_string(thread) + " message " + std::to_string(i);
    std::vector<std::uint8_t> message(text.begin(), text.end());
    std::vector<std::uint8_t> sig(64);
    CK_ULONG sig_len = sig.size();
    out.failure = p11->C_SignInit(session, &mech, key);
    if (out.failure == CKR_OK) {
      out.failure = p11->C_Sign(session, message.data(), message.size(), sig.data(), &sig_len);
    }
    sig.resize(sig_len);
    out.messages.push_back(std::move(message));
    out.signatures.push_back(std::move(sig));
  }
  p11->C_CloseSession(session);
}

TEST_F(ThreadsTest, SixtyFourThreadsSignThroughTheRingAndAllVerify) {
  auto observer = Connect();
  ASSERT_NE(observer, nullptr);
  auto before = observer->GetStats();
  ASSERT_TRUE(before.ok());
  CK_SESSION_HANDLE main_session = OpenSession();
  LoginUser(main_session);
  CK_OBJECT_HANDLE pub = 0, priv = 0;
  MakeEcKey(main_session, kKeyLabel, /*token=*/true, &pub, &priv);
  const std::string pem = EcPublicKeyPem(main_session, pub);
  ASSERT_FALSE(pem.empty());

  std::vector<ThreadResult> results(kThreads);
  std::vector<std::thread> threads;
  const CK_SLOT_ID slot = TokenSlot();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back(SignMany, p11(), slot, t, std::ref(results[t]));
  }
  for (std::thread& t : threads) t.join();

  int verified = 0;
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(results[t].failure, CKR_OK) << "thread " << t;
    ASSERT_EQ(results[t].signatures.size(), static_cast<std::size_t>(kSignaturesPerThread));
    for (std::size_t i = 0; i < results[t].signatures.size(); ++i) {
      ASSERT_TRUE(VerifyEcdsaP256(pem, results[t].messages[i], results[t].signatures[i]))
          << "thread " << t << " signature " << i;
      ++verified;
    }
  }
  EXPECT_EQ(verified, kThreads * kSignaturesPerThread);
  auto after = observer->GetStats();
  ASSERT_TRUE(after.ok());
  // Most signatures went through the ring (a request that finds all 64
  // slots busy takes the socket).
  EXPECT_GE(after->ring_requests - before->ring_requests,
            static_cast<std::uint64_t>(kThreads * kSignaturesPerThread / 2));
}

// ChildProcedure runs in the forked child; its exit code names the first
// step that went wrong (0: all as PKCS#11 v2.40 §6.7.1 requires).
int ChildProcedure(CK_FUNCTION_LIST_PTR p11, CK_SLOT_ID slot) {
  CK_ULONG count = 0;
  if (p11->C_GetSlotList(CK_TRUE, nullptr, &count) != CKR_CRYPTOKI_NOT_INITIALIZED) return 1;
  CK_SESSION_HANDLE session = 0;
  if (p11->C_OpenSession(slot, CKF_SERIAL_SESSION, nullptr, nullptr, &session) !=
      CKR_CRYPTOKI_NOT_INITIALIZED) {
    return 2;
  }
  if (p11->C_Finalize(nullptr) != CKR_CRYPTOKI_NOT_INITIALIZED) return 3;
  if (p11->C_Initialize(nullptr) != CKR_OK) return 4;
  if (p11->C_OpenSession(slot, CKF_SERIAL_SESSION, nullptr, nullptr, &session) != CKR_OK) return 5;
  if (p11->C_Login(session, CKU_USER, Utf8(kUserPin), std::strlen(kUserPin)) != CKR_OK) return 6;
  const CK_OBJECT_HANDLE key = FindKey(p11, session);
  if (key == CK_INVALID_HANDLE) return 7;
  CK_MECHANISM mech = {CKM_ECDSA_SHA256, nullptr, 0};
  CK_BYTE message[] = "from the child";
  CK_BYTE sig[64];
  CK_ULONG sig_len = sizeof(sig);
  if (p11->C_SignInit(session, &mech, key) != CKR_OK) return 8;
  if (p11->C_Sign(session, message, sizeof(message), sig, &sig_len) != CKR_OK) return 9;
  if (p11->C_Finalize(nullptr) != CKR_OK) return 10;
  return 0;
}

TEST_F(ThreadsTest, ForkedChildMustReinitialiseThenWorks) {
  CK_SESSION_HANDLE session = OpenSession();
  LoginUser(session);
  CK_OBJECT_HANDLE pub = 0, priv = 0;
  MakeEcKey(session, kKeyLabel, /*token=*/true, &pub, &priv);
  const CK_SLOT_ID slot = TokenSlot();

  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(ChildProcedure(p11(), slot));
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "child failed at step " << WEXITSTATUS(status);

  // The parent's module and session are untouched by the child.
  CK_MECHANISM mech = {CKM_ECDSA_SHA256, nullptr, 0};
  CK_BYTE message[] = "from the parent";
  CK_BYTE sig[64];
  CK_ULONG sig_len = sizeof(sig);
  ASSERT_EQ(p11()->C_SignInit(session, &mech, priv), CKR_OK);
  EXPECT_EQ(p11()->C_Sign(session, message, sizeof(message), sig, &sig_len), CKR_OK);
}

}  // namespace
}  // namespace signet::e2e

// HsmFixture: a GoogleTest fixture for core tests that need a real Hsm on a
// temporary data dir: token 0 initialised by an admin client, an `owner`
// client (the same uid) and a `stranger` (another uid), a fake steady clock
// for the login throttle, and short helpers to open sessions and read the
// CK_RV of a call. Test-only.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "core/hsm.h"

namespace signet::core {

inline constexpr std::string_view kSoPin = "so-pin-1234";
inline constexpr std::string_view kUserPin = "user-pin-1234";
inline constexpr CK_FLAGS kRw = CKF_SERIAL_SESSION | CKF_RW_SESSION;
inline constexpr CK_FLAGS kRo = CKF_SERIAL_SESSION;

class HsmFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/signet-core-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    Open({});
  }
  void TearDown() override {
    Close();
    std::filesystem::remove_all(dir_);
  }

  // Open (re)opens the data dir with `limits`; the first call makes token 0.
  void Open(Limits limits, std::set<std::string> compat = {}) {
    using namespace std::chrono_literals;
    Close();
    HsmOptions options;
    options.data_dir = dir_ / "data";
    options.token_options.kdf.n = 1u << 10;  // tests: cheap KDF
    options.token_options.max_pin_failures = 3;
    options.limits = limits;
    options.public_rw_compat = std::move(compat);
    options.login_ticket_keys = login_ticket_keys_;
    options.clock = [this] { return std::chrono::steady_clock::time_point(now_.load() * 1ms); };
    auto hsm = Hsm::Open(options);
    ASSERT_TRUE(hsm.ok()) << hsm.error().message;
    hsm_ = std::move(*hsm);
    admin_ = hsm_->NewClient();
    admin_->admin = true;
    admin_->peer_identity = "uid=1000";
    if (hsm_->Slots().size() == 1) {
      auto init = hsm_->InitToken(*admin_, 0, AsBytes(kSoPin), "test",
                                  AsBytes(kUserPin));
      ASSERT_TRUE(init.ok()) << init.error().message;
      serial_ = init->second;
    }
    owner_ = hsm_->NewClient();
    owner_->peer_identity = "uid=1000";
    stranger_ = hsm_->NewClient();
    stranger_->peer_identity = "uid=2000";
  }
  void Close() {
    for (auto* c : {&admin_, &owner_, &stranger_}) {
      if (*c) hsm_->Disconnect(**c);
      c->reset();
    }
    hsm_.reset();
  }
  void Advance(std::chrono::milliseconds d) { now_ += d.count(); }

  CK_SESSION_HANDLE Session(ClientState& c, CK_FLAGS flags = kRw, CK_SLOT_ID slot = 0) {
    auto s = hsm_->OpenSession(c, slot, flags);
    EXPECT_TRUE(s.ok()) << s.error().message;
    return s.ok() ? *s : 0;
  }
  // LoggedIn: a new session of `c` (R/W unless `flags` say otherwise) with
  // `user` logged in.
  CK_SESSION_HANDLE LoggedIn(ClientState& c, CK_USER_TYPE user = CKU_USER, CK_FLAGS flags = kRw) {
    CK_SESSION_HANDLE s = Session(c, flags);
    auto pin = AsBytes(user == CKU_SO ? kSoPin : kUserPin);
    Status login = hsm_->Login(c, s, user, pin);
    EXPECT_TRUE(login.ok()) << login.error().message;
    return s;
  }
  static CK_RV Code(const Status& s) { return s.ok() ? CKR_OK : s.error().code; }
  template <typename T>
  static CK_RV Code(const Result<T>& r) {
    return r.ok() ? CKR_OK : r.error().code;
  }

  std::filesystem::path dir_;
  std::atomic<std::int64_t> now_{1'000'000};  // ms on the fake steady clock
  std::unique_ptr<Hsm> hsm_;
  std::shared_ptr<ClientState> admin_, owner_, stranger_;
  std::string serial_;
  std::vector<SecureBytes> login_ticket_keys_;  // the next Open's (none: no tickets)
};

}  // namespace signet::core

// PinMemo: lets a token confirm again, without scrypt, the PIN it last
// confirmed, for as long as it holds the KEK that PIN opened. A second
// login with the same PIN (another application, or a module failing over
// to this node with its re-login ticket, docs/SCALING.md) then costs a
// database read instead of a scrypt under load. It remembers, per user,
// the PIN record it confirmed (salt, cost and wrapped KEK, so a PIN
// changed anywhere no longer matches), an HMAC of the PIN under a random
// key of this process, and the KEK. Nothing it holds is more than the KEK
// the token holds anyway while logged in, and the token forgets it at the
// same moment (Logout). A wrong PIN never matches, so it still goes
// through scrypt and counts as a failure.
// Thread contract: every method may be called from any thread (one mutex).
#pragma once

#include <array>
#include <optional>

#include "base/mutex.h"
#include "keystore/pin_records.h"

namespace signet::keystore {

class PinMemo {
 public:
  PinMemo();

  // Recall returns the KEK when `pin` is the PIN last remembered for this
  // very `record`; nullopt otherwise.
  std::optional<SecureBytes> Recall(const PinRecord& record, ByteView pin) const EXCLUDES(mu_);
  // Remember notes that `pin` opened `record` to `kek`.
  void Remember(const PinRecord& record, ByteView pin, const SecureBytes& kek) EXCLUDES(mu_);
  // Forget drops everything remembered (the token's logout).
  void Forget() EXCLUDES(mu_);

 private:
  struct Entry {
    Bytes record;  // what identifies the record: cost, salt, wrapped KEK
    std::array<std::uint8_t, 32> pin_mac{};
    SecureBytes kek;
  };
  std::optional<std::array<std::uint8_t, 32>> PinMac(ByteView pin) const;

  SecureBytes key_;  // the HMAC key, random per process
  mutable base::Mutex mu_;
  std::array<std::optional<Entry>, 2> entries_ GUARDED_BY(mu_);  // by UserTypeCode
};

}  // namespace signet::keystore

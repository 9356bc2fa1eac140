// PIN records: the KEK sealed under each PIN, and the persistent failure
// counters that drive PIN lockout.
//
// A record holds scrypt's cost (n, r, p) and a random salt; the KEK is
// stored only as AES-KWP(scrypt(PIN, salt), KEK). A PIN is checked by
// unwrapping: KWP's integrity check fails for a wrong PIN, so no PIN hash is
// stored. The database functions REQUIRE the caller to serialise access to
// `db` (SqliteToken's database mutex); SealKek/OpenKek are pure and may run
// on any thread without it (they are the slow part).
#pragma once

#include <functional>

#include "crypto/symmetric.h"
#include "keystore/sqlite_db.h"
#include "keystore/token.h"

namespace signet::keystore {

struct PinRecord {
  UserType user = UserType::kUser;
  crypto::ScryptParams kdf;
  Bytes salt;
  Bytes wrapped_kek;
  int failures = 0;
};

// UserTypeCode: how a record's user is stored (0 = SO, 1 = user, as
// CKU_SO / CKU_USER), in token files and in PostgreSQL alike.
int UserTypeCode(UserType user);

// PlausibleCost: whether a stored scrypt cost (n, r, p) is one a record may
// have; below it a record is trivially weak, above it one Login would take
// minutes or gigabytes (a tampered record).
bool PlausibleCost(std::int64_t n, std::int64_t r, std::int64_t p);

// SealKek makes a fresh record (new random salt, failures 0) for `pin`.
// CKR_PIN_LEN_RANGE for an empty PIN.
Result<PinRecord> SealKek(UserType user, ByteView pin, ByteView kek,
                          const crypto::ScryptParams& kdf);

// OpenKek derives the PIN key and unwraps the KEK. CKR_PIN_INCORRECT when
// the PIN is wrong. Does not touch the failure counter.
Result<SecureBytes> OpenKek(const PinRecord& record, ByteView pin);

class PinMemo;

// PinCounter: one backend's reach to one user's PIN record, for
// CheckPinWithLockout. Each call takes the backend's own lock and commits
// before it returns.
//   load:           the record (LoadPinRecord's errors)
//   record_failure: one more failure; the new count
//   reset:          the count back to 0 unless it reached the limit, else
//                   CKR_PIN_LOCKED (ResetPinFailures)
//   memo:           the token's PinMemo (pin_memo.h), or nullptr
struct PinCounter {
  std::function<Result<PinRecord>()> load;
  std::function<Result<int>()> record_failure;
  std::function<Status()> reset;
  PinMemo* memo = nullptr;
};

// CheckPinWithLockout: the PIN rule of every token backend. A PIN whose
// count reached `max_failures` is refused unchecked (CKR_PIN_LOCKED). A
// wrong one counts, committed before the answer: CKR_PIN_INCORRECT, or
// CKR_PIN_LOCKED for the attempt that reaches the limit. A right one resets
// the count and returns the KEK, unless another attempt locked the PIN
// while this one was in scrypt (which runs with no lock held). A PIN the
// memo recalls for this very record skips scrypt; one scrypt confirms is
// remembered.
Result<SecureBytes> CheckPinWithLockout(ByteView pin, int max_failures, const PinCounter& counter);

// LoadPinRecord reads `user`'s record; CKR_USER_PIN_NOT_INITIALIZED when
// there is none, CKR_DEVICE_ERROR when its KDF cost is implausible.
Result<PinRecord> LoadPinRecord(Database& db, UserType user);

// StorePinRecord inserts or replaces `record`. REQUIRES: a transaction open.
Status StorePinRecord(Database& db, const PinRecord& record);

// RecordPinFailure adds one failure in its own committed transaction and
// returns the new count; the count is durable before this returns.
Result<int> RecordPinFailure(Database& db, UserType user);

// ResetPinFailures sets the count back to 0 (own committed transaction)
// unless it already reached `max_failures`: then CKR_PIN_LOCKED, so a lock
// set by a concurrent attempt while this PIN was being checked still holds.
Status ResetPinFailures(Database& db, UserType user, int max_failures);

}  // namespace signet::keystore

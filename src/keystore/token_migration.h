// Copying a token from one keystore to another: a token file into the
// PostgreSQL keystore and back (`signet migrate-keystore`, issue 18;
// docs/SCALING.md "Running it").
//
// Most of a token copies as stored (TokenRecords): label, serial, the PIN
// records with their salts, costs and failure counts (so both PINs keep
// working, and a lock stays a lock), and every object's attributes. An
// object's secret does not: it is wrapped for its handle (object_wrap.h),
// and handles are the destination's to give (a bigserial shared by every
// PostgreSQL token, a counter per token file). So the copy opens the KEK
// with one of the two PINs (both PIN records wrap the same KEK) and
// rewraps each secret for its new handle, the unwrapped value wiped at
// once. The key pool is not copied: its entries are bound to their entry
// ids and to the pool key, and the source may still hand them out, while a
// pooled key must reach one client only; the copy gets a fresh pool key
// and an empty pool, which refills.
//
// The PIN is checked against the record without counting a failure: the
// source is never written to, and whoever can read its records could try
// PINs against them offline anyway. A PIN that is locked in the source is
// refused (CKR_PIN_LOCKED) all the same.
//
// Thread contract: none; the CLI calls these from its one thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "keystore/keystore.h"

namespace signet::keystore {

// UnlockedToken: a token read for copying (its records) with its KEK
// opened; the KEK is wiped with the object.
struct UnlockedToken {
  TokenRecords records;
  SecureBytes kek;
};

// ReadUnlockedToken reads the token labelled `label` from `from`
// (Keystore::ReadTokenRecords: nothing is written) and opens its KEK with
// `user`'s `pin`. CKR_TOKEN_NOT_PRESENT when no readable token has the
// label (naming the tokens that could not be read); CKR_USER_PIN_NOT_
// INITIALIZED when `user` has no PIN; CKR_PIN_LOCKED when that PIN is
// locked; CKR_PIN_INCORRECT for a wrong PIN.
Result<UnlockedToken> ReadUnlockedToken(const Keystore& from, std::string_view label, UserType user,
                                        ByteView pin);

// MigrationReport: what WriteUnlockedToken stored.
struct MigrationReport {
  std::string location;  // the new token's, in the destination
  std::size_t objects = 0;
  std::size_t secrets = 0;  // objects whose secret was rewrapped
};

// WriteUnlockedToken stores `token` in `to` as a new token
// (Keystore::CreateTokenFromRecords: all or nothing), each secret rewrapped
// for its new handle under the same KEK, with a fresh pool key.
// CreateTokenFromRecords' errors (CKR_ARGUMENTS_BAD when `to` has a token
// with the label or serial); CKR_WRAPPED_KEY_INVALID when a stored secret
// does not unwrap (a damaged source: nothing is stored).
Result<MigrationReport> WriteUnlockedToken(Keystore& to, const UnlockedToken& token);

}  // namespace signet::keystore

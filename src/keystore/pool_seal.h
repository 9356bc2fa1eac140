// How key-pool entries are sealed, the same in every Token backend
// (SqliteToken, PostgresToken). An entry's private key is sealed to the
// token's pool key:
//   Seal(pool public key, "SGPOOL2" || entry id (u64 big-endian) || PKCS#8)
// (crypto/sealed_box.h), so filling the pool needs no KEK. The pool key's
// private half is stored as AES-KWP(KEK, "SGSEAL1" || PKCS#8); a take
// unwraps it with the KEK of a login, opens the entry and wraps the key
// under the KEK as an object's. The prefixes differ from an object's
// ("SGOBJ1", object_wrap.h) and from each other: a blob copied between
// tables, or between pool entries, does not open. Pure functions.
#pragma once

#include <cstdint>

#include "crypto/keys.h"
#include "keystore/token.h"

namespace signet::keystore {

// PoolSealKey: a token's pool key as stored: the X25519 public key's
// SubjectPublicKeyInfo and its PKCS#8 wrapped under the KEK.
struct PoolSealKey {
  Bytes public_der;
  Bytes wrapped_private;
};

// NewPoolSealKey makes a fresh pool key wrapped under `kek`.
Result<PoolSealKey> NewPoolSealKey(ByteView kek);

// ParsePoolPublicKey reads a stored public half. CKR_TOKEN_NOT_RECOGNIZED
// when it does not parse.
Result<crypto::PublicKey> ParsePoolPublicKey(ByteView public_der);

// UnwrapPoolPrivateKey opens a stored private half under `kek`.
// CKR_WRAPPED_KEY_INVALID when it does not unwrap or belongs elsewhere.
Result<crypto::PrivateKey> UnwrapPoolPrivateKey(ByteView kek, ByteView wrapped_private);

// SealPoolEntry seals `private_der` for entry `entry` to `seal_to`.
Result<Bytes> SealPoolEntry(const crypto::PublicKey& seal_to, std::int64_t entry,
                            ByteView private_der);

// OpenPoolEntry opens entry `entry`'s sealed key. CKR_WRAPPED_KEY_INVALID
// when it does not open or was sealed for another entry.
Result<SecureBytes> OpenPoolEntry(const crypto::PrivateKey& seal_key, std::int64_t entry,
                                  ByteView sealed);

}  // namespace signet::keystore

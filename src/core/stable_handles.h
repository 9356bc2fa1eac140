// StableHandles: the token-object handles of a client that asked for them
// (UseStableHandles): a keyed permutation (crypto/keyed_permutation.h) of
// (slot, object), so every node of a PostgreSQL keystore gives the client
// the same handle for the same object. The module relies on it to repeat a
// request on another node after one fails (docs/SCALING.md).
//
// The permuted value is 1 << 63 | slot << 40 | object: the top bit keeps
// it apart from every random handle (session objects, and token objects
// numbered before the client asked), 23 bits the slot id, 40 bits the
// keystore's object number. A slot or object past those widths gets a
// random handle, like a client that never asked. Immutable: safe from any
// thread.
#pragma once

#include <p11-kit/pkcs11.h>

#include <optional>
#include <utility>

#include "crypto/keyed_permutation.h"
#include "keystore/token.h"

namespace signet::core {

class StableHandles {
 public:
  // Make: CKR_ARGUMENTS_BAD unless `key` is 32 bytes.
  static Result<StableHandles> Make(ByteView key);

  // HandleOf: the handle of object `id` on `slot`; nullopt when the pair
  // does not fit the encoding.
  std::optional<CK_OBJECT_HANDLE> HandleOf(CK_SLOT_ID slot, keystore::ObjectHandle id) const;
  // ObjectOf: the (slot, object) `handle` stands for; nullopt for a handle
  // HandleOf never gives.
  std::optional<std::pair<CK_SLOT_ID, keystore::ObjectHandle>> ObjectOf(
      CK_OBJECT_HANDLE handle) const;

  bool SameKey(ByteView key) const { return permutation_.SameKey(key); }

 private:
  explicit StableHandles(crypto::KeyedPermutation permutation)
      : permutation_(std::move(permutation)) {}

  crypto::KeyedPermutation permutation_;
};

}  // namespace signet::core

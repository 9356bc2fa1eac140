// TokenRecords: a token exactly as its keystore stores it (label, serial,
// PIN records, objects with their wrapped values), for copying a token from
// one keystore to another (`signet migrate-keystore`, token_migration.h).
// Nothing here is ever unwrapped: the PIN records hold the KEK only wrapped
// under each PIN, the objects their secrets only wrapped under the KEK.
// Plain data, no thread contract of its own.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "keystore/pin_records.h"
#include "keystore/pool_seal.h"
#include "keystore/token.h"

namespace signet::keystore {

// ObjectRecord: one stored object: its handle in its keystore, its clear
// attributes, and its secret as stored (object_wrap.h: bound to `handle`),
// none for an object without one.
struct ObjectRecord {
  ObjectHandle handle = 0;
  AttributeMap attributes;
  std::optional<Bytes> wrapped_value;
};

// TokenRecords: what ReadTokenRecords returns and CreateTokenFromRecords
// stores (keystore.h). `pins` holds the SO's record, and the user's when
// the user PIN is initialised, failure counts included. `objects` are in
// handle order. The key pool is not part of it: `pool_key` is the pool key
// a new token gets (its entries are bound to their entry ids and to the
// pool key; a copy starts with an empty pool, which refills).
struct TokenRecords {
  std::string label;
  std::string serial;
  int max_pin_failures = 10;
  std::optional<CK_SLOT_ID> slot_id;
  std::vector<PinRecord> pins;
  std::vector<ObjectRecord> objects;
  PoolSealKey pool_key;  // read: empty; written: the new token's
};

// RewrapSecret: for CreateTokenFromRecords, the wrapped value that object
// `from` (its handle in the source) must have under its new handle `to`;
// an error aborts the whole creation.
using RewrapSecret =
    std::function<Result<Bytes>(ObjectHandle from, ObjectHandle to, ByteView wrapped)>;

}  // namespace signet::keystore

// The rules every Token backend applies the same way (SqliteToken,
// PostgresToken): what a token label may be, which objects hold a wrapped
// secret, that key material never sits among the clear attributes, and how
// a label is quoted in an error message. Pure functions, any thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "keystore/token.h"

namespace signet::keystore {

// CheckTokenLabel: CKR_ARGUMENTS_BAD unless `label` is 1-32 bytes
// (CK_TOKEN_INFO.label is 32 bytes).
Status CheckTokenLabel(std::string_view label);

// HoldsSecret: whether objects of `object_class` keep a wrapped value
// (private and secret keys).
bool HoldsSecret(std::optional<CK_ULONG> object_class);

// CheckNoClearSecrets: CKR_TEMPLATE_INCONSISTENT when a private or secret
// key's material (CKA_VALUE, CKA_PRIVATE_EXPONENT, CKA_PRIME_1/2,
// CKA_EXPONENT_1/2, CKA_COEFFICIENT) is among `attributes`: it belongs in
// the wrapped secret, never in the clear attribute blob.
Status CheckNoClearSecrets(const AttributeMap& attributes);

// CheckNewObjects applies CreateObjects' rules to `objects` before anything
// is stored (Token::CreateObjects): CKR_ARGUMENTS_BAD for an empty list or
// an empty secret, CheckNoClearSecrets for each, CKR_TEMPLATE_INCONSISTENT
// for a secret on an object that holds none. Returns whether any object
// carries a secret (and so needs the KEK).
Result<bool> CheckNewObjects(const std::vector<NewObject>& objects);

// InsertObject stores one object inside the caller's transaction
// (the backend's InsertObjectLocked, with the KEK bound).
using InsertObject =
    std::function<Result<ObjectHandle>(const AttributeMap& attributes, const SecureBytes* secret)>;

// MakePoolTake turns a claimed pool entry into the key pair TakePoolKey
// stores: the attributes `build` returns, the private key (with its
// secret) inserted first, then the public one, both through `insert`, so
// they commit together or not at all. `build`'s error as is.
Result<PoolTake> MakePoolTake(const PooledKey& key, const PoolObjectsBuilder& build,
                              const InsertObject& insert);

// EscapedLabel: `label` with bytes outside printable ASCII, the quote and
// the backslash as \xNN, so an error message cannot forge output lines.
std::string EscapedLabel(ByteView label);

// LabelTaken: the error of a key label already in use on the token
// (CKR_ATTRIBUTE_VALUE_INVALID: the template's CKA_LABEL value is what
// cannot be accepted; PKCS#11 has no "duplicate" code).
Error LabelTaken(ByteView label);

}  // namespace signet::keystore

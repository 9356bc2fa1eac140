// The byte form of an AttributeMap as stored in the objects table:
//   version u8 (= 1), then per attribute, in ascending type order:
//   type u64 little-endian, length u32 little-endian, `length` value bytes.
// Pure functions, safe from any thread.
#pragma once

#include "keystore/token.h"

namespace signet::keystore {

// EncodeAttributes serialises `attributes`. CKR_ATTRIBUTE_VALUE_INVALID when
// a value is longer than 4 GiB - 1.
Result<Bytes> EncodeAttributes(const AttributeMap& attributes);

// DecodeAttributes parses EncodeAttributes' output. CKR_DEVICE_ERROR (the
// stored row is corrupt) on a wrong version, truncation, trailing bytes or a
// repeated or out-of-order type.
Result<AttributeMap> DecodeAttributes(ByteView encoded);

// FindUlong / FindBool read a CK_ULONG / CK_BBOOL attribute out of a map
// (the C ABI byte form, signet/types.hpp); nullopt when absent or of the
// wrong size.
std::optional<CK_ULONG> FindUlong(const AttributeMap& attributes, CK_ATTRIBUTE_TYPE type);
std::optional<bool> FindBool(const AttributeMap& attributes, CK_ATTRIBUTE_TYPE type);

}  // namespace signet::keystore

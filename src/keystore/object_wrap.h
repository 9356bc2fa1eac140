// How an object's secret value is sealed under the KEK.
//
// wrapped = AES-KWP(KEK, "SGOBJ1" || handle (u64 big-endian) || secret)
//
// Binding the handle inside the wrap means a wrapped blob copied from one
// row into another no longer unwraps there (its embedded handle differs), so
// someone with write access to the file cannot silently make object B sign
// with object A's key. KWP's integrity check catches any other edit. Pure
// functions, safe from any thread.
#pragma once

#include "keystore/token.h"

namespace signet::keystore {

// WrapObjectSecret seals `secret` for object `handle`. Fails only when the
// crypto layer does (CKR_ARGUMENTS_BAD on an empty secret).
Result<Bytes> WrapObjectSecret(ByteView kek, ObjectHandle handle, ByteView secret);

// UnwrapObjectSecret opens a blob made by WrapObjectSecret for the same
// handle. CKR_WRAPPED_KEY_INVALID when the integrity check fails (wrong KEK,
// edited blob) or the blob was made for another handle.
Result<SecureBytes> UnwrapObjectSecret(ByteView kek, ObjectHandle handle, ByteView wrapped);

}  // namespace signet::keystore

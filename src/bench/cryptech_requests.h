// The libhal RPC requests `bench parallel --via cryptech` sends, and the
// reading of their replies: what Cryptech's parallel-signatures.py sends per
// connection (docs/CRYPTECH.md): LOGIN, PKEY_LOAD, PKEY_SIGN over and over,
// PKEY_DELETE. The numbers are proto/hal_rpc.h's; the encoding is
// proto/hal_xdr.h's. A request here is the bare packet (opcode, client,
// arguments); cryptech_connection.h frames and sends it.
// Pure functions: safe from any thread.
#pragma once

#include <cstdint>

#include "base/secure_bytes.h"
#include "proto/hal_rpc.h"
#include "proto/hal_xdr.h"
#include "signet/result.hpp"

namespace signet::bench::cryptech {

// kClient: the client word of every request. Cryptech's clients send 0
// (cryptech_muxd overwrites it; signetd's listener ignores it and answers
// for the connection: docs/CRYPTECH.md "Deliberate differences from libhal").
inline constexpr std::uint32_t kClient = 0;

// LoginRequest: LOGIN(user, pin). A SecureBytes: it carries the PIN.
SecureBytes LoginRequest(proto::hal::User user, ByteView pin);

// PkeyLoadRequest: PKEY_LOAD(session, der, flags); `der` is a PKCS#8
// PrivateKeyInfo (secret, hence SecureBytes) or a SubjectPublicKeyInfo.
SecureBytes PkeyLoadRequest(std::uint32_t session, ByteView der, std::uint32_t flags);

// PkeySignRequest: PKEY_SIGN(pkey, hash, input, sig_max). With hash 0 the
// input is signed as given: an RSA DER DigestInfo or an ECDSA digest.
SecureBytes PkeySignRequest(std::uint32_t pkey, std::uint32_t hash, ByteView input,
                            std::uint32_t sig_max);

// PkeyDeleteRequest: PKEY_DELETE(pkey).
SecureBytes PkeyDeleteRequest(std::uint32_t pkey);

// ReplyHeader: the three words every reply starts with.
struct ReplyHeader {
  std::uint32_t opcode = 0;
  std::uint32_t client = 0;
  std::uint32_t status = 0;
};

// ReadReplyHeader takes the header off `reply` (leaving the results);
// false when the packet is shorter than a header.
bool ReadReplyHeader(proto::XdrReader& reply, ReplyHeader& header);

// StatusError: the error for a reply to `opcode` whose status is not
// HAL_OK: "the Cryptech listener answered pkey_sign (23) with status 17";
// CKR_PIN_INCORRECT for HAL_ERROR_PIN_INCORRECT, CKR_FUNCTION_FAILED else.
Error StatusError(std::uint32_t opcode, std::uint32_t status);

// LoadedKey: PKEY_LOAD's results.
struct LoadedKey {
  std::uint32_t pkey = 0;
  Bytes uuid;  // the key's 16-byte name
};

// ReadLoadedKey / ReadSignature read the results of PKEY_LOAD and
// PKEY_SIGN (after the header); CKR_DEVICE_ERROR ("... is malformed",
// naming the opcode) when they are cut short or the name is not 16 bytes.
Result<LoadedKey> ReadLoadedKey(proto::XdrReader& results);
Result<Bytes> ReadSignature(proto::XdrReader& results);

}  // namespace signet::bench::cryptech

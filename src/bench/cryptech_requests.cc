#include "bench/cryptech_requests.h"

#include <string>

namespace signet::bench::cryptech {
namespace {

using proto::XdrWriter;
using proto::hal::Opcode;

// Start writes the request words every call begins with.
XdrWriter Start(Opcode opcode) {
  XdrWriter w;
  w.PutU32(static_cast<std::uint32_t>(opcode));
  w.PutU32(kClient);
  return w;
}

Error Malformed(Opcode opcode) {
  const auto number = static_cast<std::uint32_t>(opcode);
  return MakeError(CKR_DEVICE_ERROR, std::string("the Cryptech listener's reply to ") +
                                         proto::hal::OpcodeName(number) + " (" +
                                         std::to_string(number) + ") is malformed");
}

}  // namespace

SecureBytes LoginRequest(proto::hal::User user, ByteView pin) {
  XdrWriter w = Start(Opcode::kLogin);
  w.PutU32(static_cast<std::uint32_t>(user));
  w.PutOpaque(pin);
  return std::move(w.bytes());
}

SecureBytes PkeyLoadRequest(std::uint32_t session, ByteView der, std::uint32_t flags) {
  XdrWriter w = Start(Opcode::kPkeyLoad);
  w.PutU32(session);
  w.PutOpaque(der);
  w.PutU32(flags);
  return std::move(w.bytes());
}

SecureBytes PkeySignRequest(std::uint32_t pkey, std::uint32_t hash, ByteView input,
                            std::uint32_t sig_max) {
  XdrWriter w = Start(Opcode::kPkeySign);
  w.PutU32(pkey);
  w.PutU32(hash);
  w.PutOpaque(input);
  w.PutU32(sig_max);
  return std::move(w.bytes());
}

SecureBytes PkeyDeleteRequest(std::uint32_t pkey) {
  XdrWriter w = Start(Opcode::kPkeyDelete);
  w.PutU32(pkey);
  return std::move(w.bytes());
}

bool ReadReplyHeader(proto::XdrReader& reply, ReplyHeader& header) {
  return reply.GetU32(header.opcode) && reply.GetU32(header.client) && reply.GetU32(header.status);
}

Error StatusError(std::uint32_t opcode, std::uint32_t status) {
  const CK_RV code = status == static_cast<std::uint32_t>(proto::hal::Error::kPinIncorrect)
                         ? CKR_PIN_INCORRECT
                         : CKR_FUNCTION_FAILED;
  return MakeError(code, std::string("the Cryptech listener answered ") +
                             proto::hal::OpcodeName(opcode) + " (" + std::to_string(opcode) +
                             ") with status " + std::to_string(status));
}

Result<LoadedKey> ReadLoadedKey(proto::XdrReader& results) {
  LoadedKey key;
  ByteView uuid;
  if (!results.GetU32(key.pkey) || !results.GetOpaque(uuid) ||
      uuid.size() != proto::hal::kUuidLength) {
    return Malformed(Opcode::kPkeyLoad);
  }
  key.uuid.assign(uuid.begin(), uuid.end());
  return key;
}

Result<Bytes> ReadSignature(proto::XdrReader& results) {
  ByteView signature;
  if (!results.GetOpaque(signature)) return Malformed(Opcode::kPkeySign);
  return Bytes(signature.begin(), signature.end());
}

}  // namespace signet::bench::cryptech

// Decoders from a daemon reply to the public result types of client.hpp,
// one per reply shape. Pending<T>::decode points at one of them. Pure
// functions: safe from any thread.
#pragma once

#include <vector>

#include "signet/client.hpp"

namespace signet::client {

Result<void> DecodeStatus(const ReplyFrame& frame);
// DecodeLoginTicket: a login's re-login ticket; empty when the node gave
// none (it has no ticket key).
Result<Bytes> DecodeLoginTicket(const ReplyFrame& frame);
Result<Handle> DecodeSession(const ReplyFrame& frame);
Result<Handle> DecodeObject(const ReplyFrame& frame);
Result<std::vector<Handle>> DecodeObjects(const ReplyFrame& frame);
Result<Bytes> DecodeData(const ReplyFrame& frame);
Result<ServerInfo> DecodeInfo(const ReplyFrame& frame);
Result<SessionInfo> DecodeSessionInfo(const ReplyFrame& frame);
Result<InitTokenResult> DecodeInitToken(const ReplyFrame& frame);
Result<KeyPair> DecodeKeyPair(const ReplyFrame& frame);
Result<std::vector<Handle>> DecodeFindObjects(const ReplyFrame& frame);
// DecodeAttributes accepts the body also with rv CKR_ATTRIBUTE_SENSITIVE /
// CKR_ATTRIBUTE_TYPE_INVALID (each entry carries its own rv).
Result<std::vector<AttributeValue>> DecodeAttributes(const ReplyFrame& frame);
Result<std::vector<Result<Bytes>>> DecodeSignBatch(const ReplyFrame& frame);
Result<ServerStats> DecodeStats(const ReplyFrame& frame);

}  // namespace signet::client

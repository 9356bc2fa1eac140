// Encoders from client.hpp's public types into FlatBuffers request pieces.
// Each appends to `fbb` and returns the offset to reference from a request
// table. Pure: safe from any thread with distinct builders.
#pragma once

#include "signet/client.hpp"
#include "proto/signet_generated.h"

namespace signet::client {

flatbuffers::Offset<flatbuffers::Vector<std::uint8_t>> EncodeBytes(
    flatbuffers::FlatBufferBuilder& fbb, ByteView bytes);

flatbuffers::Offset<wire::Mechanism> EncodeMechanism(flatbuffers::FlatBufferBuilder& fbb,
                                                     const Mechanism& mechanism);

flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<wire::Attribute>>> EncodeTemplate(
    flatbuffers::FlatBufferBuilder& fbb, const Template& attributes);

}  // namespace signet::client

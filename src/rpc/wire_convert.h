// Conversions between FlatBuffers wire tables and core/ types. Pure
// functions on verified buffers: safe from any thread. Views returned point
// into the request buffer and live as long as it.
#pragma once

#include "core/hsm.h"
#include "signet_generated.h"

namespace signet::rpc {

using AttrVector = flatbuffers::Vector<flatbuffers::Offset<wire::Attribute>>;
using ByteVector = flatbuffers::Vector<std::uint8_t>;

// View returns the bytes of a vector (empty for an absent vector).
crypto::ByteView View(const ByteVector* v);

// ToTemplate copies wire attributes into a core::Template (absent: empty).
core::Template ToTemplate(const AttrVector* v);

// ToMechanism reads a mechanism; an absent one has type 0 (which no row of
// the mechanism table has, so the operation fails with CKR_MECHANISM_INVALID).
core::Mechanism ToMechanism(const wire::Mechanism* m);

}  // namespace signet::rpc

// Conversions between FlatBuffers wire tables and core/ types. Pure
// functions on verified buffers: safe from any thread. Views returned point
// into the request buffer and live as long as it.
#pragma once

#include "core/hsm.h"
#include "proto/signet_generated.h"

namespace signet::daemon {

using AttrVector = flatbuffers::Vector<flatbuffers::Offset<wire::Attribute>>;
using ByteVector = flatbuffers::Vector<std::uint8_t>;

// View returns the bytes of a vector (empty for an absent vector).
ByteView View(const ByteVector* v);

// WipedTemplate: a core::Template that wipes its attribute values when it
// goes away: a template from the wire may carry key material (the CKA_VALUE
// of an imported key) or other secrets. Converts to const core::Template&,
// so a handler passes ToTemplate(...) straight to the Hsm and the values are
// wiped at the end of that call's full expression.
class WipedTemplate {
 public:
  explicit WipedTemplate(core::Template t) : template_(std::move(t)) {}
  ~WipedTemplate();
  WipedTemplate(const WipedTemplate&) = delete;
  WipedTemplate& operator=(const WipedTemplate&) = delete;
  operator const core::Template&() const { return template_; }  // NOLINT: by design

 private:
  core::Template template_;
};

// ToTemplate copies wire attributes into a template (absent: empty).
WipedTemplate ToTemplate(const AttrVector* v);

// ToMechanism reads a mechanism; an absent one has type 0 (which no row of
// the mechanism table has, so the operation fails with CKR_MECHANISM_INVALID).
Mechanism ToMechanism(const wire::Mechanism* m);

// ToOperationKind: the wire's operation kind as core's (same values;
// static_asserts in the .cc keep them so). nullopt for a value beyond the
// enum, which the verifier lets through.
std::optional<OperationKind> ToOperationKind(wire::OperationKind kind);

}  // namespace signet::daemon

#include "daemon/audit.h"

#include <cstring>

#include "base/hex.h"
#include "base/mechanism_table.h"
#include "base/mutex.h"
#include "base/printable.h"
#include "base/rv_names.h"

namespace signet::daemon {
namespace {

using wire::RequestBody;
using AttributeList = flatbuffers::Vector<flatbuffers::Offset<wire::Attribute>>;

// Escaped: a client's bytes as one quoted, single-line log token.
std::string Escaped(const flatbuffers::Vector<std::uint8_t>* bytes) {
  if (bytes == nullptr) return QuotedAscii(std::string_view());
  return QuotedAscii(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
}

// DescribeTemplate appends the attributes of a template that name a key
// (label, id, class, key type); no other value is read.
void DescribeTemplate(const AttributeList* attributes, const char* prefix, std::string* out) {
  if (attributes == nullptr) return;
  for (const wire::Attribute* a : *attributes) {
    switch (a->type()) {
      case CKA_LABEL:
        *out += std::string(" ") + prefix + "label=" + Escaped(a->value());
        break;
      case CKA_ID:
        *out += std::string(" ") + prefix + "id=" + Escaped(a->value());
        break;
      case CKA_CLASS:
      case CKA_KEY_TYPE:
        if (a->value() != nullptr && a->value()->size() == sizeof(CK_ULONG)) {
          CK_ULONG v = 0;
          std::memcpy(&v, a->value()->data(), sizeof v);
          *out += std::string(" ") + prefix + (a->type() == CKA_CLASS ? "class=" : "key_type=") +
                  HexNumber(v);
        }
        break;
      default:
        break;  // values never logged
    }
  }
}

std::string MechanismName(const wire::Mechanism* m) {
  if (m == nullptr) return "none";
  const MechanismRow* row = FindMechanismRow(m->type());
  return row != nullptr ? std::string(row->name) : HexNumber(m->type());
}

std::string UserName(CK_ULONG user) {
  switch (user) {
    case CKU_SO:
      return "so";
    case CKU_USER:
      return "user";
    case CKU_CONTEXT_SPECIFIC:
      return "context_specific";
    default:
      return HexNumber(user);
  }
}

// SlotOfSession: " slot=N" for the session's token, "" if it is unknown.
std::string SlotOfSession(core::ClientState& client, CK_ULONG session) EXCLUDES(client.mu) {
  base::MutexLock lock(&client.mu);
  auto it = client.sessions.find(session);
  return it == client.sessions.end() ? "" : " slot=" + std::to_string(it->second.slot);
}

}  // namespace

std::optional<std::string> AuditLine(const wire::Request& request, CK_RV rv,
                                     core::ClientState& client) {
  std::string line = "audit op=";
  switch (request.body_type()) {
    case RequestBody::LoginRequest: {
      auto* r = request.body_as_LoginRequest();
      line += "login user=" + UserName(r->user_type()) + SlotOfSession(client, r->session());
      break;
    }
    case RequestBody::LogoutRequest:
      line += "logout" + SlotOfSession(client, request.body_as_LogoutRequest()->session());
      break;
    case RequestBody::InitTokenRequest: {
      auto* r = request.body_as_InitTokenRequest();
      line += "init_token slot=" + std::to_string(r->slot_id()) +
              " label=" + QuotedAscii(r->label() ? r->label()->string_view() : std::string_view());
      break;
    }
    case RequestBody::InitPinRequest:
      line += "init_pin" + SlotOfSession(client, request.body_as_InitPinRequest()->session());
      break;
    case RequestBody::SetPinRequest:
      line += "set_pin" + SlotOfSession(client, request.body_as_SetPinRequest()->session());
      break;
    case RequestBody::GenerateKeyPairRequest: {
      auto* r = request.body_as_GenerateKeyPairRequest();
      line += "generate_key_pair" + SlotOfSession(client, r->session()) +
              " mechanism=" + MechanismName(r->mechanism());
      if (r->unique_label()) line += " unique_label=1";
      DescribeTemplate(r->private_template(), "private_", &line);
      DescribeTemplate(r->public_template(), "public_", &line);
      break;
    }
    case RequestBody::GenerateKeyRequest: {
      auto* r = request.body_as_GenerateKeyRequest();
      line += "generate_key" + SlotOfSession(client, r->session()) +
              " mechanism=" + MechanismName(r->mechanism());
      DescribeTemplate(r->template_(), "", &line);
      break;
    }
    case RequestBody::CreateObjectRequest: {
      auto* r = request.body_as_CreateObjectRequest();
      line += "create_object" + SlotOfSession(client, r->session());
      DescribeTemplate(r->template_(), "", &line);
      break;
    }
    case RequestBody::CopyObjectRequest: {
      auto* r = request.body_as_CopyObjectRequest();
      line +=
          "copy_object" + SlotOfSession(client, r->session()) + " object=" + HexNumber(r->object());
      DescribeTemplate(r->template_(), "new_", &line);
      break;
    }
    case RequestBody::DestroyObjectRequest: {
      auto* r = request.body_as_DestroyObjectRequest();
      line += "destroy_object" + SlotOfSession(client, r->session()) +
              " object=" + HexNumber(r->object());
      break;
    }
    case RequestBody::CreateObjectsRequest: {
      auto* r = request.body_as_CreateObjectsRequest();
      line += "create_objects" + SlotOfSession(client, r->session());
      if (r->unique_label()) line += " unique_label=1";
      if (r->templates()) {
        for (flatbuffers::uoffset_t i = 0; i < r->templates()->size(); ++i) {
          std::string prefix = "object" + std::to_string(i) + "_";
          DescribeTemplate(r->templates()->Get(i)->template_(), prefix.c_str(), &line);
        }
      }
      break;
    }
    case RequestBody::DestroyObjectsRequest: {
      auto* r = request.body_as_DestroyObjectsRequest();
      line += "destroy_objects" + SlotOfSession(client, r->session()) + " objects=";
      if (r->objects()) {
        for (flatbuffers::uoffset_t i = 0; i < r->objects()->size(); ++i) {
          line += (i == 0 ? "" : ",") + HexNumber(r->objects()->Get(i));
        }
      }
      break;
    }
    case RequestBody::SetAttributeValueRequest: {
      auto* r = request.body_as_SetAttributeValueRequest();
      line += "set_attribute_value" + SlotOfSession(client, r->session()) +
              " object=" + HexNumber(r->object());
      DescribeTemplate(r->template_(), "new_", &line);
      break;
    }
    case RequestBody::WrapKeyRequest: {
      auto* r = request.body_as_WrapKeyRequest();
      line += "wrap_key" + SlotOfSession(client, r->session()) +
              " mechanism=" + MechanismName(r->mechanism()) +
              " wrapping_key=" + HexNumber(r->wrapping_key()) + " key=" + HexNumber(r->key());
      break;
    }
    case RequestBody::UnwrapKeyRequest: {
      auto* r = request.body_as_UnwrapKeyRequest();
      line += "unwrap_key" + SlotOfSession(client, r->session()) +
              " mechanism=" + MechanismName(r->mechanism()) +
              " unwrapping_key=" + HexNumber(r->unwrapping_key());
      DescribeTemplate(r->template_(), "", &line);
      break;
    }
    case RequestBody::DeriveKeyRequest: {
      auto* r = request.body_as_DeriveKeyRequest();
      line += "derive_key" + SlotOfSession(client, r->session()) +
              " mechanism=" + MechanismName(r->mechanism()) +
              " base_key=" + HexNumber(r->base_key());
      DescribeTemplate(r->template_(), "", &line);
      break;
    }
    default:
      return std::nullopt;
  }
  line += " result=" + RvToString(rv) + " peer=" + client.peer;
  return line;
}

}  // namespace signet::daemon

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
using Kind = AuditField::Kind;

// Escaped: client bytes as printable ASCII (QuotedAscii without its quotes).
std::string Escaped(std::string_view bytes) {
  std::string quoted = QuotedAscii(bytes);
  return quoted.substr(1, quoted.size() - 2);
}

std::string Escaped(const flatbuffers::Vector<std::uint8_t>* bytes) {
  if (bytes == nullptr) return "";
  return Escaped(std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
}

// Builder appends fields to a record.
struct Builder {
  AuditRecord record;
  void Text(std::string name, std::string value) {
    record.fields.push_back({std::move(name), std::move(value), Kind::kText});
  }
  void Quoted(std::string name, std::string value) {
    record.fields.push_back({std::move(name), std::move(value), Kind::kQuoted});
  }
};

// DescribeTemplate appends the attributes of a template that name a key
// (label, id, class, key type); no other value is read.
void DescribeTemplate(const AttributeList* attributes, const std::string& prefix, Builder* out) {
  if (attributes == nullptr) return;
  for (const wire::Attribute* a : *attributes) {
    switch (a->type()) {
      case CKA_LABEL:
        out->Quoted(prefix + "label", Escaped(a->value()));
        break;
      case CKA_ID:
        out->Quoted(prefix + "id", Escaped(a->value()));
        break;
      case CKA_CLASS:
      case CKA_KEY_TYPE:
        if (a->value() != nullptr && a->value()->size() == sizeof(CK_ULONG)) {
          CK_ULONG v = 0;
          std::memcpy(&v, a->value()->data(), sizeof v);
          out->Text(prefix + (a->type() == CKA_CLASS ? "class" : "key_type"), HexNumber(v));
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

// Slot appends the session's token slot when it is known.
void Slot(Builder* out, core::ClientState& client, CK_ULONG session) EXCLUDES(client.mu) {
  base::MutexLock lock(&client.mu);
  auto it = client.sessions.find(session);
  if (it != client.sessions.end()) {
    out->record.fields.push_back({"slot", std::to_string(it->second.slot), Kind::kNumber});
  }
}

// Op starts a record: "op", then the session's token slot.
void Op(Builder* out, std::string op, core::ClientState& client, CK_ULONG session)
    EXCLUDES(client.mu) {
  out->Text("op", std::move(op));
  Slot(out, client, session);
}

// DescribeKeyRequest: the requests that create, change or use keys.
bool DescribeKeyRequest(const wire::Request& request, core::ClientState& client, Builder* out) {
  switch (request.body_type()) {
    case RequestBody::GenerateKeyPairRequest: {
      auto* r = request.body_as_GenerateKeyPairRequest();
      Op(out, "generate_key_pair", client, r->session());
      out->Text("mechanism", MechanismName(r->mechanism()));
      if (r->unique_label()) out->Text("unique_label", "1");
      DescribeTemplate(r->private_template(), "private_", out);
      DescribeTemplate(r->public_template(), "public_", out);
      return true;
    }
    case RequestBody::GenerateKeyRequest: {
      auto* r = request.body_as_GenerateKeyRequest();
      Op(out, "generate_key", client, r->session());
      out->Text("mechanism", MechanismName(r->mechanism()));
      DescribeTemplate(r->template_(), "", out);
      return true;
    }
    case RequestBody::CreateObjectRequest: {
      auto* r = request.body_as_CreateObjectRequest();
      Op(out, "create_object", client, r->session());
      DescribeTemplate(r->template_(), "", out);
      return true;
    }
    case RequestBody::CopyObjectRequest: {
      auto* r = request.body_as_CopyObjectRequest();
      Op(out, "copy_object", client, r->session());
      out->Text("object", HexNumber(r->object()));
      DescribeTemplate(r->template_(), "new_", out);
      return true;
    }
    case RequestBody::DestroyObjectRequest: {
      auto* r = request.body_as_DestroyObjectRequest();
      Op(out, "destroy_object", client, r->session());
      out->Text("object", HexNumber(r->object()));
      return true;
    }
    case RequestBody::CreateObjectsRequest: {
      auto* r = request.body_as_CreateObjectsRequest();
      Op(out, "create_objects", client, r->session());
      if (r->unique_label()) out->Text("unique_label", "1");
      if (r->templates()) {
        for (flatbuffers::uoffset_t i = 0; i < r->templates()->size(); ++i) {
          DescribeTemplate(r->templates()->Get(i)->template_(), "object" + std::to_string(i) + "_",
                           out);
        }
      }
      return true;
    }
    case RequestBody::DestroyObjectsRequest: {
      auto* r = request.body_as_DestroyObjectsRequest();
      Op(out, "destroy_objects", client, r->session());
      std::string objects;
      if (r->objects()) {
        for (flatbuffers::uoffset_t i = 0; i < r->objects()->size(); ++i) {
          objects += (i == 0 ? "" : ",") + HexNumber(r->objects()->Get(i));
        }
      }
      out->Text("objects", objects);
      return true;
    }
    case RequestBody::SetAttributeValueRequest: {
      auto* r = request.body_as_SetAttributeValueRequest();
      Op(out, "set_attribute_value", client, r->session());
      out->Text("object", HexNumber(r->object()));
      DescribeTemplate(r->template_(), "new_", out);
      return true;
    }
    case RequestBody::WrapKeyRequest: {
      auto* r = request.body_as_WrapKeyRequest();
      Op(out, "wrap_key", client, r->session());
      out->Text("mechanism", MechanismName(r->mechanism()));
      out->Text("wrapping_key", HexNumber(r->wrapping_key()));
      out->Text("key", HexNumber(r->key()));
      return true;
    }
    case RequestBody::UnwrapKeyRequest: {
      auto* r = request.body_as_UnwrapKeyRequest();
      Op(out, "unwrap_key", client, r->session());
      out->Text("mechanism", MechanismName(r->mechanism()));
      out->Text("unwrapping_key", HexNumber(r->unwrapping_key()));
      DescribeTemplate(r->template_(), "", out);
      return true;
    }
    case RequestBody::DeriveKeyRequest: {
      auto* r = request.body_as_DeriveKeyRequest();
      Op(out, "derive_key", client, r->session());
      out->Text("mechanism", MechanismName(r->mechanism()));
      out->Text("base_key", HexNumber(r->base_key()));
      DescribeTemplate(r->template_(), "", out);
      return true;
    }
    default:
      return false;
  }
}

// DescribeAccessRequest: logins, logouts, token and PIN changes.
bool DescribeAccessRequest(const wire::Request& request, core::ClientState& client, Builder* out) {
  switch (request.body_type()) {
    case RequestBody::LoginRequest: {
      auto* r = request.body_as_LoginRequest();
      out->Text("op", "login");
      out->Text("user", UserName(r->user_type()));
      Slot(out, client, r->session());  // after the user, as the line has always been
      return true;
    }
    case RequestBody::LogoutRequest:
      Op(out, "logout", client, request.body_as_LogoutRequest()->session());
      return true;
    case RequestBody::InitTokenRequest: {
      auto* r = request.body_as_InitTokenRequest();
      out->Text("op", "init_token");
      out->record.fields.push_back({"slot", std::to_string(r->slot_id()), Kind::kNumber});
      out->Quoted("label", Escaped(r->label() ? r->label()->string_view() : std::string_view()));
      return true;
    }
    case RequestBody::InitPinRequest:
      Op(out, "init_pin", client, request.body_as_InitPinRequest()->session());
      return true;
    case RequestBody::SetPinRequest:
      Op(out, "set_pin", client, request.body_as_SetPinRequest()->session());
      return true;
    default:
      return false;
  }
}

}  // namespace

std::optional<AuditRecord> DescribeAudited(const wire::Request& request, CK_RV rv,
                                           core::ClientState& client) {
  Builder out;
  if (!DescribeAccessRequest(request, client, &out) && !DescribeKeyRequest(request, client, &out)) {
    return std::nullopt;
  }
  out.Text("result", RvToString(rv));
  out.Text("peer", client.peer);
  return std::move(out.record);
}

std::string AuditText(const AuditRecord& record) {
  std::string line = "audit";
  for (const AuditField& field : record.fields) {
    line += " " + field.name + "=";
    line += field.kind == AuditField::Kind::kQuoted ? "\"" + field.value + "\"" : field.value;
  }
  return line;
}

nlohmann::ordered_json AuditJson(const AuditRecord& record) {
  nlohmann::ordered_json fields = nlohmann::ordered_json::object();
  for (const AuditField& field : record.fields) {
    // A template may repeat an attribute: each value keeps a name of its own.
    std::string name = field.name;
    for (int n = 2; fields.contains(name); ++n) name = field.name + "_" + std::to_string(n);
    if (field.kind == AuditField::Kind::kNumber) {
      fields[name] = std::stoull(field.value);
    } else {
      fields[name] = field.value;
    }
  }
  return fields;
}

}  // namespace signet::daemon

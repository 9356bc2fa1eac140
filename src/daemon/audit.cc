#include "daemon/audit.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

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

// Builder appends fields to a record.
struct Builder {
  AuditRecord record;
  void Text(std::string name, std::string value) {
    record.fields.push_back({std::move(name), std::move(value), Kind::kText});
  }
  void Quoted(std::string name, std::string value) {
    record.fields.push_back({std::move(name), std::move(value), Kind::kQuoted});
  }
  void Number(std::string name, std::size_t value) {
    record.fields.push_back({std::move(name), std::to_string(value), Kind::kNumber});
  }
};

// A record's size is bounded whatever the request holds: a client may send
// thousands of labels in one template (FlatBuffers lets many offsets share
// one table), and every described value costs the log, its lock and its
// fdatasync. Past these caps the record says how many it left out.
constexpr std::size_t kMaxDescribedAttributes = 8;  // per template
constexpr std::size_t kMaxDescribedTemplates = 16;  // per CreateObjects
constexpr std::size_t kMaxDescribedBytes = 64;      // of a label or id

// Capped: a label's or id's bytes, escaped, cut to kMaxDescribedBytes.
std::string Capped(const flatbuffers::Vector<std::uint8_t>* bytes) {
  if (bytes == nullptr) return "";
  const std::size_t size = std::min<std::size_t>(bytes->size(), kMaxDescribedBytes);
  std::string escaped =
      Escaped(std::string_view(reinterpret_cast<const char*>(bytes->data()), size));
  return size < bytes->size() ? escaped + "..." : escaped;
}

// DescribeTemplate appends the attributes of a template that name a key
// (label, id, class, key type), the first kMaxDescribedAttributes of them;
// no other value is read.
void DescribeTemplate(const AttributeList* attributes, const std::string& prefix, Builder* out) {
  if (attributes == nullptr) return;
  std::size_t described = 0;
  std::size_t omitted = 0;
  for (const wire::Attribute* a : *attributes) {
    const CK_ATTRIBUTE_TYPE type = a->type();
    if (type != CKA_LABEL && type != CKA_ID && type != CKA_CLASS && type != CKA_KEY_TYPE) {
      continue;  // values never logged
    }
    if (described == kMaxDescribedAttributes) {
      ++omitted;
      continue;
    }
    ++described;
    switch (type) {
      case CKA_LABEL:
        out->Quoted(prefix + "label", Capped(a->value()));
        break;
      case CKA_ID:
        out->Quoted(prefix + "id", Capped(a->value()));
        break;
      default:
        if (a->value() != nullptr && a->value()->size() == sizeof(CK_ULONG)) {
          CK_ULONG v = 0;
          std::memcpy(&v, a->value()->data(), sizeof v);
          out->Text(prefix + (type == CKA_CLASS ? "class" : "key_type"), HexNumber(v));
        }
        break;
    }
  }
  if (omitted != 0) out->Number(prefix + "omitted", omitted);
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
    out->Number("slot", it->second.slot);
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
        const flatbuffers::uoffset_t count = r->templates()->size();
        for (flatbuffers::uoffset_t i = 0; i < count && i < kMaxDescribedTemplates; ++i) {
          DescribeTemplate(r->templates()->Get(i)->template_(), "object" + std::to_string(i) + "_",
                           out);
        }
        if (count > kMaxDescribedTemplates) {
          out->Number("objects_omitted", count - kMaxDescribedTemplates);
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
      if (r->ticket() != nullptr) out->Text("by", "ticket");
      return true;
    }
    case RequestBody::LogoutRequest:
      Op(out, "logout", client, request.body_as_LogoutRequest()->session());
      return true;
    case RequestBody::InitTokenRequest: {
      auto* r = request.body_as_InitTokenRequest();
      out->Text("op", "init_token");
      out->Number("slot", r->slot_id());
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
  std::unordered_map<std::string, int> repeats;  // name -> times seen
  for (const AuditField& field : record.fields) {
    // A template may repeat an attribute: each value keeps a name of its own
    // (label, label_2, ...; a record holds few fields, DescribeTemplate's caps).
    std::string name = field.name;
    if (const int seen = repeats[field.name]++; seen > 0) {
      name = field.name + "_" + std::to_string(seen + 1);
    }
    if (field.kind == AuditField::Kind::kNumber) {
      fields[name] = std::stoull(field.value);
    } else {
      fields[name] = field.value;
    }
  }
  return fields;
}

}  // namespace signet::daemon

// Objects (PKCS#11 v2.40 §5.7): create, copy, destroy, search and attribute
// access. The daemon applies the object policy; the module converts the C
// ABI and plays the caller-buffer rules of C_GetAttributeValue locally (the
// daemon always sends full values).
#include <string.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "pkcs11/abi.h"
#include "pkcs11/entry_points.h"
#include "pkcs11/session_ops.h"

namespace signet::pkcs11::entry {
namespace {

// StoreHandle writes a created object's handle to `out`, or returns the
// daemon's error as it is (the daemon names unknown handles
// CKR_OBJECT_HANDLE_INVALID, which is also what the object functions must
// return).
CK_RV StoreHandle(Result<client::Handle> made, CK_OBJECT_HANDLE_PTR out) {
  if (!made.ok()) return made.error().code;
  *out = *made;
  return CKR_OK;
}

// FillAttribute applies §5.7's rules to one template entry and returns the
// code it contributes (CKR_OK when it was filled or length-queried).
CK_RV FillAttribute(const client::AttributeValue& answer, CK_ATTRIBUTE& slot) {
  if (answer.rv != CKR_OK) {
    slot.ulValueLen = CK_UNAVAILABLE_INFORMATION;
    return answer.rv;
  }
  if (slot.pValue == nullptr) {
    slot.ulValueLen = answer.value.size();
    return CKR_OK;
  }
  if (slot.ulValueLen < answer.value.size()) {
    slot.ulValueLen = CK_UNAVAILABLE_INFORMATION;
    return CKR_BUFFER_TOO_SMALL;
  }
  if (!answer.value.empty()) std::memcpy(slot.pValue, answer.value.data(), answer.value.size());
  slot.ulValueLen = answer.value.size();
  return CKR_OK;
}

// FillTemplateAttribute applies §5.7's rules to a template-valued attribute
// (CKF_ARRAY_ATTRIBUTE): its length is that of a CK_ATTRIBUTE array; with a
// large enough array each element gets its type and, by the same rules, its
// value (NULL pValue: length only), so a caller asks for the count, then
// the lengths, then the values.
CK_RV FillTemplateAttribute(const client::AttributeValue& answer, CK_ATTRIBUTE& slot) {
  std::optional<std::vector<NestedAttribute>> nested = DecodeAttributeArray(answer.value);
  if (!nested) return CKR_DEVICE_ERROR;  // the daemon stores only well-formed ones
  const CK_ULONG size = nested->size() * sizeof(CK_ATTRIBUTE);
  if (slot.pValue == nullptr) {
    slot.ulValueLen = size;
    return CKR_OK;
  }
  if (slot.ulValueLen < size) {
    slot.ulValueLen = CK_UNAVAILABLE_INFORMATION;
    return CKR_BUFFER_TOO_SMALL;
  }
  auto* out = static_cast<CK_ATTRIBUTE*>(slot.pValue);
  CK_RV rv = CKR_OK;
  for (std::size_t i = 0; i < nested->size(); ++i) {
    out[i].type = (*nested)[i].type;
    const client::AttributeValue element{(*nested)[i].type, CKR_OK, std::move((*nested)[i].value)};
    if (CK_RV element_rv = FillAttribute(element, out[i]); element_rv != CKR_OK) rv = element_rv;
  }
  slot.ulValueLen = size;
  return rv;
}

// Worst: §5.7 lets any of the codes be returned when several apply; signet
// reports sensitivity first, then unknown types, then short buffers.
CK_RV Worst(CK_RV a, CK_RV b) {
  for (CK_RV code : {CKR_ATTRIBUTE_SENSITIVE, CKR_ATTRIBUTE_TYPE_INVALID, CKR_BUFFER_TOO_SMALL}) {
    if (a == code || b == code) return code;
  }
  return a != CKR_OK ? a : b;
}

}  // namespace

CK_RV C_CreateObject(CK_SESSION_HANDLE handle, CK_ATTRIBUTE_PTR tmpl, CK_ULONG count,
                     CK_OBJECT_HANDLE_PTR object) {
  return WithSession(handle, [&](ModuleState&, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (object == nullptr) return CKR_ARGUMENTS_BAD;
    Result<client::Template> attrs = ToTemplate(tmpl, count);
    if (!attrs.ok()) return attrs.error().code;
    return StoreHandle(s.conn->CreateObject(s.remote, *attrs), object);
  });
}

CK_RV C_CopyObject(CK_SESSION_HANDLE handle, CK_OBJECT_HANDLE object, CK_ATTRIBUTE_PTR tmpl,
                   CK_ULONG count, CK_OBJECT_HANDLE_PTR new_object) {
  return WithSession(handle, [&](ModuleState&, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (new_object == nullptr) return CKR_ARGUMENTS_BAD;
    Result<client::Template> attrs = ToTemplate(tmpl, count);
    if (!attrs.ok()) return attrs.error().code;
    return StoreHandle(s.conn->CopyObject(s.remote, object, *attrs), new_object);
  });
}

CK_RV C_DestroyObject(CK_SESSION_HANDLE handle, CK_OBJECT_HANDLE object) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    const Status done = s.conn->DestroyObject(s.remote, object);
    state.InvalidateKeyChecks();  // after: a check racing the destroy is redone
    return RvOf(done);
  });
}

// C_GetObjectSize (PKCS#11 v2.40 §5.7): the handle is checked like every
// object function's, by reading CKA_CLASS (one round trip the daemon
// already answers, with its private-object visibility), and the size is
// CK_UNAVAILABLE_INFORMATION, which §5.7 allows: an object's stored size
// (wrapped key, attribute encoding) says nothing useful about token memory
// to an application, and a real figure would need a new request.
CK_RV C_GetObjectSize(CK_SESSION_HANDLE handle, CK_OBJECT_HANDLE object, CK_ULONG_PTR size) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (size == nullptr) return CKR_ARGUMENTS_BAD;
    const CK_ATTRIBUTE_TYPE types[] = {CKA_CLASS};
    Result<std::vector<client::AttributeValue>> found =
        Repeatable(state, s, [&](client::Client& conn, client::Handle remote) {
          return conn.GetAttributeValue(remote, object, types);
        });
    if (!found.ok()) return found.error().code;
    *size = CK_UNAVAILABLE_INFORMATION;
    return CKR_OK;
  });
}

CK_RV C_GetAttributeValue(CK_SESSION_HANDLE handle, CK_OBJECT_HANDLE object,
                          CK_ATTRIBUTE_PTR tmpl, CK_ULONG count) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (tmpl == nullptr && count != 0) return CKR_ARGUMENTS_BAD;
    std::vector<CK_ATTRIBUTE_TYPE> types(count);
    for (CK_ULONG i = 0; i < count; ++i) types[i] = tmpl[i].type;
    Result<std::vector<client::AttributeValue>> answers =
        Repeatable(state, s, [&](client::Client& conn, client::Handle remote) {
          return conn.GetAttributeValue(remote, object, types);
        });
    if (!answers.ok()) return answers.error().code;
    if (answers->size() != count) return CKR_DEVICE_ERROR;  // the daemon broke the protocol
    CK_RV rv = CKR_OK;
    for (CK_ULONG i = 0; i < count; ++i) {
      const client::AttributeValue& answer = (*answers)[i];
      const bool nested = answer.rv == CKR_OK && IsTemplateAttribute(tmpl[i].type);
      rv = Worst(rv,
                 nested ? FillTemplateAttribute(answer, tmpl[i]) : FillAttribute(answer, tmpl[i]));
    }
    // A non-sensitive key's components may be among the answers.
    for (client::AttributeValue& answer : *answers) {
      if (!answer.value.empty()) explicit_bzero(answer.value.data(), answer.value.size());
    }
    return rv;
  });
}

CK_RV C_SetAttributeValue(CK_SESSION_HANDLE handle, CK_OBJECT_HANDLE object,
                          CK_ATTRIBUTE_PTR tmpl, CK_ULONG count) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    Result<client::Template> attrs = ToTemplate(tmpl, count);
    if (!attrs.ok()) return attrs.error().code;
    const Status done = s.conn->SetAttributeValue(s.remote, object, *attrs);
    state.InvalidateKeyChecks();
    return RvOf(done);
  });
}

CK_RV C_FindObjectsInit(CK_SESSION_HANDLE handle, CK_ATTRIBUTE_PTR tmpl, CK_ULONG count) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (s.find.active) return CKR_OPERATION_ACTIVE;
    Result<client::Template> attrs = ToTemplate(tmpl, count);
    if (!attrs.ok()) return attrs.error().code;
    Result<std::vector<client::Handle>> found =
        Repeatable(state, s, [&](client::Client& conn, client::Handle remote) {
          return conn.FindObjects(remote, *attrs);
        });
    if (!found.ok()) return found.error().code;
    s.find = FindState{true, std::move(*found), 0};
    return CKR_OK;
  });
}

CK_RV C_FindObjects(CK_SESSION_HANDLE handle, CK_OBJECT_HANDLE_PTR objects, CK_ULONG max_count,
                    CK_ULONG_PTR count) {
  return WithSession(handle, [&](ModuleState&, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (objects == nullptr || count == nullptr) return CKR_ARGUMENTS_BAD;
    if (!s.find.active) return CKR_OPERATION_NOT_INITIALIZED;
    const std::size_t n = std::min<std::size_t>(max_count, s.find.results.size() - s.find.next);
    std::copy_n(s.find.results.begin() + s.find.next, n, objects);
    s.find.next += n;
    *count = n;
    return CKR_OK;
  });
}

CK_RV C_FindObjectsFinal(CK_SESSION_HANDLE handle) {
  return WithSession(handle, [&](ModuleState&, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (!s.find.active) return CKR_OPERATION_NOT_INITIALIZED;
    s.find = FindState{};
    return CKR_OK;
  });
}

}  // namespace signet::pkcs11::entry

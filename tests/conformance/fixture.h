// Fixture: what every conformance area needs besides the check framework:
// the token under test (found by label), sessions and logins, templates,
// key generation, and the clean-up of every token object the suite made.
// Used only through the module's function list. Single-threaded.
#pragma once

#include <p11-kit/pkcs11.h>

#include <deque>
#include <string>
#include <vector>

#include "check.h"

namespace signet::conformance {

// Template: a CK_ATTRIBUTE array that owns its values.
class Template {
 public:
  Template() = default;
  // A copy owns copies of the values, so its pointers must point at them
  // (a copied `return Template().Ulong(...)` otherwise dangles).
  Template(const Template& other);
  Template& operator=(const Template& other);
  Template(Template&&) = default;
  Template& operator=(Template&&) = default;

  Template& Bool(CK_ATTRIBUTE_TYPE type, bool value);
  Template& Ulong(CK_ATTRIBUTE_TYPE type, CK_ULONG value);
  Template& Bytes(CK_ATTRIBUTE_TYPE type, const std::vector<CK_BYTE>& value);
  Template& Str(CK_ATTRIBUTE_TYPE type, const std::string& value);
  // Raw: an attribute with an arbitrary pointer / length (argument checks).
  Template& Raw(CK_ATTRIBUTE_TYPE type, void* value, CK_ULONG length);

  CK_ATTRIBUTE_PTR data() { return attributes_.data(); }
  CK_ULONG size() const { return attributes_.size(); }

 private:
  std::deque<std::vector<CK_BYTE>> values_;
  std::vector<CK_ATTRIBUTE> attributes_;
};

// KeyKind: the keys the suite generates for its operation checks.
enum class KeyKind { kRsa, kEc, kEd25519, kAes };

// KeyPair: handles of a generated key (secret keys use `priv` only).
struct KeyPair {
  CK_OBJECT_HANDLE pub = CK_INVALID_HANDLE;
  CK_OBJECT_HANDLE priv = CK_INVALID_HANDLE;
  bool ok() const { return priv != CK_INVALID_HANDLE; }
};

// DER OID of prime256v1 (CKA_EC_PARAMS).
extern const std::vector<CK_BYTE> kP256Params;
// The printable string "edwards25519" (CKA_EC_PARAMS of Ed25519 keys).
extern const std::vector<CK_BYTE> kEd25519Params;

class Fixture {
 public:
  explicit Fixture(Suite& suite);

  Suite& suite() { return suite_; }
  CK_FUNCTION_LIST_PTR p11() { return suite_.p11(); }
  const Options& options() const { return suite_.options(); }

  // FindToken looks up the slot whose token has the configured label.
  bool FindToken();
  CK_SLOT_ID slot() const { return slot_; }

  // Open opens a session on the token; CK_INVALID_HANDLE on failure.
  CK_SESSION_HANDLE Open(bool read_write);
  CK_RV Login(CK_SESSION_HANDLE session, CK_USER_TYPE user);
  CK_RV LoginUser(CK_SESSION_HANDLE session) { return Login(session, CKU_USER); }
  // CloseAll closes every session on the token (so nobody is logged in).
  void CloseAll();
  // SessionState: the session's CKS_* state, or ~0 when C_GetSessionInfo fails.
  CK_STATE SessionState(CK_SESSION_HANDLE session);

  // Generate makes a key of `kind` (RSA-2048, P-256, Ed25519, AES-256) as
  // session objects unless `token`; `pub` / `priv` add attributes (usage
  // flags, ...) to each half, `priv` only for a secret key. Returns an empty
  // KeyPair and prints the reason on failure.
  KeyPair Generate(CK_SESSION_HANDLE session, KeyKind kind, Template pub, Template priv,
                   bool token = false);
  // CreateData makes a data object; CK_INVALID_HANDLE on failure.
  CK_OBJECT_HANDLE CreateData(CK_SESSION_HANDLE session, const std::string& label, bool token,
                              bool is_private);

  // Attribute reads one attribute's value (length query then value); rv out.
  std::vector<CK_BYTE> Attribute(CK_SESSION_HANDLE session, CK_OBJECT_HANDLE object,
                                 CK_ATTRIBUTE_TYPE type, CK_RV* rv = nullptr);
  // Count: how many objects C_FindObjects finds for `tmpl` (-1 on error).
  int Count(CK_SESSION_HANDLE session, Template tmpl);

  // Track: a token object to destroy in Cleanup.
  void Track(CK_OBJECT_HANDLE object) { token_objects_.push_back(object); }
  // Cleanup destroys the tracked token objects (as the user) and closes all sessions.
  void Cleanup();

  // Mechanisms: the token's mechanism list (cached).
  const std::vector<CK_MECHANISM_TYPE>& Mechanisms();
  bool Offers(CK_MECHANISM_TYPE mechanism, CK_FLAGS flags = 0);

 private:
  Suite& suite_;
  CK_SLOT_ID slot_ = 0;
  std::vector<CK_OBJECT_HANDLE> token_objects_;
  std::vector<CK_MECHANISM_TYPE> mechanisms_;
  bool mechanisms_read_ = false;
};

// Text helpers for check lines.
std::string Hex(CK_ULONG value);
std::string Blank(const CK_UTF8CHAR* field, size_t size);  // trailing blanks cut

}  // namespace signet::conformance

// The PKCS#11 plumbing the bench's PKCS#11 backend shares between its
// signing (pkcs11_backend.cc) and its other operations
// (pkcs11_operations.cc): the dlopen()ed module, a logged-in session,
// finding objects by label and reading attributes.
// Thread contract: a Module is shared read-only once loaded; each Session
// belongs to one thread.
#pragma once

#include <dlfcn.h>
#include <p11-kit/pkcs11.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/pkcs11_backend.h"
#include "signet/result.hpp"

namespace signet::bench {

// P11Error: `what` failed with `rv`, the CK_RV in the message.
Error P11Error(const char* what, CK_RV rv);

// P11_TRY returns P11Error(what, rv) from the enclosing function when
// `call` does not return CKR_OK.
#define P11_TRY(what, call)                                \
  do {                                                     \
    CK_RV p11_rv_ = (call);                                \
    if (p11_rv_ != CKR_OK) return P11Error(what, p11_rv_); \
  } while (0)

// Module: the loaded library and its function list. Closing finalises it.
struct Module {
  void* handle = nullptr;
  CK_FUNCTION_LIST_PTR f = nullptr;
  bool initialized = false;
  CK_SLOT_ID slot = 0;
  std::string pin;

  ~Module() {
    if (initialized) f->C_Finalize(nullptr);
    if (handle != nullptr) dlclose(handle);
  }
};

// Load dlopen()s options.module_path, initialises it with
// CKF_OS_LOCKING_OK and picks the token (the one labelled
// options.token_label, else the first initialised one).
Status Load(Module& m, const Pkcs11BackendOptions& options);

// Session: one logged-in read-write session, closed on destruction.
class Session {
 public:
  static Result<std::unique_ptr<Session>> Open(std::shared_ptr<const Module> m) {
    CK_SESSION_HANDLE h = 0;
    P11_TRY("C_OpenSession", m->f->C_OpenSession(m->slot, CKF_SERIAL_SESSION | CKF_RW_SESSION,
                                                 nullptr, nullptr, &h));
    auto s = std::unique_ptr<Session>(new Session(std::move(m), h));
    CK_RV rv = s->m_->f->C_Login(
        h, CKU_USER, reinterpret_cast<CK_UTF8CHAR_PTR>(const_cast<char*>(s->m_->pin.data())),
        s->m_->pin.size());
    if (rv != CKR_OK && rv != CKR_USER_ALREADY_LOGGED_IN) return P11Error("C_Login", rv);
    return s;
  }
  ~Session() { m_->f->C_CloseSession(h_); }

  CK_FUNCTION_LIST_PTR f() const { return m_->f; }
  CK_SESSION_HANDLE h() const { return h_; }

 private:
  Session(std::shared_ptr<const Module> m, CK_SESSION_HANDLE h) : m_(std::move(m)), h_(h) {}
  std::shared_ptr<const Module> m_;
  CK_SESSION_HANDLE h_;
};

// Find returns the objects of class `cls` labelled `label`.
Result<std::vector<CK_OBJECT_HANDLE>> Find(Session& s, const std::string& label,
                                           CK_OBJECT_CLASS cls);

// Attribute reads one attribute (empty when the object lacks it).
Bytes Attribute(Session& s, CK_OBJECT_HANDLE o, CK_ATTRIBUTE_TYPE type);

}  // namespace signet::bench

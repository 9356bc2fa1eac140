// signet::Result<T> and signet::Error: how every fallible signet call reports
// failure, from the keystore up through the wire protocol to the PKCS#11 C ABI.
//
// The code space is PKCS#11's CK_RV (p11-kit's pkcs11.h), so an error keeps
// one meaning everywhere and is never translated twice. A Result holds either a
// value or an Error; it is a small stand-in for std::expected, which g++ 12
// does not offer in C++20. Results are plain values: not synchronised, safe to
// move between threads.
#pragma once

#include <p11-kit/pkcs11.h>

#include <cassert>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace signet {

// Error: a CK_RV code and a message for humans. Messages never contain secrets.
struct Error {
  CK_RV code = CKR_GENERAL_ERROR;
  std::string message;
};

// MakeError builds an Error; `return MakeError(CKR_PIN_INCORRECT, "...")`
// converts into any Result<T>.
inline Error MakeError(CK_RV code, std::string message) { return Error{code, std::move(message)}; }

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // value / operator*: REQUIRES: ok().
  T& value() & { assert(ok()); return std::get<0>(state_); }
  const T& value() const& { assert(ok()); return std::get<0>(state_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // error: REQUIRES: !ok().
  const Error& error() const& { assert(!ok()); return std::get<1>(state_); }
  Error&& error() && { assert(!ok()); return std::get<1>(std::move(state_)); }

 private:
  std::variant<T, Error> state_;
};

// Result<void>: success carries nothing. Default-constructed means success.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const& { assert(!ok_); return error_; }
  Error&& error() && { assert(!ok_); return std::move(error_); }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

// OkStatus: the successful Status, for readability at return sites.
inline Status OkStatus() { return Status(); }

}  // namespace signet

// SIGNET_TRY(expr): evaluates a Result-returning expression and returns its
// Error from the enclosing function when it failed.
#define SIGNET_TRY(expr)                                  \
  do {                                                    \
    auto signet_try_result_ = (expr);                     \
    if (!signet_try_result_.ok())                         \
      return std::move(signet_try_result_).error();       \
  } while (0)

#define SIGNET_CONCAT_INNER_(a, b) a##b
#define SIGNET_CONCAT_(a, b) SIGNET_CONCAT_INNER_(a, b)

// SIGNET_ASSIGN_OR_RETURN(lhs, expr): `lhs = std::move(*expr)` when expr
// succeeded, otherwise returns its Error from the enclosing function.
#define SIGNET_ASSIGN_OR_RETURN(lhs, expr) \
  SIGNET_ASSIGN_OR_RETURN_IMPL_(SIGNET_CONCAT_(signet_result_, __LINE__), lhs, expr)
#define SIGNET_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return std::move(tmp).error();       \
  lhs = std::move(*tmp)

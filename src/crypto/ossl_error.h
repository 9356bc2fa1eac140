// Turns a failed OpenSSL call into a signet Error, for crypto/ and for the
// layers above that call libssl themselves (the client's TLS stream). It
// drains this thread's OpenSSL error queue (so stale entries never blame a
// later call) and keeps the first entry's text for the message.
#pragma once

#include <openssl/err.h>

#include <string>
#include <string_view>

#include "signet/result.hpp"

namespace signet::crypto::internal {

// OsslError returns Error{code, "<what>: <openssl reason>"} and clears the
// calling thread's OpenSSL error queue.
inline Error OsslError(CK_RV code, std::string_view what) {
  std::string message(what);
  unsigned long err = ERR_get_error();
  if (err != 0) {
    char buf[256];
    ERR_error_string_n(err, buf, sizeof(buf));
    message += ": ";
    message += buf;
  }
  ERR_clear_error();
  return MakeError(code, std::move(message));
}

}  // namespace signet::crypto::internal

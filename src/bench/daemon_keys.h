// Signing keys on a signetd token, as the daemon-facing bench commands
// (`bench parallel`, `bench app`) create and read them. One shape for both,
// so a key pool configured for one matches the other.
// Stateless functions: thread-safe as long as each Client is (client.hpp).
#pragma once

#include <string>
#include <utility>

#include "bench/token_mechanisms.h"
#include "signet/client.hpp"

namespace signet::bench {

// SigningKeyTemplates returns the public and private templates of a
// persistent (CKA_TOKEN) signing pair labelled `label`: private, sensitive,
// RSA with e = 65537 or the curve of `algo`.
std::pair<client::Template, client::Template> SigningKeyTemplates(const SignAlgorithm& algo,
                                                                  const TokenMechanism& mechanism,
                                                                  const std::string& label);

// ReadTokenPublicKey reads a public key object back from the daemon
// (CKA_MODULUS/CKA_PUBLIC_EXPONENT or CKA_EC_PARAMS/CKA_EC_POINT).
// Errors: the daemon's, or CKR_KEY_TYPE_INCONSISTENT for incomplete values.
Result<crypto::PublicKey> ReadTokenPublicKey(client::Client& client, client::Handle session,
                                             client::Handle key);

}  // namespace signet::bench

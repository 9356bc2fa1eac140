// Key helpers for end-to-end tests over the client library: generate a key
// pair, find objects by label, read a public key back for an independent
// in-process verification. Each call uses only the given session, so
// threads with their own UserSession may call them concurrently.
#pragma once

#include <string>
#include <vector>

#include "crypto/keys.h"
#include "crypto/sign.h"
#include "daemon_fixture.h"

namespace signet::e2e {

// GenerateKeyPair makes a sign/verify key pair labelled `label`; `token`
// false makes session objects (CKA_TOKEN false) owned by this connection.
Result<client::KeyPair> GenerateKeyPair(UserSession& user, const std::string& spec,
                                        const std::string& label, bool token);

// FindByLabel returns the objects of `object_class` labelled `label`.
Result<std::vector<client::Handle>> FindByLabel(UserSession& user, const std::string& label,
                                                CK_OBJECT_CLASS object_class);

// ReadPublicKey rebuilds a public key object as a crypto::PublicKey.
Result<crypto::PublicKey> ReadPublicKey(UserSession& user, client::Handle public_key);

// Bytes / ToBytes: a string's bytes, for messages.
client::Bytes ToBytes(const std::string& text);

}  // namespace signet::e2e

// Key objects as the CLI sees them: a key pair is found by its CKA_LABEL;
// key generation templates per key spec; a public key object read back as a
// crypto::PublicKey (for PEM output and for converting ECDSA signatures).
// Single-threaded helpers over one Connection.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/cli_context.h"
#include "crypto/keys.h"

namespace signet::cli {

// KeygenRequest: the mechanism and templates that create a token key pair.
struct KeygenRequest {
  client::Mechanism mechanism;
  client::Template public_template;
  client::Template private_template;
};

// MakeKeygenRequest builds a token key pair labelled `label` for `spec`:
// private part private, sensitive, non-extractable, sign-only (derive-only
// for X25519 and X448); public part verify-only (no use for X25519 and
// X448). CKA_ID is the label's bytes so the halves pair up.
// `exportable`: the private part is extractable but only under a trusted
// key (CKA_WRAP_WITH_TRUSTED), so it can move to another token
// (`export-key`) and nowhere else.
KeygenRequest MakeKeygenRequest(const crypto::KeySpec& spec, const std::string& label,
                                bool exportable = false);

// ImportRequest: the templates of the two objects that put an existing
// private key on the token. The private template holds a copy of the key and
// wipes it when the request is destroyed (hence move-only).
struct ImportRequest {
  ImportRequest() = default;
  ImportRequest(ImportRequest&&) = default;
  ImportRequest& operator=(ImportRequest&&) = delete;
  ~ImportRequest();
  client::Template public_template;
  client::Template private_template;
};

// MakeImportRequest builds the two objects that put `key` on the token as a
// key pair labelled `label`, with the same attributes as a generated one
// (MakeKeygenRequest): the private key object carries the key as PKCS#8
// (`pkcs8`) in CKA_VALUE, signet's import form; the public key object its
// public components.
Result<ImportRequest> MakeImportRequest(const crypto::PrivateKey& key,
                                        const SecureBytes& pkcs8,
                                        const std::string& label);

// PublicKeyObject: the template of a token public key object for `key`
// labelled `label`, as MakeImportRequest makes it (verify-only, CKA_ID the
// label's bytes).
Result<client::Template> PublicKeyObject(const crypto::PublicKey& key, const std::string& label);

// FindKey returns the handle of the object with `label` and `object_class`
// (CKO_PRIVATE_KEY / CKO_PUBLIC_KEY). CKR_OBJECT_HANDLE_INVALID naming the
// label when none exists; CKR_ARGUMENTS_BAD when the label is ambiguous.
Result<client::Handle> FindKey(Connection& connection, const std::string& label,
                               CK_OBJECT_CLASS object_class);

// FindKeysByLabel returns every object (any class) labelled `label`.
Result<std::vector<client::Handle>> FindKeysByLabel(Connection& connection,
                                                    const std::string& label);

// ReadPublicKey reads a public key object's components into a PublicKey.
Result<crypto::PublicKey> ReadPublicKey(Connection& connection, client::Handle public_key);

// KeyListing: one line of `signet list` (one object of `list --json`).
// The key-protection flags are absent when the object does not have them
// (a public key is neither sensitive nor extractable).
struct KeyListing {
  std::string label;
  client::Bytes id;                // CKA_ID
  std::string object_class;        // "private", "public", "secret", "other"
  std::string key_type;            // "rsa:2048", "ec:p256", "ed25519", "aes:256", ...
  CK_ULONG bits = 0;               // key size: RSA modulus, secret value, curve; 0 unknown
  std::vector<std::string> usage;  // "sign", "verify", "encrypt", ... (CKA_SIGN ...)
  std::optional<bool> sensitive, extractable, always_sensitive, never_extractable;
};

// ListKeys describes every key object this connection can see.
Result<std::vector<KeyListing>> ListKeys(Connection& connection);

}  // namespace signet::cli

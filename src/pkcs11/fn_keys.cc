// Key management (PKCS#11 v2.40 §5.14) and random numbers (§5.15): key
// generation, wrap/unwrap, derivation and the daemon's DRBG.
#include <algorithm>
#include <cstring>

#include "pkcs11/abi.h"
#include "pkcs11/entry_points.h"
#include "pkcs11/session_ops.h"

namespace signet::pkcs11::entry {
namespace {

// kRandomChunk: the most GenerateRandom returns per request (docs/PROTOCOL.md).
constexpr std::size_t kRandomChunk = 64 * 1024;

}  // namespace

CK_RV C_GenerateKey(CK_SESSION_HANDLE handle, CK_MECHANISM_PTR mechanism, CK_ATTRIBUTE_PTR tmpl,
                    CK_ULONG count, CK_OBJECT_HANDLE_PTR key) {
  return WithSession(handle, [&](ModuleState&, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (key == nullptr) return CKR_ARGUMENTS_BAD;
    Result<client::Mechanism> mech = ToMechanism(mechanism);
    if (!mech.ok()) return mech.error().code;
    Result<client::Template> attrs = ToTemplate(tmpl, count);
    if (!attrs.ok()) return attrs.error().code;
    Result<client::Handle> made = s.conn->GenerateKey(s.remote, *mech, *attrs);
    if (!made.ok()) return made.error().code;
    *key = *made;
    return CKR_OK;
  });
}

CK_RV C_GenerateKeyPair(CK_SESSION_HANDLE handle, CK_MECHANISM_PTR mechanism,
                        CK_ATTRIBUTE_PTR public_tmpl, CK_ULONG public_count,
                        CK_ATTRIBUTE_PTR private_tmpl, CK_ULONG private_count,
                        CK_OBJECT_HANDLE_PTR public_key, CK_OBJECT_HANDLE_PTR private_key) {
  return WithSession(handle, [&](ModuleState&, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (public_key == nullptr || private_key == nullptr) return CKR_ARGUMENTS_BAD;
    Result<client::Mechanism> mech = ToMechanism(mechanism);
    if (!mech.ok()) return mech.error().code;
    Result<client::Template> pub = ToTemplate(public_tmpl, public_count);
    if (!pub.ok()) return pub.error().code;
    Result<client::Template> priv = ToTemplate(private_tmpl, private_count);
    if (!priv.ok()) return priv.error().code;
    Result<client::KeyPair> pair = s.conn->GenerateKeyPair(s.remote, *mech, *pub, *priv);
    if (!pair.ok()) return pair.error().code;
    *public_key = pair->public_key;
    *private_key = pair->private_key;
    return CKR_OK;
  });
}

CK_RV C_WrapKey(CK_SESSION_HANDLE handle, CK_MECHANISM_PTR mechanism,
                CK_OBJECT_HANDLE wrapping_key, CK_OBJECT_HANDLE key, CK_BYTE_PTR wrapped,
                CK_ULONG_PTR wrapped_len) {
  return WithSession(handle, [&](ModuleState&, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (wrapped_len == nullptr) return CKR_ARGUMENTS_BAD;
    Result<client::Mechanism> mech = ToMechanism(mechanism);
    if (!mech.ok()) return mech.error().code;
    // A length query wraps too: the length depends only on the mechanism
    // and the keys (the RSA wraps are randomised, so the real call returns
    // other bytes of the same length).
    Result<client::Bytes> out = s.conn->WrapKey(s.remote, *mech, wrapping_key, key);
    if (!out.ok()) {
      const CK_RV rv = out.error().code;
      return rv == CKR_OBJECT_HANDLE_INVALID ? CKR_WRAPPING_KEY_HANDLE_INVALID : rv;
    }
    return WriteOutput(*out, wrapped, wrapped_len);
  });
}

CK_RV C_UnwrapKey(CK_SESSION_HANDLE handle, CK_MECHANISM_PTR mechanism,
                  CK_OBJECT_HANDLE unwrapping_key, CK_BYTE_PTR wrapped, CK_ULONG wrapped_len,
                  CK_ATTRIBUTE_PTR tmpl, CK_ULONG count, CK_OBJECT_HANDLE_PTR key) {
  return WithSession(handle, [&](ModuleState&, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (key == nullptr || wrapped == nullptr) return CKR_ARGUMENTS_BAD;
    Result<client::Mechanism> mech = ToMechanism(mechanism);
    if (!mech.ok()) return mech.error().code;
    Result<client::Template> attrs = ToTemplate(tmpl, count);
    if (!attrs.ok()) return attrs.error().code;
    Result<client::Handle> made = s.conn->UnwrapKey(s.remote, *mech, unwrapping_key,
                                                    ToView(wrapped, wrapped_len), *attrs);
    if (!made.ok()) {
      const CK_RV rv = made.error().code;
      return rv == CKR_OBJECT_HANDLE_INVALID ? CKR_UNWRAPPING_KEY_HANDLE_INVALID : rv;
    }
    *key = *made;
    return CKR_OK;
  });
}

// C_DeriveKey (§5.14): the daemon derives and stores the key; the
// mechanism's parameter (CK_ECDH1_DERIVE_PARAMS) was copied by its kind.
CK_RV C_DeriveKey(CK_SESSION_HANDLE handle, CK_MECHANISM_PTR mechanism, CK_OBJECT_HANDLE base_key,
                  CK_ATTRIBUTE_PTR tmpl, CK_ULONG count, CK_OBJECT_HANDLE_PTR key) {
  return WithSession(handle, [&](ModuleState&, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (key == nullptr) return CKR_ARGUMENTS_BAD;
    Result<client::Mechanism> mech = ToMechanism(mechanism);
    if (!mech.ok()) return mech.error().code;
    Result<client::Template> attrs = ToTemplate(tmpl, count);
    if (!attrs.ok()) return attrs.error().code;
    Result<client::Handle> made = s.conn->DeriveKey(s.remote, *mech, base_key, *attrs);
    if (!made.ok()) return KeyHandleRv(made.error().code);
    *key = *made;
    return CKR_OK;
  });
}

// C_SeedRandom (§5.15): the daemon mixes the seed into its DRBG as
// additional input, never as its only entropy. Seeds longer than the
// wire allows are refused here, before a frame too large is sent.
CK_RV C_SeedRandom(CK_SESSION_HANDLE handle, CK_BYTE_PTR seed, CK_ULONG seed_len) {
  return WithSession(handle, [&](ModuleState&, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (seed == nullptr && seed_len != 0) return CKR_ARGUMENTS_BAD;
    if (seed_len > SIGNET_MAX_SEED_LEN) return CKR_ARGUMENTS_BAD;
    return RvOf(s.conn->SeedRandom(s.remote, ToView(seed, seed_len)));
  });
}

CK_RV C_GenerateRandom(CK_SESSION_HANDLE handle, CK_BYTE_PTR out, CK_ULONG len) {
  return WithSession(handle, [&](ModuleState& state, Session& s) -> CK_RV {
    s.mu.AssertHeld();
    if (out == nullptr && len != 0) return CKR_ARGUMENTS_BAD;
    for (CK_ULONG done = 0; done < len;) {
      const std::size_t want = std::min<std::size_t>(kRandomChunk, len - done);
      Result<client::Bytes> chunk =
          Repeatable(state, s, [&](client::Client& conn, client::Handle remote) {
            return conn.GenerateRandom(remote, want);
          });
      if (!chunk.ok()) return chunk.error().code;
      if (chunk->size() != want) return CKR_DEVICE_ERROR;
      std::memcpy(out + done, chunk->data(), want);
      done += want;
    }
    return CKR_OK;
  });
}

}  // namespace signet::pkcs11::entry


// Hsm: signatures, MACs, digests, AES-GCM, RSA encryption and random bytes (PKCS#11 §5.8-5.12).
// The sign path is the hot one: session and object lookups are hash-map
// hits under short locks, the key comes from the keystore's unwrapped-key
// cache, and nothing is copied but the signature.
#include "core/hsm_internal.h"
#include "core/object_classes.h"
#include "crypto/symmetric.h"

namespace signet::core {

Status CheckKeyUse(const ObjectRecord& rec, const MechanismRow& rule, CK_OBJECT_CLASS cls,
                   CK_ATTRIBUTE_TYPE usage) {
  if (rec.object_class() != cls &&
      !(cls == CKO_PUBLIC_KEY && rec.object_class() == CKO_PRIVATE_KEY)) {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT, "key class does not fit the operation");
  }
  if (!AcceptsKeyType(rule, rec.key_type())) {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT, "key type does not fit the mechanism");
  }
  if (!BoolOr(rec.attributes, usage, false)) {
    return MakeError(CKR_KEY_FUNCTION_NOT_PERMITTED,
                     std::string(FindAttributeRule(usage)->name) + " is false for this key");
  }
  return CheckMechanismAllowed(rec.attributes, rule.type);
}

namespace {

// MacEach computes the MAC of each input under a secret key (C_Sign with
// an HMAC or CMAC mechanism).
std::vector<Result<Bytes>> MacEach(const MechanismRow& rule, const Mechanism& m, ByteView key,
                                   const std::vector<ByteView>& inputs) {
  std::vector<Result<Bytes>> out;
  out.reserve(inputs.size());
  for (ByteView input : inputs) out.push_back(MacWith(rule, m, key, input));
  return out;
}

}  // namespace

Result<std::vector<Result<Bytes>>> HsmImpl::SignBatch(ClientState& c, CK_SESSION_HANDLE s,
                                                      CK_OBJECT_HANDLE key, const Mechanism& m,
                                                      const std::vector<ByteView>& inputs) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  SIGNET_ASSIGN_OR_RETURN(const MechanismRow* rule, MechanismFor(m.type, CKF_SIGN));
  if (IsMac(rule->family)) SIGNET_TRY(MacLengthFor(*rule, m));
  SIGNET_ASSIGN_OR_RETURN(ResolvedObject obj, ResolveObject(c, r, key));
  if (IsMac(rule->family)) {
    SIGNET_TRY(CheckKeyUse(*obj.record, *rule, CKO_SECRET_KEY, CKA_SIGN));
    SIGNET_ASSIGN_OR_RETURN(auto secret, FetchSecret(r, obj));
    ScopedPhase phase(counters_, Phase::kSign);
    return MacEach(*rule, m, secret->value, inputs);
  }
  SIGNET_TRY(CheckKeyUse(*obj.record, *rule, CKO_PRIVATE_KEY, CKA_SIGN));
  SIGNET_ASSIGN_OR_RETURN(auto secret, FetchSecret(r, obj));
  if (!secret || !secret->private_key) return MakeError(CKR_KEY_HANDLE_INVALID, "no private key");
  const bool always_authenticate = BoolOr(obj.record->attributes, CKA_ALWAYS_AUTHENTICATE, false);
  std::vector<Result<Bytes>> out;
  out.reserve(inputs.size());
  for (ByteView input : inputs) {
    if (always_authenticate) {
      // One context-specific login per signature, batch or not.
      if (Status authorized = TakeContextAuthorization(c, s); !authorized.ok()) {
        out.emplace_back(std::move(authorized).error());
        continue;
      }
    }
    if (SignsRaw(*rule)) {
      ScopedPhase phase(counters_, Phase::kSign);
      out.push_back(SignRawWith(*rule, *secret->private_key, input));
      continue;
    }
    auto params = SignParamsFor(*rule, m);
    if (!params.ok()) {
      out.emplace_back(std::move(params).error());
      continue;
    }
    ScopedPhase phase(counters_, Phase::kSign);
    if (splitter_ && inputs.size() == 1) {
      if (auto split = splitter_->TrySign(secret, *params, input)) {
        out.push_back(std::move(*split));
        continue;
      }
    }
    out.push_back(crypto::Sign(*secret->private_key, *params, input));
  }
  return out;
}

Result<Bytes> HsmImpl::Sign(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                            const Mechanism& m, ByteView data) {
  SIGNET_ASSIGN_OR_RETURN(auto results, SignBatch(c, s, key, m, {data}));
  return std::move(results.front());
}

Status HsmImpl::Verify(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                       const Mechanism& m, ByteView data, ByteView signature) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  SIGNET_ASSIGN_OR_RETURN(const MechanismRow* rule, MechanismFor(m.type, CKF_VERIFY));
  if (IsMac(rule->family)) SIGNET_TRY(MacLengthFor(*rule, m));
  SIGNET_ASSIGN_OR_RETURN(ResolvedObject obj, ResolveObject(c, r, key));
  if (IsMac(rule->family)) {
    SIGNET_TRY(CheckKeyUse(*obj.record, *rule, CKO_SECRET_KEY, CKA_VERIFY));
    SIGNET_ASSIGN_OR_RETURN(auto secret, FetchSecret(r, obj));
    ScopedPhase phase(counters_, Phase::kVerify);
    return VerifyMacWith(*rule, m, secret->value, data, signature);
  }
  bool is_private = obj.record->object_class() == CKO_PRIVATE_KEY;
  SIGNET_TRY(CheckKeyUse(*obj.record, *rule, CKO_PUBLIC_KEY, is_private ? CKA_SIGN : CKA_VERIFY));
  if (SignsRaw(*rule)) {
    SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey pub, PublicKeyFromAttributes(obj.record->attributes));
    ScopedPhase phase(counters_, Phase::kVerify);
    return VerifyRawWith(*rule, pub, data, signature);
  }
  SIGNET_ASSIGN_OR_RETURN(crypto::SignParams params, SignParamsFor(*rule, m));
  SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey pub, PublicKeyFromAttributes(obj.record->attributes));
  ScopedPhase phase(counters_, Phase::kVerify);
  return crypto::Verify(pub, params, data, signature);
}

Result<Bytes> HsmImpl::Digest(ClientState& c, CK_SESSION_HANDLE s, const Mechanism& m,
                              ByteView data) {
  SIGNET_TRY(ResolveSession(c, s));
  SIGNET_ASSIGN_OR_RETURN(const MechanismRow* rule, MechanismFor(m.type, CKF_DIGEST));
  return crypto::Digest(rule->digest, data);
}

Result<Bytes> HsmImpl::Encrypt(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                               const Mechanism& m, ByteView data) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  SIGNET_ASSIGN_OR_RETURN(const MechanismRow* rule, MechanismFor(m.type, CKF_ENCRYPT));
  SIGNET_TRY(CheckCipherParams(*rule, m));
  SIGNET_ASSIGN_OR_RETURN(ResolvedObject obj, ResolveObject(c, r, key));
  if (UsesKeyPair(*rule)) {
    // The public key, or a private key's public half under its CKA_DECRYPT
    // (as Verify takes a private key under its CKA_SIGN).
    const bool is_private = obj.record->object_class() == CKO_PRIVATE_KEY;
    SIGNET_TRY(
        CheckKeyUse(*obj.record, *rule, CKO_PUBLIC_KEY, is_private ? CKA_DECRYPT : CKA_ENCRYPT));
    SIGNET_ASSIGN_OR_RETURN(crypto::PublicKey pub, PublicKeyFromAttributes(obj.record->attributes));
    return EncryptWithPublic(*rule, m, pub, data);
  }
  SIGNET_TRY(CheckKeyUse(*obj.record, *rule, CKO_SECRET_KEY, CKA_ENCRYPT));
  SIGNET_ASSIGN_OR_RETURN(auto secret, FetchSecret(r, obj));
  return EncryptWith(*rule, m, secret->value, data);
}

Result<Bytes> HsmImpl::Decrypt(ClientState& c, CK_SESSION_HANDLE s, CK_OBJECT_HANDLE key,
                               const Mechanism& m, ByteView data) {
  SIGNET_ASSIGN_OR_RETURN(Resolved r, ResolveSession(c, s));
  SIGNET_ASSIGN_OR_RETURN(const MechanismRow* rule, MechanismFor(m.type, CKF_DECRYPT));
  SIGNET_TRY(CheckCipherParams(*rule, m));
  SIGNET_ASSIGN_OR_RETURN(ResolvedObject obj, ResolveObject(c, r, key));
  if (UsesKeyPair(*rule)) {
    SIGNET_TRY(CheckKeyUse(*obj.record, *rule, CKO_PRIVATE_KEY, CKA_DECRYPT));
    if (BoolOr(obj.record->attributes, CKA_ALWAYS_AUTHENTICATE, false)) {
      SIGNET_TRY(TakeContextAuthorization(c, s));  // one login per decryption, as per signature
    }
    SIGNET_ASSIGN_OR_RETURN(auto secret, FetchSecret(r, obj));
    if (!secret || !secret->private_key) return MakeError(CKR_KEY_HANDLE_INVALID, "no private key");
    SIGNET_ASSIGN_OR_RETURN(SecureBytes plain,
                            DecryptWithPrivate(*rule, m, *secret->private_key, data));
    return Bytes(plain.begin(), plain.end());
  }
  SIGNET_TRY(CheckKeyUse(*obj.record, *rule, CKO_SECRET_KEY, CKA_DECRYPT));
  SIGNET_ASSIGN_OR_RETURN(auto secret, FetchSecret(r, obj));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes plain, DecryptWith(*rule, m, secret->value, data));
  return Bytes(plain.begin(), plain.end());
}

Result<Bytes> HsmImpl::GenerateRandom(ClientState& c, CK_SESSION_HANDLE s, std::size_t length) {
  SIGNET_TRY(ResolveSession(c, s));
  if (length > 65536)
    return MakeError(CKR_ARGUMENTS_BAD, "at most 64 KiB of random bytes per call");
  Bytes out(length);
  SIGNET_TRY(crypto::FillRandom(out));
  return out;
}

Status HsmImpl::SeedRandom(ClientState& c, CK_SESSION_HANDLE s, ByteView seed) {
  SIGNET_TRY(ResolveSession(c, s));
  if (seed.size() > kMaxSeedBytes) {
    return MakeError(CKR_ARGUMENTS_BAD, "at most 64 KiB of seed per call");
  }
  return crypto::MixIntoRandom(seed);
}

}  // namespace signet::core

// pkey_sign and pkey_verify (23, 24): RSA signs a DER DigestInfo with
// PKCS#1 v1.5 padding (CKM_RSA_PKCS), ECDSA a digest into raw r||s
// (CKM_ECDSA); either may instead finish a hash handle of the connection.
#include "crypto/sign.h"
#include "daemon/cryptech_session.h"

namespace signet::daemon {

namespace hal = proto::hal;
using hal::Error;

namespace {



// DigestInfo: DER SEQUENCE { algorithm identifier, OCTET STRING digest }
// (every part is shorter than 128 bytes, so every length is one byte).
Bytes DigestInfo(ByteView algorithm_id, ByteView digest) {
  Bytes out{0x30, static_cast<std::uint8_t>(algorithm_id.size() + 2 + digest.size())};
  out.insert(out.end(), algorithm_id.begin(), algorithm_id.end());
  out.push_back(0x04);
  out.push_back(static_cast<std::uint8_t>(digest.size()));
  out.insert(out.end(), digest.begin(), digest.end());
  return out;
}

}  // namespace

Error CryptechSession::SignedInput(std::uint32_t hash, ByteView input, bool rsa,
                                   Bytes& signed_input) {
  if (hash == 0) {
    signed_input.assign(input.begin(), input.end());
    return Error::kOk;
  }
  std::unique_ptr<CryptechHash> state = TakeHash(hash);
  if (state == nullptr) return Error::kBadArguments;
  auto digest = state->Finish();
  if (!digest.ok()) return HalErrorOf(digest.error());
  signed_input = rsa ? DigestInfo(state->digest().algorithm_id, *digest)
                     : Bytes(digest->begin(), digest->end());
  return Error::kOk;
}

Error CryptechSession::PkeySign(Reader& in, Writer& out) {
  std::uint32_t handle = 0;
  std::uint32_t hash = 0;
  std::uint32_t max = 0;
  ByteView input;
  if (!in.GetU32(handle) || !in.GetU32(hash) || !in.GetOpaque(input) || !in.GetU32(max)) {
    return Error::kXdrBufferOverflow;
  }
  if (max == 0 || (hash != 0) == !input.empty()) return Error::kBadArguments;
  if (max > hal::kReplySpace - 4) return Error::kRpcPacketOverflow;
  OpenKey* key = FindKey(handle);
  if (key == nullptr) return Error::kKeyNotFound;
  if (!key->facts.private_key()) return Error::kUnsupportedKey;
  if ((key->facts.flags & hal::kFlagDigitalSignature) == 0) return Error::kForbidden;
  const bool rsa = key->facts.rsa();
  Bytes data;
  if (Error e = SignedInput(hash, input, rsa, data); e != Error::kOk) return e;
  auto signature =
      hsm_.Sign(*client_, session_, key->object, Mechanism{rsa ? CKM_RSA_PKCS : CKM_ECDSA}, data);
  if (!signature.ok()) return HalErrorOf(signature.error());
  if (signature->size() > max) return Error::kResultTooLong;
  out.PutOpaque(*signature);
  return Error::kOk;
}

Error CryptechSession::PkeyVerify(Reader& in, Writer&) {
  std::uint32_t handle = 0;
  std::uint32_t hash = 0;
  ByteView input;
  ByteView signature;
  if (!in.GetU32(handle) || !in.GetU32(hash) || !in.GetOpaque(input) || !in.GetOpaque(signature)) {
    return Error::kXdrBufferOverflow;
  }
  if (signature.empty() || (hash != 0) == !input.empty()) return Error::kBadArguments;
  OpenKey* key = FindKey(handle);
  if (key == nullptr) return Error::kKeyNotFound;
  if (key->facts.type == hal::KeyType::kNone) return Error::kUnsupportedKey;
  if ((key->facts.flags & hal::kFlagDigitalSignature) == 0) return Error::kForbidden;
  const bool rsa = key->facts.rsa();
  Bytes data;
  if (Error e = SignedInput(hash, input, rsa, data); e != Error::kOk) return e;
  // Verification needs no secret: the key's public half, in crypto/, for
  // private and public keys alike (libhal verifies with either).
  auto spki = Attributes(key->object, {CKA_PUBLIC_KEY_INFO});
  auto public_key = crypto::PublicKey::FromDer(spki[CKA_PUBLIC_KEY_INFO]);
  if (!public_key.ok()) return HalErrorOf(public_key.error());
  crypto::SignParams params;
  params.digest = crypto::DigestAlg::kNone;
  if (!rsa) {
    params.scheme = crypto::SignScheme::kEcdsa;
    params.prehashed = true;
    params.ecdsa_format = crypto::EcdsaFormat::kRaw;
  }
  Status verified = crypto::Verify(*public_key, params, data, signature);
  return verified.ok() ? Error::kOk : HalErrorOf(verified.error());
}

}  // namespace signet::daemon

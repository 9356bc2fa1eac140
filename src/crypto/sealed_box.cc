#include "crypto/sealed_box.h"

#include <string_view>

#include "crypto/hkdf.h"
#include "crypto/key_agreement.h"
#include "crypto/symmetric.h"

namespace signet::crypto {
namespace {

constexpr std::string_view kSealedBoxInfo = "signet sealed box v1";
constexpr std::size_t kX25519Bytes = 32;

// BoxKey: the AES key of one box, from the shared secret and both public
// keys (binding the box to its ephemeral and recipient keys).
Result<SecureBytes> BoxKey(ByteView shared, ByteView ephemeral, ByteView recipient) {
  Bytes info(kSealedBoxInfo.begin(), kSealedBoxInfo.end());
  info.insert(info.end(), ephemeral.begin(), ephemeral.end());
  info.insert(info.end(), recipient.begin(), recipient.end());
  return Hkdf(HkdfStep::kExtractAndExpand, DigestAlg::kSha256, shared, {}, info, kAes256KeySize);
}

Status CheckX25519(const KeySpec& spec) {
  if (spec.type != KeyType::kX25519) {
    return MakeError(CKR_KEY_TYPE_INCONSISTENT, "a sealed box needs an X25519 key");
  }
  return OkStatus();
}

Error NotABox() { return MakeError(CKR_ENCRYPTED_DATA_INVALID, "not a box sealed to this key"); }

}  // namespace

Result<Bytes> Seal(const PublicKey& recipient, ByteView plaintext) {
  SIGNET_TRY(CheckX25519(recipient.spec()));
  if (plaintext.empty()) return MakeError(CKR_DATA_LEN_RANGE, "nothing to seal");
  SIGNET_ASSIGN_OR_RETURN(PrivateKey ephemeral, PrivateKey::Generate({KeyType::kX25519}));
  SIGNET_ASSIGN_OR_RETURN(PublicKey ephemeral_public, ephemeral.Public());
  SIGNET_ASSIGN_OR_RETURN(Bytes ephemeral_point, ephemeral_public.EcPoint());
  SIGNET_ASSIGN_OR_RETURN(Bytes recipient_point, recipient.EcPoint());
  SIGNET_ASSIGN_OR_RETURN(SecureBytes shared, EcdhSharedSecret(ephemeral, recipient, false));
  SIGNET_ASSIGN_OR_RETURN(SecureBytes key, BoxKey(shared, ephemeral_point, recipient_point));
  SIGNET_ASSIGN_OR_RETURN(Bytes wrapped, AesKeyWrapPad(key, plaintext));
  Bytes box = std::move(ephemeral_point);
  box.insert(box.end(), wrapped.begin(), wrapped.end());
  return box;
}

Result<SecureBytes> OpenSealed(const PrivateKey& recipient, ByteView sealed) {
  SIGNET_TRY(CheckX25519(recipient.spec()));
  if (sealed.size() <= kX25519Bytes) return NotABox();
  ByteView ephemeral_point = sealed.subspan(0, kX25519Bytes);
  auto ephemeral = PublicKey::FromEcPoint(EcParamsDer(KeyType::kX25519), ephemeral_point);
  if (!ephemeral.ok()) return NotABox();
  auto shared = EcdhSharedSecret(recipient, *ephemeral, false);
  if (!shared.ok()) return NotABox();  // e.g. a low-order point: all-zero secret
  SIGNET_ASSIGN_OR_RETURN(PublicKey recipient_public, recipient.Public());
  SIGNET_ASSIGN_OR_RETURN(Bytes recipient_point, recipient_public.EcPoint());
  SIGNET_ASSIGN_OR_RETURN(SecureBytes key, BoxKey(*shared, ephemeral_point, recipient_point));
  auto plain = AesKeyUnwrapPad(key, sealed.subspan(kX25519Bytes));
  if (!plain.ok()) return NotABox();
  return std::move(*plain);
}

}  // namespace signet::crypto

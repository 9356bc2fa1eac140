#include "bench/daemon_operations.h"

#include <array>
#include <cstring>
#include <memory>

#include "crypto/symmetric.h"

namespace signet::bench {
namespace {

using client::BoolAttribute;
using client::BytesAttribute;
using client::StringAttribute;
using client::UlongAttribute;

constexpr CK_ULONG kSecretBytes = 32;
constexpr std::size_t kGcmTagBytes = 16;
constexpr std::size_t kAesBlock = 16;

// Oaep: OAEP with SHA-1 and MGF1-SHA-1, the form SoftHSMv2 offers, as the
// PKCS#11 backend uses it.
client::Mechanism Oaep() { return {.type = CKM_RSA_PKCS_OAEP, .oaep = client::OaepParams{}}; }

// FirstKey: the first object of `cls` labelled `label`, or 0.
Result<client::Handle> FirstKey(UserSession& user, const std::string& label, CK_OBJECT_CLASS cls) {
  SIGNET_ASSIGN_OR_RETURN(auto found, FindKeys(user, label, cls));
  return found.empty() ? client::Handle{0} : found.front();
}

// MakeKey generates the token key (kEncrypt, kMac) or key pair (kDecrypt,
// kDerive) of `op` labelled `label`.
Status MakeKey(UserSession& user, const BenchOperation& op, const std::string& label) {
  const client::Attribute token = BoolAttribute(CKA_TOKEN, true);
  const client::Attribute name = StringAttribute(CKA_LABEL, label);
  switch (op.kind) {
    case BenchOperationKind::kEncrypt:
    case BenchOperationKind::kMac: {
      const bool mac = op.kind == BenchOperationKind::kMac;
      client::Mechanism gen{.type = mac ? CKM_GENERIC_SECRET_KEY_GEN : CKM_AES_KEY_GEN};
      client::Template t = {token, name, BoolAttribute(mac ? CKA_SIGN : CKA_ENCRYPT, true),
                            UlongAttribute(CKA_VALUE_LEN, kSecretBytes)};
      SIGNET_TRY(user.client->GenerateKey(user.session, gen, t));
      return OkStatus();
    }
    case BenchOperationKind::kDecrypt: {
      const std::uint8_t f4[] = {1, 0, 1};
      client::Template pub = {token, name, UlongAttribute(CKA_MODULUS_BITS, op.key.rsa_bits),
                              BytesAttribute(CKA_PUBLIC_EXPONENT, f4),
                              BoolAttribute(CKA_ENCRYPT, true)};
      client::Template priv = {token, name, BoolAttribute(CKA_PRIVATE, true),
                               BoolAttribute(CKA_DECRYPT, true)};
      SIGNET_TRY(user.client->GenerateKeyPair(user.session, {.type = CKM_RSA_PKCS_KEY_PAIR_GEN},
                                              pub, priv));
      return OkStatus();
    }
    case BenchOperationKind::kDerive: {
      const Bytes params = crypto::EcParamsDer(op.key.type);
      client::Mechanism gen{.type = crypto::IsMontgomery(op.key.type)
                                        ? CKM_EC_MONTGOMERY_KEY_PAIR_GEN
                                        : CKM_EC_KEY_PAIR_GEN};
      client::Template pub = {token, name, BytesAttribute(CKA_EC_PARAMS, params)};
      client::Template priv = {token, name, BoolAttribute(CKA_PRIVATE, true),
                               BoolAttribute(CKA_DERIVE, true)};
      SIGNET_TRY(user.client->GenerateKeyPair(user.session, gen, pub, priv));
      return OkStatus();
    }
  }
  return MakeError(CKR_FUNCTION_NOT_SUPPORTED, "unknown operation");
}

// EnsureKey: the key of `cls` labelled `label`, made when the token has
// none (later runs reuse it, as the signing keys).
Result<client::Handle> EnsureKey(UserSession& user, const BenchOperation& op,
                                 const std::string& label, CK_OBJECT_CLASS cls) {
  SIGNET_ASSIGN_OR_RETURN(client::Handle h, FirstKey(user, label, cls));
  if (h != 0) return h;
  SIGNET_TRY(MakeKey(user, op, label));
  return FirstKey(user, label, cls);
}

// Setup: what every client of one operation shares, read-only.
struct Setup {
  DaemonAccess access;
  const BenchOperation* op = nullptr;
  std::string label;
  CK_OBJECT_CLASS key_class = CKO_SECRET_KEY;
  Bytes input;  // the data (kEncrypt, kMac), ciphertext (kDecrypt) or peer point (kDerive)
};

// Worker: one client's connection and key; Next runs one operation and
// checks the size of what came back.
class Worker {
 public:
  Worker(std::shared_ptr<const Setup> setup, UserSession user, client::Handle key)
      : setup_(std::move(setup)), user_(std::move(user)), key_(key) {}

  Status Next(std::uint64_t index) {
    const BenchOperation& op = *setup_->op;
    const Bytes& in = setup_->input;
    switch (op.kind) {
      case BenchOperationKind::kEncrypt: {
        // A fresh IV per operation, as an application must use.
        Bytes iv(op.mechanism == CKM_AES_GCM ? 12 : kAesBlock, 0);
        std::memcpy(iv.data(), &index, sizeof index);
        client::Mechanism mech{.type = op.mechanism};
        if (op.mechanism == CKM_AES_GCM) {
          mech.gcm = client::GcmParams{.iv = iv};
        } else {
          mech.raw_params = iv;
        }
        SIGNET_ASSIGN_OR_RETURN(Bytes out, user_.client->Encrypt(user_.session, key_, mech, in));
        const std::size_t expected =
            op.mechanism == CKM_AES_GCM ? in.size() + kGcmTagBytes : in.size();
        return Expect(out.size() == expected, "ciphertext of the wrong length");
      }
      case BenchOperationKind::kMac: {
        SIGNET_ASSIGN_OR_RETURN(
            Bytes mac, user_.client->Sign(user_.session, key_, {.type = op.mechanism}, in));
        return Expect(mac.size() == kSecretBytes, "MAC of the wrong length");
      }
      case BenchOperationKind::kDecrypt: {
        SIGNET_ASSIGN_OR_RETURN(Bytes plain,
                                user_.client->Decrypt(user_.session, key_, Oaep(), in));
        return Expect(plain.size() == kSecretBytes, "plaintext of the wrong length");
      }
      case BenchOperationKind::kDerive: {
        client::Mechanism mech{.type = CKM_ECDH1_DERIVE,
                               .ecdh = client::EcdhParams{.kdf = CKD_NULL, .public_data = in}};
        client::Template t = {UlongAttribute(CKA_CLASS, CKO_SECRET_KEY),
                              UlongAttribute(CKA_KEY_TYPE, CKK_GENERIC_SECRET),
                              UlongAttribute(CKA_VALUE_LEN, kSecretBytes),
                              BoolAttribute(CKA_TOKEN, false)};
        SIGNET_ASSIGN_OR_RETURN(client::Handle derived,
                                user_.client->DeriveKey(user_.session, mech, key_, t));
        return user_.client->DestroyObject(user_.session, derived);
      }
    }
    return MakeError(CKR_FUNCTION_NOT_SUPPORTED, "unknown operation");
  }

 private:
  static Status Expect(bool holds, const char* what) {
    return holds ? OkStatus() : MakeError(CKR_GENERAL_ERROR, what);
  }

  std::shared_ptr<const Setup> setup_;
  UserSession user_;
  client::Handle key_;
};

}  // namespace

Result<WorkerFactory> PrepareDaemonOperation(const DaemonAccess& access, UserSession& control,
                                             const BenchOperation& op) {
  auto setup = std::make_shared<Setup>();
  setup->access = access;
  setup->op = &op;
  setup->label = "signet-bench-" + std::string(op.id);
  switch (op.kind) {
    case BenchOperationKind::kEncrypt:
    case BenchOperationKind::kMac:
      SIGNET_TRY(EnsureKey(control, op, setup->label, CKO_SECRET_KEY));
      setup->input.resize(op.data_size);
      SIGNET_TRY(crypto::FillRandom(setup->input));
      break;
    case BenchOperationKind::kDecrypt: {
      setup->key_class = CKO_PRIVATE_KEY;
      SIGNET_TRY(EnsureKey(control, op, setup->label, CKO_PRIVATE_KEY));
      SIGNET_ASSIGN_OR_RETURN(client::Handle pub, FirstKey(control, setup->label, CKO_PUBLIC_KEY));
      Bytes secret(kSecretBytes);
      SIGNET_TRY(crypto::FillRandom(secret));
      SIGNET_ASSIGN_OR_RETURN(setup->input,
                              control.client->Encrypt(control.session, pub, Oaep(), secret));
      break;
    }
    case BenchOperationKind::kDerive: {
      setup->key_class = CKO_PRIVATE_KEY;
      SIGNET_TRY(EnsureKey(control, op, setup->label, CKO_PRIVATE_KEY));
      const std::string peer = setup->label + "-peer";
      SIGNET_TRY(EnsureKey(control, op, peer, CKO_PRIVATE_KEY));
      SIGNET_ASSIGN_OR_RETURN(client::Handle peer_pub, FirstKey(control, peer, CKO_PUBLIC_KEY));
      const CK_ATTRIBUTE_TYPE point_type[] = {CKA_EC_POINT};
      SIGNET_ASSIGN_OR_RETURN(
          auto values, control.client->GetAttributeValue(control.session, peer_pub, point_type));
      if (values.empty() || values[0].rv != CKR_OK) {
        return MakeError(CKR_KEY_HANDLE_INVALID, peer + " has no point");
      }
      setup->input = RawEcPoint(values[0].value);
      break;
    }
  }
  return WorkerFactory([setup = std::shared_ptr<const Setup>(setup)](int) -> Result<Operation> {
    const DaemonAccess& a = setup->access;
    SIGNET_ASSIGN_OR_RETURN(UserSession user, OpenUserSession(a.socket, a.pin, a.token_label));
    SIGNET_ASSIGN_OR_RETURN(client::Handle key, FirstKey(user, setup->label, setup->key_class));
    if (key == 0) return MakeError(CKR_KEY_HANDLE_INVALID, "benchmark key vanished");
    auto worker = std::make_shared<Worker>(setup, std::move(user), key);
    return Operation([worker](std::uint64_t index) { return worker->Next(index); });
  });
}

}  // namespace signet::bench

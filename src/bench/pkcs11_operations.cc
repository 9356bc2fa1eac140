#include "bench/pkcs11_operations.h"

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "crypto/keys.h"
#include "crypto/symmetric.h"
#include "signet/protocol.hpp"

namespace signet::bench {
namespace {

constexpr CK_ULONG kSecretBytes = 32;

// KeyHandle finds the object of class `cls` labelled `label`, or none.
Result<CK_OBJECT_HANDLE> KeyHandle(Session& s, const std::string& label, CK_OBJECT_CLASS cls) {
  SIGNET_ASSIGN_OR_RETURN(auto found, Find(s, label, cls));
  return found.empty() ? CK_OBJECT_HANDLE{CK_INVALID_HANDLE} : found[0];
}

// GenerateSecret makes the AES-256 (kEncrypt) or generic-secret (kMac)
// token key of `op`.
Status GenerateSecret(Session& s, const BenchOperation& op, const std::string& label) {
  CK_BBOOL yes = CK_TRUE;
  CK_ULONG len = kSecretBytes;
  const bool mac = op.kind == BenchOperationKind::kMac;
  CK_MECHANISM mech{mac ? CKM_GENERIC_SECRET_KEY_GEN : CKM_AES_KEY_GEN, nullptr, 0};
  CK_ATTRIBUTE t[] = {{CKA_TOKEN, &yes, 1},
                      {mac ? CKA_SIGN : CKA_ENCRYPT, &yes, 1},
                      {CKA_VALUE_LEN, &len, sizeof len},
                      {CKA_LABEL, const_cast<char*>(label.data()), label.size()}};
  CK_OBJECT_HANDLE key = 0;
  P11_TRY("C_GenerateKey", s.f()->C_GenerateKey(s.h(), &mech, t, 4, &key));
  return OkStatus();
}

// GeneratePair makes an RSA (decrypting) or EC / X25519 (deriving) token
// key pair labelled `label`.
Status GeneratePair(Session& s, const BenchOperation& op, const std::string& label) {
  CK_BBOOL yes = CK_TRUE;
  CK_ULONG bits = op.key.rsa_bits;
  CK_BYTE f4[] = {1, 0, 1};
  const Bytes params = crypto::EcParamsDer(op.key.type);
  CK_ATTRIBUTE name{CKA_LABEL, const_cast<char*>(label.data()), label.size()};
  std::vector<CK_ATTRIBUTE> pub = {{CKA_TOKEN, &yes, 1}, name};
  std::vector<CK_ATTRIBUTE> priv = {{CKA_TOKEN, &yes, 1}, {CKA_PRIVATE, &yes, 1}, name};
  CK_MECHANISM mech{CKM_RSA_PKCS_KEY_PAIR_GEN, nullptr, 0};
  if (op.kind == BenchOperationKind::kDecrypt) {
    pub.push_back({CKA_MODULUS_BITS, &bits, sizeof bits});
    pub.push_back({CKA_PUBLIC_EXPONENT, f4, sizeof f4});
    pub.push_back({CKA_ENCRYPT, &yes, 1});
    priv.push_back({CKA_DECRYPT, &yes, 1});
  } else {
    mech.mechanism =
        crypto::IsMontgomery(op.key.type) ? CKM_EC_MONTGOMERY_KEY_PAIR_GEN : CKM_EC_KEY_PAIR_GEN;
    pub.push_back({CKA_EC_PARAMS, const_cast<std::uint8_t*>(params.data()), params.size()});
    priv.push_back({CKA_DERIVE, &yes, 1});
  }
  CK_OBJECT_HANDLE pub_h = 0, priv_h = 0;
  P11_TRY("C_GenerateKeyPair", s.f()->C_GenerateKeyPair(s.h(), &mech, pub.data(), pub.size(),
                                                        priv.data(), priv.size(), &pub_h, &priv_h));
  return OkStatus();
}

// Ensure generates the key of `cls` labelled `label` unless the token
// already holds one (later runs reuse it, as the signing keys).
Status Ensure(Session& s, const BenchOperation& op, const std::string& label, CK_OBJECT_CLASS cls) {
  SIGNET_ASSIGN_OR_RETURN(CK_OBJECT_HANDLE h, KeyHandle(s, label, cls));
  if (h != CK_INVALID_HANDLE) return OkStatus();
  return cls == CKO_SECRET_KEY ? GenerateSecret(s, op, label) : GeneratePair(s, op, label);
}

const CK_RSA_PKCS_OAEP_PARAMS kOaep{CKM_SHA_1, CKG_MGF1_SHA1, CKZ_DATA_SPECIFIED, nullptr, 0};

// Setup: what every client of one operation shares, read-only.
struct Setup {
  std::shared_ptr<const Module> module;
  const BenchOperation* op = nullptr;
  std::string label;
  CK_OBJECT_CLASS key_class = CKO_SECRET_KEY;
  Bytes input;  // the data (kEncrypt, kMac), ciphertext (kDecrypt) or peer point (kDerive)
};

// Worker: one client's session and key; Next runs one operation.
class Worker {
 public:
  Worker(std::shared_ptr<const Setup> setup, std::unique_ptr<Session> session, CK_OBJECT_HANDLE key)
      : setup_(std::move(setup)), session_(std::move(session)), key_(key), output_(1024 + 16384) {}

  Status Next(std::uint64_t index) {
    CK_FUNCTION_LIST_PTR f = session_->f();
    const CK_SESSION_HANDLE h = session_->h();
    const Bytes& in = setup_->input;
    CK_BYTE* data = const_cast<CK_BYTE*>(in.data());
    CK_ULONG len = output_.size();
    std::array<CK_BYTE, 16> iv{};
    std::memcpy(iv.data(), &index, sizeof index);
    switch (setup_->op->kind) {
      case BenchOperationKind::kEncrypt: {
        CK_GCM_PARAMS gcm{iv.data(), 12, 96, nullptr, 0, 128};
        CK_MECHANISM mech{setup_->op->mechanism, iv.data(), iv.size()};
        if (mech.mechanism == CKM_AES_GCM) mech = {CKM_AES_GCM, &gcm, sizeof gcm};
        P11_TRY("C_EncryptInit", f->C_EncryptInit(h, &mech, key_));
        P11_TRY("C_Encrypt", f->C_Encrypt(h, data, in.size(), output_.data(), &len));
        return OkStatus();
      }
      case BenchOperationKind::kMac: {
        CK_MECHANISM mech{setup_->op->mechanism, nullptr, 0};
        P11_TRY("C_SignInit", f->C_SignInit(h, &mech, key_));
        P11_TRY("C_Sign", f->C_Sign(h, data, in.size(), output_.data(), &len));
        return OkStatus();
      }
      case BenchOperationKind::kDecrypt: {
        CK_MECHANISM mech{CKM_RSA_PKCS_OAEP, const_cast<CK_RSA_PKCS_OAEP_PARAMS*>(&kOaep),
                          sizeof kOaep};
        P11_TRY("C_DecryptInit", f->C_DecryptInit(h, &mech, key_));
        P11_TRY("C_Decrypt", f->C_Decrypt(h, data, in.size(), output_.data(), &len));
        if (len != kSecretBytes) return MakeError(CKR_GENERAL_ERROR, "wrong plaintext length");
        return OkStatus();
      }
      case BenchOperationKind::kDerive: {
        CK_ECDH1_DERIVE_PARAMS ecdh{CKD_NULL, 0, nullptr, in.size(), data};
        CK_MECHANISM mech{CKM_ECDH1_DERIVE, &ecdh, sizeof ecdh};
        CK_OBJECT_CLASS cls = CKO_SECRET_KEY;
        CK_KEY_TYPE type = CKK_GENERIC_SECRET;
        CK_ULONG value_len = kSecretBytes;
        CK_BBOOL no = CK_FALSE;
        CK_ATTRIBUTE t[] = {{CKA_CLASS, &cls, sizeof cls},
                            {CKA_KEY_TYPE, &type, sizeof type},
                            {CKA_VALUE_LEN, &value_len, sizeof value_len},
                            {CKA_TOKEN, &no, 1}};
        CK_OBJECT_HANDLE derived = 0;
        P11_TRY("C_DeriveKey", f->C_DeriveKey(h, &mech, key_, t, 4, &derived));
        P11_TRY("C_DestroyObject", f->C_DestroyObject(h, derived));
        return OkStatus();
      }
    }
    return MakeError(CKR_FUNCTION_NOT_SUPPORTED, "unknown operation");
  }

 private:
  std::shared_ptr<const Setup> setup_;
  std::unique_ptr<Session> session_;
  CK_OBJECT_HANDLE key_;
  Bytes output_;
};

}  // namespace

Result<WorkerFactory> PrepareTokenOperation(std::shared_ptr<const Module> module, Session& control,
                                            const BenchOperation& op) {
  auto setup = std::make_shared<Setup>();
  setup->module = std::move(module);
  setup->op = &op;
  setup->label = "signet-bench-" + std::string(op.id);
  switch (op.kind) {
    case BenchOperationKind::kEncrypt:
    case BenchOperationKind::kMac: {
      SIGNET_TRY(Ensure(control, op, setup->label, CKO_SECRET_KEY));
      setup->input.resize(op.data_size);
      SIGNET_TRY(crypto::FillRandom(setup->input));
      break;
    }
    case BenchOperationKind::kDecrypt: {
      setup->key_class = CKO_PRIVATE_KEY;
      SIGNET_TRY(Ensure(control, op, setup->label, CKO_PRIVATE_KEY));
      SIGNET_ASSIGN_OR_RETURN(CK_OBJECT_HANDLE pub,
                              KeyHandle(control, setup->label, CKO_PUBLIC_KEY));
      Bytes secret(kSecretBytes);
      SIGNET_TRY(crypto::FillRandom(secret));
      CK_MECHANISM mech{CKM_RSA_PKCS_OAEP, const_cast<CK_RSA_PKCS_OAEP_PARAMS*>(&kOaep),
                        sizeof kOaep};
      setup->input.resize(op.key.rsa_bits / 8);
      CK_ULONG len = setup->input.size();
      P11_TRY("C_EncryptInit", control.f()->C_EncryptInit(control.h(), &mech, pub));
      P11_TRY("C_Encrypt", control.f()->C_Encrypt(control.h(), secret.data(), secret.size(),
                                                  setup->input.data(), &len));
      setup->input.resize(len);
      break;
    }
    case BenchOperationKind::kDerive: {
      setup->key_class = CKO_PRIVATE_KEY;
      SIGNET_TRY(Ensure(control, op, setup->label, CKO_PRIVATE_KEY));
      const std::string peer = setup->label + "-peer";
      SIGNET_TRY(Ensure(control, op, peer, CKO_PRIVATE_KEY));
      SIGNET_ASSIGN_OR_RETURN(CK_OBJECT_HANDLE peer_pub, KeyHandle(control, peer, CKO_PUBLIC_KEY));
      setup->input = RawEcPoint(Attribute(control, peer_pub, CKA_EC_POINT));
      if (setup->input.empty()) return MakeError(CKR_KEY_HANDLE_INVALID, peer + " has no point");
      break;
    }
  }
  return WorkerFactory([setup = std::shared_ptr<const Setup>(setup)](int) -> Result<Operation> {
    SIGNET_ASSIGN_OR_RETURN(auto session, Session::Open(setup->module));
    SIGNET_ASSIGN_OR_RETURN(CK_OBJECT_HANDLE key,
                            KeyHandle(*session, setup->label, setup->key_class));
    if (key == CK_INVALID_HANDLE) {
      return MakeError(CKR_KEY_HANDLE_INVALID, "key not visible in a new session");
    }
    auto worker = std::make_shared<Worker>(setup, std::move(session), key);
    return Operation([worker](std::uint64_t index) { return worker->Next(index); });
  });
}

}  // namespace signet::bench

// [op.] The operation state machine (§5.2, §5.8-5.12; issue 11 point 2) for
// every operation kind and every mechanism in kMechanisms that the module
// offers: which call may follow which, that a length query (NULL output) and
// CKR_BUFFER_TOO_SMALL keep the operation and report the length needed, that
// a finished or failed call ends it, that a single-part call after an
// Update fails with CKR_OPERATION_ACTIVE and ends the operation, and the
// *Init argument and key checks. Each sub-check runs in a fresh session so
// one module error cannot leak into the next check; keys live in a session
// of their own (session objects are visible to all the application's
// sessions).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>

#include "areas.h"
#include "operation_calls.h"

namespace signet::conformance {
namespace {

using op::Bytes;
using op::Calls;
using op::Data;
using op::Keys;
using op::Kind;
using op::KindName;
using op::Section;

enum class Params { kNone, kPssSha256, kPssSha384, kPssSha512, kGcm };

struct MechanismCase {
  CK_MECHANISM_TYPE mechanism;
  const char* name;
  KeyKind key;
  bool digest;     // a digest mechanism (no key)
  bool encrypt;    // encrypt / decrypt (else sign / verify)
  bool multipart;  // the mechanism allows Update / Final
  size_t data_length;
  Params params;
};

// The mechanisms the suite knows how to drive: signet's, and SoftHSMv2's
// counterparts of the same kinds.
constexpr MechanismCase kMechanisms[] = {
    {CKM_SHA_1, "SHA_1", KeyKind::kAes, true, false, true, 100, Params::kNone},
    {CKM_SHA256, "SHA256", KeyKind::kAes, true, false, true, 100, Params::kNone},
    {CKM_SHA384, "SHA384", KeyKind::kAes, true, false, true, 100, Params::kNone},
    {CKM_SHA512, "SHA512", KeyKind::kAes, true, false, true, 100, Params::kNone},
    {CKM_RSA_PKCS, "RSA_PKCS", KeyKind::kRsa, false, false, false, 32, Params::kNone},
    {CKM_SHA256_RSA_PKCS, "SHA256_RSA_PKCS", KeyKind::kRsa, false, false, true, 100, Params::kNone},
    {CKM_SHA384_RSA_PKCS, "SHA384_RSA_PKCS", KeyKind::kRsa, false, false, true, 100, Params::kNone},
    {CKM_SHA512_RSA_PKCS, "SHA512_RSA_PKCS", KeyKind::kRsa, false, false, true, 100, Params::kNone},
    {CKM_RSA_PKCS_PSS, "RSA_PKCS_PSS", KeyKind::kRsa, false, false, false, 32, Params::kPssSha256},
    {CKM_SHA256_RSA_PKCS_PSS, "SHA256_RSA_PKCS_PSS", KeyKind::kRsa, false, false, true, 100,
     Params::kPssSha256},
    {CKM_SHA384_RSA_PKCS_PSS, "SHA384_RSA_PKCS_PSS", KeyKind::kRsa, false, false, true, 100,
     Params::kPssSha384},
    {CKM_SHA512_RSA_PKCS_PSS, "SHA512_RSA_PKCS_PSS", KeyKind::kRsa, false, false, true, 100,
     Params::kPssSha512},
    {CKM_ECDSA, "ECDSA", KeyKind::kEc, false, false, false, 32, Params::kNone},
    {CKM_ECDSA_SHA256, "ECDSA_SHA256", KeyKind::kEc, false, false, true, 100, Params::kNone},
    {CKM_ECDSA_SHA384, "ECDSA_SHA384", KeyKind::kEc, false, false, true, 100, Params::kNone},
    {CKM_ECDSA_SHA512, "ECDSA_SHA512", KeyKind::kEc, false, false, true, 100, Params::kNone},
    {CKM_EDDSA, "EDDSA", KeyKind::kEd25519, false, false, false, 100, Params::kNone},
    {CKM_AES_GCM, "AES_GCM", KeyKind::kAes, false, true, true, 100, Params::kGcm},
    {CKM_RSA_PKCS, "RSA_PKCS", KeyKind::kRsa, false, true, false, 32, Params::kNone},
};

// Mechanism: a CK_MECHANISM with its parameters kept alive.
struct Mechanism {
  CK_MECHANISM mechanism = {};
  CK_RSA_PKCS_PSS_PARAMS pss = {};
  CK_GCM_PARAMS gcm = {};
  CK_BYTE iv[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

  explicit Mechanism(const MechanismCase& c) {
    mechanism.mechanism = c.mechanism;
    switch (c.params) {
      case Params::kNone:
        break;
      case Params::kPssSha256:
        pss = {CKM_SHA256, CKG_MGF1_SHA256, 32};
        break;
      case Params::kPssSha384:
        pss = {CKM_SHA384, CKG_MGF1_SHA384, 48};
        break;
      case Params::kPssSha512:
        pss = {CKM_SHA512, CKG_MGF1_SHA512, 64};
        break;
      case Params::kGcm:
        gcm.pIv = iv;
        gcm.ulIvLen = sizeof iv;
        gcm.ulIvBits = 8 * sizeof iv;
        gcm.ulTagBits = 128;
        mechanism.pParameter = &gcm;
        mechanism.ulParameterLen = sizeof gcm;
        return;
    }
    if (c.params != Params::kNone) {
      mechanism.pParameter = &pss;
      mechanism.ulParameterLen = sizeof pss;
    }
  }
  Mechanism(const Mechanism&) = delete;
  Mechanism& operator=(const Mechanism&) = delete;
};

// Run: one (mechanism, kind) pair's state machine.
class Run {
 public:
  Run(Fixture& f, const MechanismCase& c, Kind kind, CK_OBJECT_HANDLE key, Bytes input,
      Bytes expected_output)
      : f_(f),
        s_(f.suite()),
        c_(c),
        kind_(kind),
        calls_(f.p11(), kind),
        key_(key),
        input_(std::move(input)),
        signature_(std::move(expected_output)) {
    prefix_ = std::string("op.") + KindName(kind) + "." + c.name + ".";
  }

  void All() {
    if (kind_ == Kind::kVerify) {
      VerifySingle();
      if (c_.multipart) VerifyMulti();
      VerifyNullSignature();
    } else {
      Single();
      TooSmall();
      NullLength();
      if (c_.multipart) {
        Multi();
        UpdateThenSingle();
        FinalAfterSingleQuery();
        NullUpdateArguments();
      }
      if (kind_ == Kind::kDecrypt) DecryptTampered();
      if (kind_ == Kind::kSign && c_.mechanism == CKM_RSA_PKCS) SignTooLong();
    }
    InitTwice();
  }

  const Bytes& output() const { return output_; }

 private:
  // Begin: a fresh session with the operation initialised; 0 on failure.
  CK_SESSION_HANDLE Begin(const std::string& step) {
    CK_SESSION_HANDLE session = f_.Open(true);
    if (session == CK_INVALID_HANDLE) return 0;
    Mechanism m(c_);
    CK_RV rv = calls_.Init(session, &m.mechanism, key_);
    if (rv != CKR_OK) {
      s_.Rv(prefix_ + step + ".init", Section(kind_), CKR_OK, rv);
      f_.p11()->C_CloseSession(session);
      return 0;
    }
    return session;
  }
  void End(CK_SESSION_HANDLE session) { f_.p11()->C_CloseSession(session); }
  std::string Id(const std::string& step) const { return prefix_ + step; }

  void Single() {
    CK_SESSION_HANDLE s = Begin("single");
    if (s == 0) return;
    CK_ULONG length = 0;
    s_.Rv(Id("single.length_query"), "5.2", CKR_OK, calls_.Single(s, input_, nullptr, &length));
    // A module that reports an absurd length must not make the suite allocate it.
    Bytes out(length == 0 || length > (1u << 20) ? 4096 : length);
    CK_ULONG size = out.size();
    if (s_.Rv(Id("single.after_length_query"), "5.2", CKR_OK,
              calls_.Single(s, input_, out.data(), &size))) {
      out.resize(size);
      output_ = out;
      s_.True(Id("single.length_query_enough"), "5.2", length >= size, ">= " + std::to_string(size),
              std::to_string(length));
    }
    s_.Rv(Id("single.ends_operation"), Section(kind_), CKR_OPERATION_NOT_INITIALIZED,
          calls_.Single(s, input_, out.data(), &size));
    End(s);
  }

  void TooSmall() {
    CK_SESSION_HANDLE s = Begin("too_small");
    if (s == 0) return;
    CK_BYTE one[1];
    CK_ULONG length = 1;
    CK_RV rv = calls_.Single(s, input_, one, &length);
    if (output_.size() > 1 &&
        s_.Rv(Id("too_small.buffer_too_small"), "5.2", CKR_BUFFER_TOO_SMALL, rv)) {
      s_.True(Id("too_small.length_needed"), "5.2",
              length >= output_.size() && length != CK_UNAVAILABLE_INFORMATION,
              ">= " + std::to_string(output_.size()), std::to_string(length));
      // The module may ask for more than it finally writes (§5.2).
      Bytes out(std::max<size_t>(output_.size() + 64, length > (1u << 20) ? 0 : length));
      CK_ULONG size = out.size();
      s_.Rv(Id("too_small.keeps_operation"), "5.2", CKR_OK,
            calls_.Single(s, input_, out.data(), &size));
    }
    End(s);
  }

  void NullLength() {
    CK_SESSION_HANDLE s = Begin("null_length");
    if (s == 0) return;
    CK_RV rv = CKR_GENERAL_ERROR;
    switch (kind_) {
      case Kind::kSign:
        rv = f_.p11()->C_Sign(s, input_.data(), input_.size(), nullptr, nullptr);
        break;
      case Kind::kEncrypt:
        rv = f_.p11()->C_Encrypt(s, input_.data(), input_.size(), nullptr, nullptr);
        break;
      case Kind::kDecrypt:
        rv = f_.p11()->C_Decrypt(s, input_.data(), input_.size(), nullptr, nullptr);
        break;
      case Kind::kDigest:
        rv = f_.p11()->C_Digest(s, input_.data(), input_.size(), nullptr, nullptr);
        break;
      case Kind::kVerify:
        break;
    }
    s_.Rv(Id("null_length_pointer"), Section(kind_), CKR_ARGUMENTS_BAD, rv);
    End(s);
  }

  void Multi() {
    CK_SESSION_HANDLE s = Begin("multi");
    if (s == 0) return;
    Bytes produced;
    size_t half = input_.size() / 2;
    s_.Rv(Id("multi.update"), Section(kind_), CKR_OK,
          calls_.Update(s, input_.data(), half, &produced));
    s_.Rv(Id("multi.update_again"), Section(kind_), CKR_OK,
          calls_.Update(s, input_.data() + half, input_.size() - half, &produced));
    CK_ULONG length = 0;
    s_.Rv(Id("multi.final_length_query"), "5.2", CKR_OK, calls_.Final(s, nullptr, &length));
    size_t rest = output_.size() >= produced.size() ? output_.size() - produced.size() : 0;
    if (rest > 1) {
      CK_BYTE one[1];
      CK_ULONG small = 1;
      if (s_.Rv(Id("multi.final_buffer_too_small"), "5.2", CKR_BUFFER_TOO_SMALL,
                calls_.Final(s, one, &small))) {
        s_.True(Id("multi.final_length_needed"), "5.2",
                small >= rest && small != CK_UNAVAILABLE_INFORMATION, ">= " + std::to_string(rest),
                std::to_string(small));
      }
    }
    Bytes out(std::max<size_t>(rest + 64, length > (1u << 20) ? 0 : length));
    CK_ULONG size = out.size();
    if (s_.Rv(Id("multi.final"), Section(kind_), CKR_OK, calls_.Final(s, out.data(), &size))) {
      s_.True(Id("multi.final_length_query_enough"), "5.2", length >= size,
              ">= " + std::to_string(size), std::to_string(length));
      produced.insert(produced.end(), out.begin(), out.begin() + size);
      // Deterministic outputs must match the single-part result (ECDSA and
      // PSS signatures are randomised).
      bool randomised =
          kind_ == Kind::kSign && (c_.key == KeyKind::kEc || c_.params != Params::kNone);
      if (!randomised) {
        s_.True(Id("multi.same_as_single_part"), Section(kind_), produced == output_,
                std::to_string(output_.size()) + " bytes as the single-part call",
                produced == output_ ? "the same"
                                    : "different (" + std::to_string(produced.size()) + " bytes)");
      }
    }
    s_.Rv(Id("multi.final_ends_operation"), Section(kind_), CKR_OPERATION_NOT_INITIALIZED,
          calls_.Update(s, input_.data(), input_.size(), nullptr));
    End(s);
  }

  // Issue 11 point 2: a single-part call after Update fails with
  // CKR_OPERATION_ACTIVE and, like every failed call, ends the operation.
  void UpdateThenSingle() {
    CK_SESSION_HANDLE s = Begin("update_then_single");
    if (s == 0) return;
    Bytes produced;
    calls_.Update(s, input_.data(), input_.size(), &produced);
    Bytes out(output_.size() + 64);
    CK_ULONG size = out.size();
    s_.Rv(Id("update_then_single"), Section(kind_), CKR_OPERATION_ACTIVE,
          calls_.Single(s, input_, out.data(), &size));
    size = out.size();
    s_.Rv(Id("update_then_single.ends_operation"), Section(kind_), CKR_OPERATION_NOT_INITIALIZED,
          calls_.Final(s, out.data(), &size));
    End(s);
  }

  // Issue 11 point 2: after a single-part length query the single-part
  // operation is active, so a Final is CKR_OPERATION_ACTIVE.
  void FinalAfterSingleQuery() {
    CK_SESSION_HANDLE s = Begin("final_after_single_query");
    if (s == 0) return;
    CK_ULONG length = 0;
    calls_.Single(s, input_, nullptr, &length);
    Bytes out(output_.size() + 64);
    CK_ULONG size = out.size();
    s_.Rv(Id("final_after_single_query"), Section(kind_), CKR_OPERATION_ACTIVE,
          calls_.Final(s, out.data(), &size));
    End(s);
  }

  // Raw PKCS #1 v1.5 signs at most k - 11 bytes: more is
  // CKR_DATA_LEN_RANGE, and that failure ends the operation (§5.11.2).
  void SignTooLong() {
    CK_SESSION_HANDLE s = Begin("data_too_long");
    if (s == 0) return;
    Bytes long_input(2048 / 8 - 10, 0x44);
    Bytes out(512);
    CK_ULONG size = out.size();
    s_.Rv(Id("data_too_long"), "5.11.2 / RSA PKCS #1 v1.5", CKR_DATA_LEN_RANGE,
          calls_.Single(s, long_input, out.data(), &size));
    size = out.size();
    s_.Rv(Id("data_too_long.ends_operation"), "5.11.2", CKR_OPERATION_NOT_INITIALIZED,
          calls_.Single(s, input_, out.data(), &size));
    End(s);
  }

  void DecryptTampered() {
    CK_SESSION_HANDLE s = Begin("tampered");
    if (s == 0) return;
    Bytes tampered = input_;
    tampered[tampered.size() / 2] ^= 1;
    Bytes out(tampered.size() + 64);
    CK_ULONG size = out.size();
    CK_RV expected = c_.mechanism == CKM_AES_GCM ? CKR_ENCRYPTED_DATA_INVALID : CKR_OK;
    if (expected != CKR_OK) {
      s_.Rv(Id("tampered"), "5.9.2", expected, calls_.Single(s, tampered, out.data(), &size));
      size = out.size();
      s_.Rv(Id("tampered.ends_operation"), "5.9.2", CKR_OPERATION_NOT_INITIALIZED,
            calls_.Single(s, input_, out.data(), &size));
    }
    End(s);
  }

  // NULL pointers with an active operation (so no other rule applies) are
  // CKR_ARGUMENTS_BAD (§5.1.6).
  void NullUpdateArguments() {
    CK_SESSION_HANDLE s = Begin("null_update");
    if (s == 0) return;
    CK_ULONG length = 64;
    CK_RV rv = CKR_GENERAL_ERROR;
    switch (kind_) {
      case Kind::kSign:
        rv = f_.p11()->C_SignUpdate(s, nullptr, 16);
        break;
      case Kind::kDigest:
        rv = f_.p11()->C_DigestUpdate(s, nullptr, 16);
        break;
      case Kind::kEncrypt:
        rv = f_.p11()->C_EncryptUpdate(s, nullptr, 16, nullptr, &length);
        break;
      case Kind::kDecrypt:
        rv = f_.p11()->C_DecryptUpdate(s, nullptr, 16, nullptr, &length);
        break;
      case Kind::kVerify:
        break;
    }
    s_.Rv(Id("null_update_input"), Section(kind_), CKR_ARGUMENTS_BAD, rv);
    End(s);

    s = Begin("null_final_length");
    if (s == 0) return;
    calls_.Update(s, input_.data(), input_.size(), nullptr);
    CK_BYTE out[8];
    switch (kind_) {
      case Kind::kSign:
        rv = f_.p11()->C_SignFinal(s, out, nullptr);
        break;
      case Kind::kDigest:
        rv = f_.p11()->C_DigestFinal(s, out, nullptr);
        break;
      case Kind::kEncrypt:
        rv = f_.p11()->C_EncryptFinal(s, out, nullptr);
        break;
      case Kind::kDecrypt:
        rv = f_.p11()->C_DecryptFinal(s, out, nullptr);
        break;
      case Kind::kVerify:
        break;
    }
    s_.Rv(Id("null_final_length"), Section(kind_), CKR_ARGUMENTS_BAD, rv);
    End(s);
  }

  void VerifyNullSignature() {
    CK_SESSION_HANDLE s = Begin("null_signature");
    if (s == 0) return;
    s_.Rv(Id("null_signature"), "5.12.2", CKR_ARGUMENTS_BAD,
          f_.p11()->C_Verify(s, input_.data(), input_.size(), nullptr, signature_.size()));
    End(s);
  }

  void InitTwice() {
    CK_SESSION_HANDLE s = Begin("init_twice");
    if (s == 0) return;
    Mechanism m(c_);
    s_.Rv(Id("init_while_active"), Section(kind_), CKR_OPERATION_ACTIVE,
          calls_.Init(s, &m.mechanism, key_));
    End(s);
  }

  void VerifySingle() {
    CK_SESSION_HANDLE s = Begin("single");
    if (s == 0) return;
    Bytes sig = signature_;
    CK_ULONG length = sig.size();
    s_.Rv(Id("single"), "5.12.2", CKR_OK, calls_.Single(s, input_, sig.data(), &length));
    s_.Rv(Id("single.ends_operation"), "5.12.2", CKR_OPERATION_NOT_INITIALIZED,
          calls_.Single(s, input_, sig.data(), &length));
    End(s);

    s = Begin("bad_signature");
    if (s == 0) return;
    sig[sig.size() / 2] ^= 1;
    s_.Rv(Id("bad_signature"), "5.12.2", CKR_SIGNATURE_INVALID,
          calls_.Single(s, input_, sig.data(), &length));
    sig = signature_;
    s_.Rv(Id("bad_signature.ends_operation"), "5.12.2", CKR_OPERATION_NOT_INITIALIZED,
          calls_.Single(s, input_, sig.data(), &length));
    End(s);

    s = Begin("short_signature");
    if (s == 0) return;
    length = sig.size() - 1;
    s_.Rv(Id("short_signature"), "5.12.2", CKR_SIGNATURE_LEN_RANGE,
          calls_.Single(s, input_, sig.data(), &length));
    length = sig.size();
    s_.Rv(Id("short_signature.ends_operation"), "5.12.2", CKR_OPERATION_NOT_INITIALIZED,
          calls_.Single(s, input_, sig.data(), &length));
    End(s);
  }

  void VerifyMulti() {
    CK_SESSION_HANDLE s = Begin("multi");
    if (s == 0) return;
    Bytes sig = signature_;
    CK_ULONG length = sig.size();
    size_t half = input_.size() / 2;
    s_.Rv(Id("multi.update"), "5.12.3", CKR_OK, calls_.Update(s, input_.data(), half, nullptr));
    s_.Rv(Id("multi.update_again"), "5.12.3", CKR_OK,
          calls_.Update(s, input_.data() + half, input_.size() - half, nullptr));
    s_.Rv(Id("multi.final"), "5.12.4", CKR_OK, calls_.Final(s, sig.data(), &length));
    s_.Rv(Id("multi.final_ends_operation"), "5.12.4", CKR_OPERATION_NOT_INITIALIZED,
          calls_.Final(s, sig.data(), &length));
    End(s);

    s = Begin("multi_bad_signature");
    if (s == 0) return;
    calls_.Update(s, input_.data(), input_.size(), nullptr);
    sig[sig.size() / 2] ^= 1;
    s_.Rv(Id("multi.bad_signature"), "5.12.4", CKR_SIGNATURE_INVALID,
          calls_.Final(s, sig.data(), &length));
    End(s);

    s = Begin("update_then_single");
    if (s == 0) return;
    sig = signature_;
    calls_.Update(s, input_.data(), input_.size(), nullptr);
    s_.Rv(Id("update_then_single"), "5.12.2", CKR_OPERATION_ACTIVE,
          calls_.Single(s, input_, sig.data(), &length));
    s_.Rv(Id("update_then_single.ends_operation"), "5.12.2", CKR_OPERATION_NOT_INITIALIZED,
          calls_.Final(s, sig.data(), &length));
    End(s);
  }

  Fixture& f_;
  Suite& s_;
  const MechanismCase& c_;
  Kind kind_;
  Calls calls_;
  CK_OBJECT_HANDLE key_;
  Bytes input_;
  Bytes signature_;  // verify: the signature to check
  Bytes output_;     // the single-part result
  std::string prefix_;
};

Keys MakeKeys(Fixture& f, CK_SESSION_HANDLE session) {
  Keys keys;
  auto sign_pub = [] { return Template().Bool(CKA_VERIFY, true); };
  auto sign_priv = [] { return Template().Bool(CKA_SIGN, true); };
  if (f.Offers(CKM_RSA_PKCS_KEY_PAIR_GEN)) {
    keys.rsa_sign = f.Generate(session, KeyKind::kRsa, sign_pub(), sign_priv());
    if (f.Offers(CKM_RSA_PKCS, CKF_ENCRYPT)) {
      keys.rsa_crypt = f.Generate(session, KeyKind::kRsa, Template().Bool(CKA_ENCRYPT, true),
                                  Template().Bool(CKA_DECRYPT, true));
    }
  }
  if (f.Offers(CKM_EC_KEY_PAIR_GEN)) {
    keys.ec = f.Generate(session, KeyKind::kEc, sign_pub(), sign_priv());
    keys.ec_no_usage = f.Generate(session, KeyKind::kEc, Template().Bool(CKA_VERIFY, false),
                                  Template().Bool(CKA_SIGN, false));
  }
  if (f.Offers(CKM_EC_EDWARDS_KEY_PAIR_GEN)) {
    keys.ed = f.Generate(session, KeyKind::kEd25519, sign_pub(), sign_priv());
  }
  if (f.Offers(CKM_AES_KEY_GEN)) {
    keys.aes = f.Generate(session, KeyKind::kAes, {},
                          Template().Bool(CKA_ENCRYPT, true).Bool(CKA_DECRYPT, true));
    keys.aes_no_usage = f.Generate(session, KeyKind::kAes, {},
                                   Template().Bool(CKA_ENCRYPT, false).Bool(CKA_DECRYPT, false));
  }
  return keys;
}

const KeyPair& KeyFor(const Keys& keys, const MechanismCase& c) {
  switch (c.key) {
    case KeyKind::kRsa:
      return c.encrypt ? keys.rsa_crypt : keys.rsa_sign;
    case KeyKind::kEc:
      return keys.ec;
    case KeyKind::kEd25519:
      return keys.ed;
    case KeyKind::kAes:
      return keys.aes;
  }
  return keys.aes;
}

void RunMechanism(Fixture& f, const Keys& keys, const MechanismCase& c) {
  const std::string name = c.digest ? "digest" : c.encrypt ? "encrypt" : "sign";
  CK_FLAGS flag = c.digest ? CKF_DIGEST : c.encrypt ? CKF_ENCRYPT : CKF_SIGN;
  if (!f.Offers(c.mechanism, flag)) {
    f.suite().Skip(std::string("op.") + name + "." + c.name, "the module does not offer it");
    return;
  }
  Bytes data = Data(c.data_length);
  if (c.digest) {
    Run(f, c, Kind::kDigest, CK_INVALID_HANDLE, data, {}).All();
    return;
  }
  const KeyPair& key = KeyFor(keys, c);
  if (!key.ok()) {
    f.suite().True(std::string("op.") + name + "." + c.name + ".key", "5.14", false,
                   "a generated key", "key generation failed");
    return;
  }
  if (c.encrypt) {
    CK_OBJECT_HANDLE enc = c.key == KeyKind::kAes ? key.priv : key.pub;
    Run encrypt(f, c, Kind::kEncrypt, enc, data, {});
    encrypt.All();
    if (!encrypt.output().empty()) Run(f, c, Kind::kDecrypt, key.priv, encrypt.output(), {}).All();
  } else {
    Run sign(f, c, Kind::kSign, key.priv, data, {});
    sign.All();
    if (!sign.output().empty()) Run(f, c, Kind::kVerify, key.pub, data, sign.output()).All();
  }
}

}  // namespace

void RunOperations(Fixture& f) {
  CK_SESSION_HANDLE key_session = f.Open(true);
  if (key_session == CK_INVALID_HANDLE) return f.suite().Skip("op.", "no session");
  f.LoginUser(key_session);
  Keys keys = MakeKeys(f, key_session);
  op::CheckOperationKinds(f, keys);
  for (const MechanismCase& c : kMechanisms) RunMechanism(f, keys, c);
  // The module's mechanisms this suite does not drive, for the record.
  for (CK_MECHANISM_TYPE mechanism : f.Mechanisms()) {
    bool known = false;
    for (const MechanismCase& c : kMechanisms) known = known || c.mechanism == mechanism;
    for (CK_MECHANISM_TYPE other :
         {CKM_RSA_PKCS_KEY_PAIR_GEN, CKM_EC_KEY_PAIR_GEN, CKM_EC_EDWARDS_KEY_PAIR_GEN,
          CKM_AES_KEY_GEN, CKM_AES_KEY_WRAP_PAD, CK_MECHANISM_TYPE{0x210B}}) {
      known = known || other == mechanism;
    }
    if (!known)
      f.suite().Skip("op.not_driven." + Hex(mechanism), "the suite does not drive this mechanism");
  }
  f.CloseAll();
}

}  // namespace signet::conformance

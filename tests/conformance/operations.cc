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

namespace signet::conformance {
namespace {

using Bytes = std::vector<CK_BYTE>;

enum class Kind { kSign, kVerify, kEncrypt, kDecrypt, kDigest };
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

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kSign:
      return "sign";
    case Kind::kVerify:
      return "verify";
    case Kind::kEncrypt:
      return "encrypt";
    case Kind::kDecrypt:
      return "decrypt";
    case Kind::kDigest:
      return "digest";
  }
  return "?";
}

const char* Section(Kind kind) {
  switch (kind) {
    case Kind::kSign:
      return "5.11";
    case Kind::kVerify:
      return "5.12";
    case Kind::kEncrypt:
      return "5.8";
    case Kind::kDecrypt:
      return "5.9";
    case Kind::kDigest:
      return "5.10";
  }
  return "?";
}

// Calls: one operation kind's entry points behind one shape. Verify's
// "output" is the signature it is given (in / in_len of Single and Final).
class Calls {
 public:
  Calls(CK_FUNCTION_LIST_PTR p, Kind kind) : p_(p), kind_(kind) {}

  CK_RV Init(CK_SESSION_HANDLE s, CK_MECHANISM_PTR m, CK_OBJECT_HANDLE key) const {
    switch (kind_) {
      case Kind::kSign:
        return p_->C_SignInit(s, m, key);
      case Kind::kVerify:
        return p_->C_VerifyInit(s, m, key);
      case Kind::kEncrypt:
        return p_->C_EncryptInit(s, m, key);
      case Kind::kDecrypt:
        return p_->C_DecryptInit(s, m, key);
      case Kind::kDigest:
        return p_->C_DigestInit(s, m);
    }
    return CKR_GENERAL_ERROR;
  }
  // Single: C_Sign / C_Encrypt / C_Decrypt / C_Digest; C_Verify takes `out`
  // as the signature and `*out_len` as its length.
  CK_RV Single(CK_SESSION_HANDLE s, Bytes& in, CK_BYTE_PTR out, CK_ULONG_PTR out_len) const {
    switch (kind_) {
      case Kind::kSign:
        return p_->C_Sign(s, in.data(), in.size(), out, out_len);
      case Kind::kVerify:
        return p_->C_Verify(s, in.data(), in.size(), out, *out_len);
      case Kind::kEncrypt:
        return p_->C_Encrypt(s, in.data(), in.size(), out, out_len);
      case Kind::kDecrypt:
        return p_->C_Decrypt(s, in.data(), in.size(), out, out_len);
      case Kind::kDigest:
        return p_->C_Digest(s, in.data(), in.size(), out, out_len);
    }
    return CKR_GENERAL_ERROR;
  }
  // Update feeds `in`; encrypt / decrypt output goes to a scratch buffer
  // appended to `produced`.
  CK_RV Update(CK_SESSION_HANDLE s, CK_BYTE_PTR in, CK_ULONG in_len, Bytes* produced) const {
    CK_BYTE scratch[4096];
    CK_ULONG length = sizeof scratch;
    CK_RV rv = CKR_GENERAL_ERROR;
    switch (kind_) {
      case Kind::kSign:
        return p_->C_SignUpdate(s, in, in_len);
      case Kind::kVerify:
        return p_->C_VerifyUpdate(s, in, in_len);
      case Kind::kDigest:
        return p_->C_DigestUpdate(s, in, in_len);
      case Kind::kEncrypt:
        rv = p_->C_EncryptUpdate(s, in, in_len, scratch, &length);
        break;
      case Kind::kDecrypt:
        rv = p_->C_DecryptUpdate(s, in, in_len, scratch, &length);
        break;
    }
    if (rv == CKR_OK && produced != nullptr)
      produced->insert(produced->end(), scratch, scratch + length);
    return rv;
  }
  CK_RV Final(CK_SESSION_HANDLE s, CK_BYTE_PTR out, CK_ULONG_PTR out_len) const {
    switch (kind_) {
      case Kind::kSign:
        return p_->C_SignFinal(s, out, out_len);
      case Kind::kVerify:
        return p_->C_VerifyFinal(s, out, *out_len);
      case Kind::kEncrypt:
        return p_->C_EncryptFinal(s, out, out_len);
      case Kind::kDecrypt:
        return p_->C_DecryptFinal(s, out, out_len);
      case Kind::kDigest:
        return p_->C_DigestFinal(s, out, out_len);
    }
    return CKR_GENERAL_ERROR;
  }

 private:
  CK_FUNCTION_LIST_PTR p_;
  Kind kind_;
};

// Keys: the keys of the operation checks, generated once in `session`.
struct Keys {
  KeyPair rsa_sign, rsa_crypt, ec, ed, aes;
  KeyPair ec_no_usage, aes_no_usage;
};

Bytes Data(size_t length) {
  Bytes data(length);
  for (size_t i = 0; i < length; ++i) data[i] = static_cast<CK_BYTE>('a' + i % 26);
  return data;
}

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
    Bytes out(length == 0 ? 1 : length);
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
      Bytes out(
          std::max<size_t>(output_.size() + 64, length == CK_UNAVAILABLE_INFORMATION ? 0 : length));
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
    Bytes out(std::max<size_t>(rest + 64, length));
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

// Checks that do not depend on the mechanism: calls without an operation,
// *Init argument, handle and key checks.
void CheckKinds(Fixture& f, const Keys& keys) {
  Suite& s = f.suite();
  CK_FUNCTION_LIST_PTR p = f.p11();
  CK_SESSION_HANDLE session = f.Open(true);
  Bytes data = Data(32), out(512);
  for (Kind kind : {Kind::kSign, Kind::kVerify, Kind::kEncrypt, Kind::kDecrypt, Kind::kDigest}) {
    Calls calls(p, kind);
    const std::string id = std::string("op.") + KindName(kind) + ".";
    CK_ULONG length = out.size();
    s.Rv(id + "single_not_initialized", Section(kind), CKR_OPERATION_NOT_INITIALIZED,
         calls.Single(session, data, out.data(), &length));
    s.Rv(id + "update_not_initialized", Section(kind), CKR_OPERATION_NOT_INITIALIZED,
         calls.Update(session, data.data(), data.size(), nullptr));
    length = out.size();
    s.Rv(id + "final_not_initialized", Section(kind), CKR_OPERATION_NOT_INITIALIZED,
         calls.Final(session, out.data(), &length));
    CK_MECHANISM bogus = {CKM_VENDOR_DEFINED + 0x5157, nullptr, 0};
    CK_OBJECT_HANDLE key = kind == Kind::kDigest   ? CK_INVALID_HANDLE
                           : kind == Kind::kSign   ? keys.ec.priv
                           : kind == Kind::kVerify ? keys.ec.pub
                                                   : keys.aes.priv;
    s.Rv(id + "init_mechanism_invalid", Section(kind), CKR_MECHANISM_INVALID,
         calls.Init(session, &bogus, key));
    // A mechanism the module has, but not for this function.
    CK_MECHANISM other_function = {kind == Kind::kDigest ? CKM_ECDSA : CKM_SHA256, nullptr, 0};
    if (f.Offers(other_function.mechanism)) {
      s.Rv(id + "init_mechanism_of_other_function", Section(kind), CKR_MECHANISM_INVALID,
           calls.Init(session, &other_function, key));
    }
    CK_MECHANISM sha = {CKM_SHA256, nullptr, 0};
    s.Rv(id + "init_session_handle_invalid", "5.1.2", CKR_SESSION_HANDLE_INVALID,
         calls.Init(CK_INVALID_HANDLE, &sha, key));
    if (kind == Kind::kDigest) continue;
    bool signing = kind == Kind::kSign || kind == Kind::kVerify;
    CK_MECHANISM real = {signing ? CKM_ECDSA_SHA256 : CKM_AES_GCM, nullptr, 0};
    CK_GCM_PARAMS gcm = {};
    CK_BYTE iv[12] = {};
    gcm.pIv = iv;
    gcm.ulIvLen = 12;
    gcm.ulIvBits = 96;
    gcm.ulTagBits = 128;
    if (!signing) {
      real.pParameter = &gcm;
      real.ulParameterLen = sizeof gcm;
    }
    if (!f.Offers(real.mechanism) || (signing ? !keys.ec.ok() : !keys.aes.ok())) continue;
    if (!signing) {
      CK_MECHANISM no_params = {CKM_AES_GCM, nullptr, 0};
      s.Rv(id + "init_mechanism_param_invalid", Section(kind), CKR_MECHANISM_PARAM_INVALID,
           calls.Init(session, &no_params, keys.aes.priv));
    }
    s.Rv(id + "init_key_handle_invalid", Section(kind), CKR_KEY_HANDLE_INVALID,
         calls.Init(session, &real, 0x7ffff00d));
    // A key of another type that has the usage flag (so only one rule applies).
    CK_OBJECT_HANDLE wrong_type = kind == Kind::kSign      ? keys.rsa_sign.priv
                                  : kind == Kind::kVerify  ? keys.rsa_sign.pub
                                  : kind == Kind::kEncrypt ? keys.rsa_crypt.pub
                                                           : keys.rsa_crypt.priv;
    if (wrong_type != CK_INVALID_HANDLE) {
      s.Rv(id + "init_key_type_inconsistent", Section(kind), CKR_KEY_TYPE_INCONSISTENT,
           calls.Init(session, &real, wrong_type));
    }
    CK_OBJECT_HANDLE no_usage = kind == Kind::kSign     ? keys.ec_no_usage.priv
                                : kind == Kind::kVerify ? keys.ec_no_usage.pub
                                                        : keys.aes_no_usage.priv;
    if (no_usage != CK_INVALID_HANDLE) {
      s.Rv(id + "init_key_function_not_permitted", Section(kind), CKR_KEY_FUNCTION_NOT_PERMITTED,
           calls.Init(session, &real, no_usage));
    }
  }
  p->C_CloseSession(session);

  // Known answers (FIPS 180-4 examples: the digest of "abc").
  const std::tuple<CK_MECHANISM_TYPE, const char*, const char*> known[] = {
      {CKM_SHA_1, "SHA_1", "a9993e364706816aba3e25717850c26c9cd0d89d"},
      {CKM_SHA256, "SHA256", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {CKM_SHA384, "SHA384",
       "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c"
       "825a7"},
      {CKM_SHA512, "SHA512",
       "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3f"
       "eebbd"
       "454d4423643ce80e2a9ac94fa54ca49f"},
  };
  for (const auto& [mechanism, name, hex] : known) {
    if (!f.Offers(mechanism, CKF_DIGEST)) continue;
    CK_SESSION_HANDLE d = f.Open(false);
    CK_MECHANISM m = {mechanism, nullptr, 0};
    CK_BYTE abc[] = {'a', 'b', 'c'};
    CK_ULONG length = out.size();
    std::string got = "error";
    if (p->C_DigestInit(d, &m) == CKR_OK &&
        p->C_Digest(d, abc, sizeof abc, out.data(), &length) == CKR_OK) {
      got.clear();
      for (CK_ULONG i = 0; i < length; ++i) {
        char two[3];
        std::snprintf(two, sizeof two, "%02x", out[i]);
        got += two;
      }
    }
    s.True(std::string("op.digest.") + name + ".known_answer", "5.10.2", got == hex, hex, got);
    p->C_CloseSession(d);
  }

  // Operations belong to their session (§5.6: each session has its own state).
  CK_SESSION_HANDLE a = f.Open(true), b = f.Open(true);
  CK_MECHANISM sha = {CKM_SHA256, nullptr, 0};
  if (f.Offers(CKM_SHA256, CKF_DIGEST) && p->C_DigestInit(a, &sha) == CKR_OK) {
    s.Rv("op.digest.other_session_not_initialized", "5.10.3", CKR_OPERATION_NOT_INITIALIZED,
         p->C_DigestUpdate(b, data.data(), data.size()));
    s.Rv("op.digest.other_session_own_operation", "5.10.1", CKR_OK, p->C_DigestInit(b, &sha));
    CK_ULONG length = out.size();
    s.Rv("op.digest.session_keeps_operation", "5.10.2", CKR_OK,
         p->C_Digest(a, data.data(), data.size(), out.data(), &length));
    // Closing a session ends its operation; the other session's stays.
    p->C_CloseSession(a);
    length = out.size();
    s.Rv("op.digest.close_other_session_keeps_operation", "5.6.2", CKR_OK,
         p->C_Digest(b, data.data(), data.size(), out.data(), &length));
  }
  p->C_CloseSession(b);
}

}  // namespace

void RunOperations(Fixture& f) {
  CK_SESSION_HANDLE key_session = f.Open(true);
  if (key_session == CK_INVALID_HANDLE) return f.suite().Skip("op.", "no session");
  f.LoginUser(key_session);
  Keys keys = MakeKeys(f, key_session);
  CheckKinds(f, keys);
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

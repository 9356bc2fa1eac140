// Shared by the [op.] area's files: the operation kinds, one shape for
// each kind's entry points (Calls), the keys the operation checks use, and
// the mechanism-independent checks (operation_kinds.cc). Single-threaded.
#pragma once

#include <p11-kit/pkcs11.h>

#include <vector>

#include "fixture.h"

namespace signet::conformance::op {

using Bytes = std::vector<CK_BYTE>;

enum class Kind { kSign, kVerify, kEncrypt, kDecrypt, kDigest };

inline const char* KindName(Kind kind) {
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

inline const char* Section(Kind kind) {
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

inline Bytes Data(size_t length) {
  Bytes data(length);
  for (size_t i = 0; i < length; ++i) data[i] = static_cast<CK_BYTE>('a' + i % 26);
  return data;
}

// CheckOperationKinds: the checks that do not depend on the mechanism
// (calls without an operation, *Init arguments, handles and keys, digest
// known answers, operations per session).
void CheckOperationKinds(Fixture& f, const Keys& keys);

}  // namespace signet::conformance::op

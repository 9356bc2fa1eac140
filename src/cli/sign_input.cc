#include "cli/sign_input.h"

#include <array>
#include <span>

namespace signet::cli {
namespace {

using crypto::DigestAlg;

// HashRow: the PKCS#11 names of one hash and its DER DigestInfo prefix
// (RFC 8017 section 9.2, note 1), which CKM_RSA_PKCS expects before the
// digest.
struct HashRow {
  DigestAlg digest;
  CK_MECHANISM_TYPE hash_mechanism;
  CK_RSA_PKCS_MGF_TYPE mgf;
  std::array<std::uint8_t, 19> digest_info_prefix;
};

constexpr std::array<HashRow, 3> kHashes = {{
    {DigestAlg::kSha256, CKM_SHA256, CKG_MGF1_SHA256,
     {0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01,
      0x05, 0x00, 0x04, 0x20}},
    {DigestAlg::kSha384, CKM_SHA384, CKG_MGF1_SHA384,
     {0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02,
      0x05, 0x00, 0x04, 0x30}},
    {DigestAlg::kSha512, CKM_SHA512, CKG_MGF1_SHA512,
     {0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03,
      0x05, 0x00, 0x04, 0x40}},
}};

const HashRow* FindHash(DigestAlg digest) {
  for (const HashRow& row : kHashes) {
    if (row.digest == digest) return &row;
  }
  return nullptr;
}

}  // namespace

Result<SignInput> PrepareSignInput(const NamedMechanism& named, client::Bytes message) {
  if (message.size() <= kInlineLimit) {
    return SignInput{client::Mechanism{named.type}, std::move(message)};
  }
  const HashRow* hash = FindHash(named.digest);
  if (named.raw_form == RawForm::kNone || hash == nullptr) {
    return MakeError(CKR_DATA_LEN_RANGE, std::string(named.name) + " signs whole messages of at most " +
                                             std::to_string(kInlineLimit) + " bytes");
  }
  SIGNET_ASSIGN_OR_RETURN(Bytes digest, crypto::Digest(named.digest, message));
  SignInput input;
  switch (named.raw_form) {
    case RawForm::kRsaPkcs1:
      input.mechanism.type = CKM_RSA_PKCS;
      input.data.assign(hash->digest_info_prefix.begin(), hash->digest_info_prefix.end());
      input.data.insert(input.data.end(), digest.begin(), digest.end());
      break;
    case RawForm::kRsaPss:
      input.mechanism.type = CKM_RSA_PKCS_PSS;
      input.mechanism.pss = client::PssParams{hash->hash_mechanism, hash->mgf, digest.size()};
      input.data = std::move(digest);
      break;
    case RawForm::kEcdsa:
    case RawForm::kNone:
      input.mechanism.type = CKM_ECDSA;
      input.data = std::move(digest);
      break;
  }
  return input;
}

}  // namespace signet::cli

#include "cli/sign_input.h"

#include <string>

#include "crypto/digest.h"

namespace signet::cli {
namespace {

// DigestFormOf returns the mechanism of `row`'s family that signs a digest
// (CKM_RSA_PKCS, CKM_RSA_PKCS_PSS, CKM_ECDSA); nullptr for EdDSA, which
// has none.
const MechanismRow* DigestFormOf(const MechanismRow& row) {
  for (const MechanismRow& candidate : kMechanismTable) {
    if (candidate.family == row.family && SignsDigest(candidate)) return &candidate;
  }
  return nullptr;
}

}  // namespace

Result<SignInput> PrepareSignInput(const MechanismRow& named, client::Bytes message) {
  if (message.size() <= kInlineLimit) {
    return SignInput{client::Mechanism{named.type}, std::move(message)};
  }
  const MechanismRow* digest_form = DigestFormOf(named);
  if (digest_form == nullptr || named.digest == DigestAlg::kNone) {
    return MakeError(CKR_DATA_LEN_RANGE, std::string(named.cli_name) +
                                             " signs whole messages of at most " +
                                             std::to_string(kInlineLimit) + " bytes");
  }
  const DigestFacts& hash = FactsOf(named.digest);
  SIGNET_ASSIGN_OR_RETURN(Bytes digest, crypto::Digest(named.digest, message));
  SignInput input;
  input.mechanism.type = digest_form->type;
  switch (digest_form->family) {
    case MechanismFamily::kRsaPkcs1:
      // CKM_RSA_PKCS signs a DigestInfo: the hash's DER prefix, then the digest.
      input.data.assign(hash.digest_info().begin(), hash.digest_info().end());
      input.data.insert(input.data.end(), digest.begin(), digest.end());
      break;
    case MechanismFamily::kRsaPss:
      input.mechanism.pss = client::PssParams{hash.mechanism, hash.mgf, digest.size()};
      input.data = std::move(digest);
      break;
    default:
      input.data = std::move(digest);
      break;
  }
  return input;
}

}  // namespace signet::cli

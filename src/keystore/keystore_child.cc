// keystore_child: a helper program for the keystore's process-level tests.
// It runs token operations in a process of its own, so the tests can show
// that state survives process exit and SIGKILL.
//
//   keystore_child sign FILE PIN HANDLE MESSAGE_FILE SIGNATURE_OUT
//       log in, fetch the stored private key, sign MESSAGE_FILE's bytes
//       (RSA PKCS#1 v1.5 / ECDSA DER over SHA-256, or Ed25519).
//   keystore_child login FILE PIN
//       one user login attempt.
//   keystore_child stream FILE PIN
//       store keys forever; after each commit returns, print
//       "<handle> <sha256 of the secret, hex>" and flush.
//
// Exit status: 0 success, kExitPinIncorrect / kExitPinLocked for those
// errors (so the parent can tell them apart), 1 for anything else.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "base/hex.h"
#include "crypto/digest.h"
#include "crypto/sign.h"
#include "keystore/attribute_codec.h"
#include "keystore/keystore_child_protocol.h"
#include "keystore/token.h"

namespace signet::keystore {
namespace {

TokenOptions ChildOptions() {
  TokenOptions options;
  options.kdf.n = kChildScryptN;
  options.max_pin_failures = kChildMaxPinFailures;
  return options;
}

int Fail(const Error& error) {
  std::fprintf(stderr, "keystore_child: %s (0x%lx)\n", error.message.c_str(), error.code);
  for (const auto& [code, exit_code] : kChildExitCodes) {
    if (code == error.code) return exit_code;
  }
  return 1;
}

crypto::SignParams ParamsFor(crypto::KeyType type) {
  crypto::SignParams params;
  if (crypto::IsEdwards(type))
    params.scheme = crypto::SignScheme::kEddsa;
  else if (crypto::IsEc(type))
    params.scheme = crypto::SignScheme::kEcdsa;
  return params;
}

Result<std::unique_ptr<Token>> OpenAndLogin(const char* file, const char* pin) {
  SIGNET_ASSIGN_OR_RETURN(auto token, Token::Open(file, ChildOptions()));
  SIGNET_TRY(token->Login(UserType::kUser, AsBytes(pin)));
  return token;
}

int Sign(char** argv) {
  auto token = OpenAndLogin(argv[2], argv[3]);
  if (!token.ok()) return Fail(token.error());
  auto key = (*token)->FetchKey(std::stoll(argv[4]));
  if (!key.ok()) return Fail(key.error());
  if (!(*key)->private_key) return Fail(MakeError(CKR_KEY_TYPE_INCONSISTENT, "not a private key"));
  std::ifstream in(argv[5], std::ios::binary);
  Bytes message((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const crypto::PrivateKey& private_key = *(*key)->private_key;
  auto signature = crypto::Sign(private_key, ParamsFor(private_key.spec().type), message);
  if (!signature.ok()) return Fail(signature.error());
  std::ofstream out(argv[6], std::ios::binary);
  out.write(reinterpret_cast<const char*>(signature->data()),
            static_cast<std::streamsize>(signature->size()));
  return out.good() ? 0 : 1;
}

int Login(char** argv) {
  auto token = OpenAndLogin(argv[2], argv[3]);
  return token.ok() ? 0 : Fail(token.error());
}

// NextKey alternates random AES keys and fresh P-256 private keys.
Result<std::pair<AttributeMap, SecureBytes>> NextKey(int i) {
  if (i % 4 == 3) {
    SIGNET_ASSIGN_OR_RETURN(auto key, crypto::PrivateKey::Generate({crypto::KeyType::kEcP256}));
    SIGNET_ASSIGN_OR_RETURN(SecureBytes der, key.ToPkcs8Der());
    return std::pair{
        AttributeMap{{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)}, {CKA_KEY_TYPE, UlongBytes(CKK_EC)}},
        std::move(der)};
  }
  SIGNET_ASSIGN_OR_RETURN(SecureBytes secret, crypto::RandomBytes(32));
  return std::pair{
      AttributeMap{{CKA_CLASS, UlongBytes(CKO_SECRET_KEY)}, {CKA_KEY_TYPE, UlongBytes(CKK_AES)}},
      std::move(secret)};
}

int Stream(char** argv) {
  auto token = OpenAndLogin(argv[2], argv[3]);
  if (!token.ok()) return Fail(token.error());
  for (int i = 0;; ++i) {
    auto next = NextKey(i);
    if (!next.ok()) return Fail(next.error());
    auto handle = (*token)->CreateObject(next->first, &next->second);
    if (!handle.ok()) return Fail(handle.error());
    auto hash = crypto::Digest(crypto::DigestAlg::kSha256, next->second);
    if (!hash.ok()) return Fail(hash.error());
    std::printf("%lld %s\n", static_cast<long long>(*handle), ToHex(*hash).c_str());
    std::fflush(stdout);
  }
}

}  // namespace
}  // namespace signet::keystore

int main(int argc, char** argv) {
  using namespace signet::keystore;  // NOLINT
  std::string command = argc > 1 ? argv[1] : "";
  if (command == "sign" && argc == 7) return Sign(argv);
  if (command == "login" && argc == 4) return Login(argv);
  if (command == "stream" && argc == 4) return Stream(argv);
  std::fprintf(stderr, "usage: keystore_child sign|login|stream FILE PIN ...\n");
  return 2;
}

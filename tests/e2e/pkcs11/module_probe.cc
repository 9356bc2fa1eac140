// pkcs11_module_probe: a PKCS#11 application that links no OpenSSL, so it
// can tell whether libsignet-pkcs11.so loads libcrypto/libssl into its host.
// It loads the module (address from SIGNET_SOCKET / SIGNET_CONF), logs in,
// makes a P-256 key pair, signs MESSAGE with CKM_ECDSA_SHA256 and prints
//   openssl_loaded_at_init=yes|no
//   ec_point=<hex CKA_EC_POINT>
//   signature=<hex r||s>
//   openssl_loaded=yes|no
// for pkcs11_transport_test to check (and verify with OpenSSL). Exit 0 on
// success; otherwise 1 with the failing call and its CK_RV on stderr.
// usage: pkcs11_module_probe MODULE PIN MESSAGE
#include <p11-kit/pkcs11.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "base/hex.h"
#include "plain_app.h"

namespace {

using signet::e2e::Check;
using signet::e2e::LoadModule;
using signet::e2e::UserSessionOnFirstToken;

bool OpenSslLoaded() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("libcrypto.so") != std::string::npos ||
        line.find("libssl.so") != std::string::npos) {
      return true;
    }
  }
  return false;
}

int Run(const char* module, const std::string& pin, const std::string& message) {
  CK_FUNCTION_LIST_PTR p11 = LoadModule(module);
  if (p11 == nullptr) return 1;
  std::printf("openssl_loaded_at_init=%s\n", OpenSslLoaded() ? "yes" : "no");
  CK_SLOT_ID slot = 0;
  CK_SESSION_HANDLE session = CK_INVALID_HANDLE;
  if (!UserSessionOnFirstToken(p11, CKF_SERIAL_SESSION | CKF_RW_SESSION, pin, &slot, &session)) {
    return 1;
  }

  CK_BYTE p256[] = {0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07};
  CK_BBOOL yes = CK_TRUE;
  CK_ATTRIBUTE pub_template[] = {{CKA_EC_PARAMS, p256, sizeof p256},
                                 {CKA_VERIFY, &yes, sizeof yes}};
  CK_ATTRIBUTE priv_template[] = {{CKA_SIGN, &yes, sizeof yes}};
  CK_MECHANISM keygen = {CKM_EC_KEY_PAIR_GEN, nullptr, 0};
  CK_OBJECT_HANDLE pub = CK_INVALID_HANDLE, priv = CK_INVALID_HANDLE;
  if (!Check("C_GenerateKeyPair", p11->C_GenerateKeyPair(session, &keygen, pub_template, 2,
                                                         priv_template, 1, &pub, &priv))) {
    return 1;
  }
  std::vector<CK_BYTE> point(128);
  CK_ATTRIBUTE point_attr = {CKA_EC_POINT, point.data(), point.size()};
  if (!Check("C_GetAttributeValue", p11->C_GetAttributeValue(session, pub, &point_attr, 1))) {
    return 1;
  }
  point.resize(point_attr.ulValueLen);

  CK_MECHANISM sign = {CKM_ECDSA_SHA256, nullptr, 0};
  std::vector<CK_BYTE> data(message.begin(), message.end());
  std::vector<CK_BYTE> signature(64);
  CK_ULONG signature_len = signature.size();
  if (!Check("C_SignInit", p11->C_SignInit(session, &sign, priv)) ||
      !Check("C_Sign",
             p11->C_Sign(session, data.data(), data.size(), signature.data(), &signature_len))) {
    return 1;
  }
  signature.resize(signature_len);
  std::printf("ec_point=%s\nsignature=%s\n", signet::ToHex(point).c_str(),
              signet::ToHex(signature).c_str());
  std::printf("openssl_loaded=%s\n", OpenSslLoaded() ? "yes" : "no");
  return Check("C_Finalize", p11->C_Finalize(nullptr)) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s MODULE PIN MESSAGE\n", argv[0]);
    return 2;
  }
  return Run(argv[1], argv[2], argv[3]);
}

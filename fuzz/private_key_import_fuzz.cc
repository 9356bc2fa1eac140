// private_key_import_fuzz: the parsers a private key passes on its way onto
// a token (src/crypto/keys.h, private_key_import.cc): `signet import`'s
// PrivateKey::FromEncoded (PEM or DER, PKCS#8 or traditional), the
// daemon's FromPkcs8Der (C_UnwrapKey, stored keys), C_CreateObject's
// FromEcPrivateValue and FromRsaComponents, and PublicKey::FromDer.
//
// Input: byte 0 picks the parser; for the component forms, each part is a
// 2-byte big-endian length followed by that many bytes. Whatever parses
// must re-encode to PKCS#8 that parses again as the same key type, and
// give a public key.
#include <vector>

#include "crypto/keys.h"
#include "fuzz_target.h"

namespace {

using namespace signet::crypto;
using signet::ByteView;
using signet::SecureBytes;

// Parts splits `in` into length-prefixed parts (missing ones are empty).
std::vector<ByteView> Parts(ByteView in, std::size_t count) {
  std::vector<ByteView> out;
  std::size_t pos = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t len = 0;
    if (in.size() - pos >= 2) {
      len = (std::size_t{in[pos]} << 8) | in[pos + 1];
      pos += 2;
    } else {
      pos = in.size();
    }
    len = std::min(len, in.size() - pos);
    out.push_back(in.subspan(pos, len));
    pos += len;
  }
  return out;
}

void CheckKey(const signet::Result<PrivateKey>& key) {
  if (!key.ok()) return;
  signet::Result<SecureBytes> der = key->ToPkcs8Der();
  FUZZ_CHECK(der.ok());
  signet::Result<PrivateKey> again = PrivateKey::FromPkcs8Der(*der);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->spec().type == key->spec().type);
  FUZZ_CHECK(key->Public().ok());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  ByteView in(data + 1, size - 1);
  switch (data[0] % 5) {
    case 0:
      CheckKey(PrivateKey::FromEncoded(in));
      break;
    case 1:
      CheckKey(PrivateKey::FromPkcs8Der(in));
      break;
    case 2: {
      std::vector<ByteView> p = Parts(in, 2);
      CheckKey(PrivateKey::FromEcPrivateValue(p[0], p[1]));
      break;
    }
    case 3: {
      std::vector<ByteView> p = Parts(in, 8);
      CheckKey(PrivateKey::FromRsaComponents({p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]}));
      break;
    }
    case 4: {
      auto pub = PublicKey::FromDer(in);
      (void)pub;
      break;
    }
  }
  return 0;
}

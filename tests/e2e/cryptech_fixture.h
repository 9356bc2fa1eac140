// CryptechTest: a DaemonTest whose signetd also answers Cryptech's libhal
// RPC (docs/CRYPTECH.md) on DIR/hal.sock for the fixture's token, with
// helpers that check the listener's crypto with the openssl tool: digests,
// signature verification (RSA PKCS#1 v1.5 over a DigestInfo, ECDSA from
// libhal's raw r||s) and the keys openssl makes for pkey_load.
//
// Thread contract: the test's main thread only.
#pragma once

#include <memory>
#include <string>

#include "cryptech_client.h"
#include "daemon_fixture.h"

namespace signet::e2e {

// HalDigest: one of libhal's hash algorithms as a test sees it: its number,
// its digest length, its DER algorithm identifier (with NULL parameters, as
// a PKCS#1 DigestInfo carries it) and the openssl tool's name for it.
struct HalDigest {
  hal::Digest digest;
  std::uint32_t length;
  const char* algorithm_id_hex;
  const char* openssl_name;
};

// kHalDigests: every hash algorithm libhal's RPC names.
extern const HalDigest kHalDigests[7];

// HalDigestOf: kHalDigests' entry for `digest`.
const HalDigest& HalDigestOf(hal::Digest digest);

// DigestInfo: the DER DigestInfo (a SEQUENCE of the algorithm identifier
// and an OCTET STRING of the digest) an RSA pkey_sign takes as input.
Bytes DigestInfo(hal::Digest digest, ByteView hash);

class CryptechTest : public DaemonTest {
 protected:
  std::vector<std::string> DaemonArgs() override {
    return {"--cryptech-socket", HalSocket(), "--cryptech-token", kTokenLabel};
  }
  std::string HalSocket() const { return Path("hal.sock"); }

  // HalConnect opens a connection to the listener (asserting it connected
  // through EXPECT), logged in as the user when `login`.
  std::unique_ptr<HalConnection> HalConnect(bool login = true);
  std::unique_ptr<HalConnection> HalConnectTo(const std::string& socket, const std::string& pin,
                                              bool login);

  // OpensslDigest: `data` hashed by `openssl dgst`; an HMAC when `hmac_key`
  // is not empty.
  Bytes OpensslDigest(const HalDigest& digest, ByteView data, ByteView hmac_key = {});

  // OpensslVerify: does `openssl pkeyutl -verify` accept `signature` over
  // `hash` (a `digest` digest) for the SubjectPublicKeyInfo `spki`? An
  // ECDSA signature comes as libhal sends it, r||s, and is turned into DER
  // by `openssl asn1parse -genconf` on the way.
  bool OpensslVerify(ByteView spki, hal::Digest digest, ByteView hash, ByteView signature,
                     bool ecdsa);

  // OpensslKey writes a new private key by `openssl genpkey` with `args`
  // and returns its PKCS#8 DER; OpensslPublicKey the SPKI DER of a PKCS#8
  // or SPKI key; OpensslText what `openssl pkey -text` prints for an SPKI.
  Bytes OpensslKey(const std::vector<std::string>& args);
  Bytes OpensslPublicKey(ByteView der, bool is_public = false);
  std::string OpensslText(ByteView spki);

  // Scratch: a fresh path in the test's directory for a file of openssl's.
  std::string Scratch(const std::string& suffix);

 private:
  int scratch_files_ = 0;
};

}  // namespace signet::e2e

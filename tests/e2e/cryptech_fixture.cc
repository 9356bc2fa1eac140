#include "cryptech_fixture.h"

namespace signet::e2e {
namespace {

void WriteFile(const std::string& path, ByteView bytes) {
  WriteTextFile(path, std::string(bytes.begin(), bytes.end()));
}

std::string HexOf(ByteView bytes) {
  std::string hex = ToHex(bytes);
  std::erase(hex, ' ');
  return hex;
}

}  // namespace

// The identifiers are the standard ones (RFC 8017 A.2.4, RFC 5754 for the
// SHA-2 family); the openssl tool builds the same DigestInfo bytes.
const HalDigest kHalDigests[7] = {
    {hal::Digest::kSha1, 20, "300906052b0e03021a0500", "sha1"},
    {hal::Digest::kSha224, 28, "300d06096086480165030402040500", "sha224"},
    {hal::Digest::kSha256, 32, "300d06096086480165030402010500", "sha256"},
    {hal::Digest::kSha512_224, 28, "300d06096086480165030402050500", "sha512-224"},
    {hal::Digest::kSha512_256, 32, "300d06096086480165030402060500", "sha512-256"},
    {hal::Digest::kSha384, 48, "300d06096086480165030402020500", "sha384"},
    {hal::Digest::kSha512, 64, "300d06096086480165030402030500", "sha512"},
};

const HalDigest& HalDigestOf(hal::Digest digest) {
  for (const HalDigest& entry : kHalDigests) {
    if (entry.digest == digest) return entry;
  }
  ADD_FAILURE() << "no such digest " << static_cast<int>(digest);
  return kHalDigests[0];
}

Bytes DigestInfo(hal::Digest digest, ByteView hash) {
  const Bytes algorithm = Hex(HalDigestOf(digest).algorithm_id_hex);
  // Every DigestInfo here is short: one-byte DER lengths.
  const Bytes header = {0x30, static_cast<std::uint8_t>(algorithm.size() + 2 + hash.size())};
  const Bytes octets = {0x04, static_cast<std::uint8_t>(hash.size())};
  const Bytes info = Cat({header, algorithm, octets, Bytes(hash.begin(), hash.end())});
  return info;
}

std::unique_ptr<HalConnection> CryptechTest::HalConnect(bool login) {
  return HalConnectTo(HalSocket(), kUserPin, login);
}

std::unique_ptr<HalConnection> CryptechTest::HalConnectTo(const std::string& socket,
                                                          const std::string& pin, bool login) {
  auto connection = std::make_unique<HalConnection>(socket);
  EXPECT_TRUE(connection->connected()) << "cannot connect to " << socket;
  if (login && connection->connected()) {
    EXPECT_EQ(connection->Login(hal::User::kNormal, pin), 0u);
  }
  return connection;
}

std::string CryptechTest::Scratch(const std::string& suffix) {
  return Path("f" + std::to_string(++scratch_files_) + suffix);
}

Bytes CryptechTest::OpensslDigest(const HalDigest& digest, ByteView data, ByteView hmac_key) {
  const std::string in = Scratch(".in");
  WriteFile(in, data);
  std::vector<std::string> args = {"dgst", std::string("-") + digest.openssl_name, "-binary"};
  if (!hmac_key.empty()) {
    args.insert(args.end(), {"-mac", "HMAC", "-macopt", "hexkey:" + HexOf(hmac_key)});
  }
  args.push_back(in);
  ProgramResult result = OpenSsl(args);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  return Bytes(result.out.begin(), result.out.end());
}

bool CryptechTest::OpensslVerify(ByteView spki, hal::Digest digest, ByteView hash,
                                 ByteView signature, bool ecdsa) {
  const std::string key = Scratch(".spki"), in = Scratch(".hash"), sig = Scratch(".sig");
  WriteFile(key, spki);
  WriteFile(in, hash);
  if (ecdsa) {
    const std::size_t half = signature.size() / 2;
    const std::string conf = Scratch(".conf");
    WriteTextFile(conf, "asn1=SEQUENCE:sig\n[sig]\nr=INTEGER:0x" +
                            HexOf(signature.subspan(0, half)) + "\ns=INTEGER:0x" +
                            HexOf(signature.subspan(half)) + "\n");
    ProgramResult der = OpenSsl({"asn1parse", "-genconf", conf, "-out", sig, "-noout"});
    EXPECT_EQ(der.exit_code, 0) << der.err;
  } else {
    WriteFile(sig, signature);
  }
  ProgramResult verified = OpenSsl({"pkeyutl", "-verify", "-pubin", "-keyform", "DER", "-inkey",
                                    key, "-in", in, "-sigfile", sig, "-pkeyopt",
                                    std::string("digest:") + HalDigestOf(digest).openssl_name});
  return verified.exit_code == 0 &&
         verified.out.find("Signature Verified Successfully") != std::string::npos;
}

Bytes CryptechTest::OpensslKey(const std::vector<std::string>& args) {
  const std::string out = Scratch(".p8");
  std::vector<std::string> argv = {"genpkey"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"-outform", "DER", "-out", out});
  ProgramResult made = OpenSsl(argv);
  EXPECT_EQ(made.exit_code, 0) << made.err;
  return ReadBinaryFile(out);
}

Bytes CryptechTest::OpensslPublicKey(ByteView der, bool is_public) {
  const std::string in = Scratch(".der"), out = Scratch(".spki");
  WriteFile(in, der);
  std::vector<std::string> argv = {"pkey", "-inform", "DER", "-in", in};
  if (is_public) argv.push_back("-pubin");
  argv.insert(argv.end(), {"-pubout", "-outform", "DER", "-out", out});
  ProgramResult made = OpenSsl(argv);
  EXPECT_EQ(made.exit_code, 0) << made.err;
  return ReadBinaryFile(out);
}

std::string CryptechTest::OpensslText(ByteView spki) {
  const std::string in = Scratch(".spki");
  WriteFile(in, spki);
  ProgramResult text = OpenSsl({"pkey", "-pubin", "-inform", "DER", "-in", in, "-text", "-noout"});
  EXPECT_EQ(text.exit_code, 0) << text.err;
  return text.out;
}

}  // namespace signet::e2e

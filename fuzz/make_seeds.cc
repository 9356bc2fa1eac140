// make_seeds: writes the seed corpus of every fuzz target, a few valid
// inputs each, under the directory given as argv[1] (fuzz/corpus). Run
// once by hand when a target's input format changes:
//   cmake --build build --target fuzz_make_seeds && build/fuzz/fuzz_make_seeds fuzz/corpus
// Keys are fresh each run, so the files differ between runs; any run's
// output is a good corpus.
#include <openssl/core_names.h>
#include <openssl/encoder.h>
#include <openssl/evp.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "crypto/keys.h"
#include "crypto/ossl_ptr.h"
#include "keystore/attribute_codec.h"
#include "keystore/token.h"
#include "wire_requests.h"

namespace {

using namespace signet;
using fuzz::AttributeList;
using fuzz::Bool;
using fuzz::Payload;
using fuzz::Text;
using fuzz::Ulong;
namespace fs = std::filesystem;

fs::path g_root;

void Write(const std::string& target, const std::string& name, const std::vector<std::uint8_t>& bytes) {
  fs::create_directories(g_root / target);
  std::ofstream out(g_root / target / name, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "cannot write %s/%s\n", target.c_str(), name.c_str());
    std::exit(1);
  }
}

std::vector<std::uint8_t> Prefixed(std::uint8_t first, std::span<const std::uint8_t> rest) {
  std::vector<std::uint8_t> out(rest.size() + 1);
  out[0] = first;
  std::copy(rest.begin(), rest.end(), out.begin() + 1);
  return out;
}

// Frames concatenates framed payloads.
std::vector<std::uint8_t> Frames(const std::vector<Payload>& payloads) {
  std::vector<std::uint8_t> out;
  for (const Payload& p : payloads) {
    auto header = proto::EncodeFrameHeader(static_cast<std::uint32_t>(p.size()));
    out.insert(out.end(), header.begin(), header.end());
    out.insert(out.end(), p.begin(), p.end());
  }
  return out;
}

void FrameReaderSeeds() {
  std::vector<std::uint8_t> hello{'h', 'e', 'l', 'l', 'o'};
  Write("frame_reader", "two_frames", Prefixed(16, Prefixed(7, Frames({hello, {}, {'x'}}))));
  auto partial = Prefixed(3, Prefixed(1, Frames({hello, hello})));
  partial.resize(partial.size() - 2);
  Write("frame_reader", "partial", partial);
  Write("frame_reader", "too_large", {0, 5, 0, 0, 0, 3, 'a', 'b', 'c', 0, 1, 0, 0});
  Payload big(300, 0x5a);
  Write("frame_reader", "big_payload", Prefixed(6, Prefixed(200, Frames({big, hello}))));
}

Payload Simple(wire::RequestBody type) {
  switch (type) {
    case wire::RequestBody::GetInfoRequest:
      return fuzz::MakeRequest(type, [](auto& fbb) { return wire::CreateGetInfoRequest(fbb); });
    default:
      return fuzz::MakeRequest(type, [](auto& fbb) { return wire::CreateGetStatsRequest(fbb); });
  }
}

flatbuffers::Offset<wire::Mechanism> Mech(flatbuffers::FlatBufferBuilder& fbb, CK_MECHANISM_TYPE t) {
  return wire::CreateMechanism(fbb, t);
}

void DispatchSeeds() {
  using RB = wire::RequestBody;
  const std::uint64_t s = fuzz::kSessionRef;
  const std::vector<std::uint8_t> msg = Text("message to sign");
  auto sign = fuzz::MakeRequest(RB::SignRequest, [&](auto& fbb) {
    return wire::CreateSignRequest(fbb, s, fuzz::kPrivateKeyRef, Mech(fbb, CKM_ECDSA_SHA256),
                                   fbb.CreateVector(msg));
  });
  auto sign_batch = fuzz::MakeRequest(RB::SignBatchRequest, [&](auto& fbb) {
    std::vector<flatbuffers::Offset<wire::Blob>> inputs;
    for (int i = 0; i < 3; ++i) inputs.push_back(wire::CreateBlob(fbb, fbb.CreateVector(msg)));
    return wire::CreateSignBatchRequest(fbb, s, fuzz::kPrivateKeyRef, Mech(fbb, CKM_ECDSA),
                                        fbb.CreateVector(inputs));
  });
  auto verify = fuzz::MakeRequest(RB::VerifyRequest, [&](auto& fbb) {
    return wire::CreateVerifyRequest(fbb, s, fuzz::kPublicKeyRef, Mech(fbb, CKM_ECDSA_SHA256),
                                     fbb.CreateVector(msg), fbb.CreateVector(Payload(64, 1)));
  });
  auto get_attrs = fuzz::MakeRequest(RB::GetAttributeValueRequest, [&](auto& fbb) {
    std::vector<std::uint64_t> types{CKA_CLASS, CKA_LABEL, CKA_EC_POINT, CKA_VALUE, CKA_ID};
    return wire::CreateGetAttributeValueRequest(fbb, s, fuzz::kPublicKeyRef,
                                                fbb.CreateVector(types));
  });
  auto get_private = fuzz::MakeRequest(RB::GetAttributeValueRequest, [&](auto& fbb) {
    std::vector<std::uint64_t> types{CKA_VALUE, CKA_SENSITIVE, CKA_EXTRACTABLE};
    return wire::CreateGetAttributeValueRequest(fbb, s, fuzz::kPrivateKeyRef,
                                                fbb.CreateVector(types));
  });
  auto encrypt = fuzz::MakeRequest(RB::EncryptRequest, [&](auto& fbb) {
    auto gcm = wire::CreateGcmParams(fbb, fbb.CreateVector(Payload(12, 7)),
                                     fbb.CreateVector(Text("aad")), 128);
    auto m = wire::CreateMechanism(fbb, CKM_AES_GCM, 0, gcm);
    return wire::CreateEncryptRequest(fbb, s, fuzz::kSecretKeyRef, m, fbb.CreateVector(msg));
  });
  auto decrypt = fuzz::MakeRequest(RB::DecryptRequest, [&](auto& fbb) {
    auto gcm = wire::CreateGcmParams(fbb, fbb.CreateVector(Payload(12, 7)), 0, 128);
    auto m = wire::CreateMechanism(fbb, CKM_AES_GCM, 0, gcm);
    return wire::CreateDecryptRequest(fbb, s, fuzz::kSecretKeyRef, m,
                                      fbb.CreateVector(Payload(40, 3)));
  });
  auto digest = fuzz::MakeRequest(RB::DigestRequest, [&](auto& fbb) {
    return wire::CreateDigestRequest(fbb, s, Mech(fbb, CKM_SHA256), fbb.CreateVector(msg));
  });
  auto random = fuzz::MakeRequest(RB::GenerateRandomRequest, [&](auto& fbb) {
    return wire::CreateGenerateRandomRequest(fbb, s, 32);
  });
  auto find_all = fuzz::FindObjectsRequest(s, {});
  auto session_info = fuzz::MakeRequest(RB::GetSessionInfoRequest, [&](auto& fbb) {
    return wire::CreateGetSessionInfoRequest(fbb, s);
  });
  auto create_data = fuzz::CreateObjectRequest(
      s, {{CKA_CLASS, Ulong(CKO_DATA)}, {CKA_TOKEN, Bool(false)}, {CKA_LABEL, Text("d")},
          {CKA_VALUE, Text("value")}});
  auto create_token_data = fuzz::CreateObjectRequest(
      s, {{CKA_CLASS, Ulong(CKO_DATA)}, {CKA_TOKEN, Bool(true)}, {CKA_LABEL, Text("t")}});
  auto set_label = fuzz::MakeRequest(RB::SetAttributeValueRequest, [&](auto& fbb) {
    return wire::CreateSetAttributeValueRequest(
        fbb, s, fuzz::kDataObjectRef, fuzz::Attributes(fbb, {{CKA_LABEL, Text("renamed")}}));
  });
  auto copy = fuzz::MakeRequest(RB::CopyObjectRequest, [&](auto& fbb) {
    return wire::CreateCopyObjectRequest(
        fbb, s, fuzz::kDataObjectRef, fuzz::Attributes(fbb, {{CKA_TOKEN, Bool(false)}}));
  });
  auto destroy = fuzz::MakeRequest(RB::DestroyObjectRequest, [&](auto& fbb) {
    return wire::CreateDestroyObjectRequest(fbb, s, fuzz::kPublicKeyRef);
  });
  const auto p256 = crypto::EcParamsDer(crypto::KeyType::kEcP256);
  auto keygen = fuzz::GenerateKeyPairRequest(
      s, CKM_EC_KEY_PAIR_GEN,
      {{CKA_TOKEN, Bool(false)}, {CKA_EC_PARAMS, {p256.begin(), p256.end()}}},
      {{CKA_TOKEN, Bool(false)}, {CKA_SIGN, Bool(true)}, {CKA_LABEL, Text("k")}});
  auto ed_keygen = fuzz::GenerateKeyPairRequest(
      s, CKM_EC_EDWARDS_KEY_PAIR_GEN,
      {{CKA_TOKEN, Bool(true)}, {CKA_LABEL, Text("ed")}},
      {{CKA_TOKEN, Bool(true)}, {CKA_LABEL, Text("ed")}, {CKA_SIGN, Bool(true)}});
  auto aes_keygen = fuzz::GenerateKeyRequest(
      s, CKM_AES_KEY_GEN, {{CKA_VALUE_LEN, Ulong(16)}, {CKA_TOKEN, Bool(false)}});
  auto wrap = fuzz::MakeRequest(RB::WrapKeyRequest, [&](auto& fbb) {
    return wire::CreateWrapKeyRequest(fbb, s, Mech(fbb, CKM_AES_KEY_WRAP_KWP),
                                      fuzz::kSecretKeyRef, fuzz::kPrivateKeyRef);
  });
  auto unwrap = fuzz::MakeRequest(RB::UnwrapKeyRequest, [&](auto& fbb) {
    return wire::CreateUnwrapKeyRequest(
        fbb, s, Mech(fbb, CKM_AES_KEY_WRAP_KWP), fuzz::kSecretKeyRef,
        fbb.CreateVector(Payload(48, 9)),
        fuzz::Attributes(fbb, {{CKA_CLASS, Ulong(CKO_PRIVATE_KEY)},
                               {CKA_KEY_TYPE, Ulong(CKK_EC)},
                               {CKA_TOKEN, Bool(false)}}));
  });
  auto wrong_login = fuzz::LoginRequest(s, CKU_USER, "wrong-pin");
  auto so_login = fuzz::LoginRequest(s, CKU_SO, "not-the-so-pin");
  auto logout = fuzz::MakeRequest(RB::LogoutRequest, [&](auto& fbb) {
    return wire::CreateLogoutRequest(fbb, s);
  });
  auto close = fuzz::MakeRequest(RB::CloseSessionRequest, [&](auto& fbb) {
    return wire::CreateCloseSessionRequest(fbb, s);
  });
  auto init_token = fuzz::MakeRequest(RB::InitTokenRequest, [&](auto& fbb) {
    return wire::CreateInitTokenRequest(fbb, 1, fbb.CreateVector(Text("new-so-pin")),
                                        fbb.CreateString("made by a stranger"),
                                        fbb.CreateVector(Text("new-user-pin")));
  });
  auto open_ro = fuzz::OpenSessionRequest(0, CKF_SERIAL_SESSION);

  struct Seed {
    const char* name;
    std::uint8_t login;
    std::vector<Payload> frames;
  };
  const Seed seeds[] = {
      {"info_stats", 0, {Simple(RB::GetInfoRequest), Simple(RB::GetStatsRequest)}},
      {"public_reads", 0, {find_all, get_attrs, session_info, digest, random, verify}},
      {"public_writes", 0, {create_data, create_token_data, set_label, copy, destroy}},
      {"wrong_pins", 0, {wrong_login, so_login, open_ro, logout}},
      {"init_token_stranger", 0, {init_token}},
      {"init_token_admin", 2, {init_token}},
      {"sign", 1, {sign, sign_batch, verify, get_private}},
      {"symmetric", 1, {encrypt, decrypt, wrap, unwrap}},
      {"keygen", 1, {keygen, ed_keygen, aes_keygen, find_all}},
      {"objects", 1, {create_data, set_label, copy, get_attrs, destroy, find_all}},
      {"logout_close", 1, {logout, sign, close, sign}},
  };
  for (const Seed& seed : seeds) {
    Write("request_dispatch", seed.name, Prefixed(seed.login, Frames(seed.frames)));
  }
}

void AttributeCodecSeeds() {
  using keystore::AttributeMap;
  const AttributeMap maps[] = {
      {},
      {{CKA_CLASS, UlongBytes(CKO_DATA)}, {CKA_LABEL, {'x'}}},
      {{CKA_CLASS, UlongBytes(CKO_PUBLIC_KEY)}, {CKA_TOKEN, {1}}, {CKA_LABEL, {'k', 'e', 'y'}},
       {CKA_ID, {1, 2, 3, 4}}, {CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)}},
      {{CKA_VALUE, {}}, {CKA_VENDOR_DEFINED + 7, {0xff, 0xfe}}},
  };
  int n = 0;
  for (const AttributeMap& map : maps) {
    auto encoded = keystore::EncodeAttributes(map);
    Write("attribute_codec", "map" + std::to_string(n++), *encoded);
  }
}

std::vector<std::uint8_t> Encode(EVP_PKEY* pkey, int selection, const char* format,
                                 const char* structure) {
  crypto::OsslEncoderCtxPtr ctx(
      OSSL_ENCODER_CTX_new_for_pkey(pkey, selection, format, structure, nullptr));
  unsigned char* data = nullptr;
  std::size_t len = 0;
  if (!ctx || !OSSL_ENCODER_to_data(ctx.get(), &data, &len)) {
    std::fprintf(stderr, "encoding %s %s failed\n", format, structure ? structure : "");
    std::exit(1);
  }
  std::vector<std::uint8_t> out(data, data + len);
  OPENSSL_free(data);
  return out;
}

std::vector<std::uint8_t> BnParam(EVP_PKEY* pkey, const char* name) {
  BIGNUM* bn = nullptr;
  if (!EVP_PKEY_get_bn_param(pkey, name, &bn)) return {};
  std::vector<std::uint8_t> out(static_cast<std::size_t>(BN_num_bytes(bn)));
  BN_bn2bin(bn, out.data());
  BN_clear_free(bn);
  return out;
}

void AppendPart(std::vector<std::uint8_t>& out, const std::vector<std::uint8_t>& part) {
  out.push_back(static_cast<std::uint8_t>(part.size() >> 8));
  out.push_back(static_cast<std::uint8_t>(part.size()));
  out.insert(out.end(), part.begin(), part.end());
}

void PrivateKeySeeds() {
  const char* kTarget = "private_key_import";
  const int kKeypair = EVP_PKEY_KEYPAIR;
  for (const char* spec : {"ec:p256", "ed25519", "rsa:1024"}) {
    auto key = crypto::PrivateKey::Generate(*crypto::ParseKeySpec(spec), {.allow_weak_rsa = true});
    if (!key.ok()) {
      std::fprintf(stderr, "%s: %s\n", spec, key.error().message.c_str());
      std::exit(1);
    }
    EVP_PKEY* pkey = key->get0_pkey();
    std::string base = spec;
    for (char& c : base) c = c == ':' ? '_' : c;
    Write(kTarget, base + "_pkcs8_pem", Prefixed(0, Encode(pkey, kKeypair, "PEM", "PrivateKeyInfo")));
    Write(kTarget, base + "_pkcs8_der", Prefixed(1, Encode(pkey, kKeypair, "DER", "PrivateKeyInfo")));
    Write(kTarget, base + "_spki_der",
          Prefixed(4, Encode(pkey, EVP_PKEY_PUBLIC_KEY, "DER", "SubjectPublicKeyInfo")));
    if (base != "ed25519") {
      Write(kTarget, base + "_traditional_pem",
            Prefixed(0, Encode(pkey, kKeypair, "PEM", "type-specific")));
    }
    if (base == "ec_p256") {
      std::vector<std::uint8_t> in{2};
      AppendPart(in, crypto::EcParamsDer(crypto::KeyType::kEcP256));
      AppendPart(in, BnParam(pkey, OSSL_PKEY_PARAM_PRIV_KEY));
      Write(kTarget, base + "_components", in);
    }
    if (base == "rsa_1024") {
      std::vector<std::uint8_t> in{3};
      for (const char* p : {OSSL_PKEY_PARAM_RSA_N, OSSL_PKEY_PARAM_RSA_E, OSSL_PKEY_PARAM_RSA_D,
                            OSSL_PKEY_PARAM_RSA_FACTOR1, OSSL_PKEY_PARAM_RSA_FACTOR2,
                            OSSL_PKEY_PARAM_RSA_EXPONENT1, OSSL_PKEY_PARAM_RSA_EXPONENT2,
                            OSSL_PKEY_PARAM_RSA_COEFFICIENT1}) {
        AppendPart(in, BnParam(pkey, p));
      }
      Write(kTarget, base + "_components", in);
    }
  }
}

void ConfigSeeds() {
  Write("module_config", "unix", Text("# signet\nsocket = /run/signet/signetd.sock\ntimeout = 30\n"));
  Write("module_config", "tcp",
        Text("socket = tcp://[::1]:7000\ntls_ca = /etc/signet/ca.pem\ntls_cert = c.pem\n"
             "tls_key = c.key\ntls_server_name = hsm.example\n"));
  Write("module_config", "unix_prefix", Text("socket=unix:/tmp/s.sock # comment\r\ntimeout=0\n"));
  Write("module_config", "bad_line", Text("socket /tmp/x\n"));
}

void TokenSeeds(const char* name, bool with_keys) {
  fs::path dir = fs::temp_directory_path() / ("signet-seeds-" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::path file = dir / "t.token";
  keystore::TokenOptions options;
  options.kdf.n = 1u << 10;
  {
    auto token = keystore::Token::Create(file, "seed token", AsBytes("so-pin"),
                                         AsBytes(with_keys ? "user-pin" : ""), options);
    if (!token.ok()) {
      std::fprintf(stderr, "token: %s\n", token.error().message.c_str());
      std::exit(1);
    }
    if (with_keys) {
      (void)(*token)->Login(keystore::UserType::kUser, AsBytes("user-pin"));
      auto key = crypto::PrivateKey::Generate(*crypto::ParseKeySpec("ec:p256"));
      auto der = key->ToPkcs8Der();

      auto priv = (*token)->CreateObject(
          {{CKA_CLASS, UlongBytes(CKO_PRIVATE_KEY)}, {CKA_KEY_TYPE, UlongBytes(CKK_EC)},
           {CKA_LABEL, {'k'}}, {CKA_ID, {'k'}}},
          &*der);
      auto pub = (*token)->CreateObject(
          {{CKA_CLASS, UlongBytes(CKO_PUBLIC_KEY)}, {CKA_KEY_TYPE, UlongBytes(CKK_EC)},
           {CKA_LABEL, {'k'}}, {CKA_ID, {'k'}}},
          nullptr);
      auto data = (*token)->CreateObject({{CKA_CLASS, UlongBytes(CKO_DATA)}}, nullptr);
      if (!priv.ok() || !pub.ok() || !data.ok()) {
        std::fprintf(stderr, "token objects failed\n");
        std::exit(1);
      }
    }
  }
  std::ifstream in(file, std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  Write("token_open", name, bytes);
  fs::remove_all(dir);
}

}  // namespace

// RingSeeds: rings as ring_reader_fuzz reads them (its header says how).
void RingSeeds() {
  constexpr std::size_t kSlots = 64;
  auto ring = [&](std::uint32_t tail, std::vector<std::uint8_t> queue,
                  std::vector<std::array<std::uint8_t, 3>> slots, std::size_t payload_bytes) {
    std::vector<std::uint8_t> out = {static_cast<std::uint8_t>(tail), 0, 0, 0};
    queue.resize(kSlots);
    out.insert(out.end(), queue.begin(), queue.end());
    slots.resize(kSlots);
    for (const auto& s : slots) out.insert(out.end(), s.begin(), s.end());
    for (std::size_t i = 0; i < payload_bytes; ++i) out.push_back(static_cast<std::uint8_t>(i));
    return out;
  };
  // Two requests in slots 0 and 1 (state 1: submitted), 5 and 64 bytes.
  Write("ring_reader", "two_requests", ring(2, {0, 1}, {{1, 5, 0}, {1, 64, 0}}, 128));
  Write("ring_reader", "empty", ring(0, {}, {}, 0));
  Write("ring_reader", "index_out_of_range", ring(1, {200}, {}, 0));
  Write("ring_reader", "not_submitted", ring(1, {3}, {{0}, {0}, {0}, {2, 4, 0}}, 0));
  Write("ring_reader", "length_too_large", ring(1, {0}, {{1, 0xff, 0xff}}, 64));
  Write("ring_reader", "tail_past_slots", ring(65, {}, {}, 0));
  Write("ring_reader", "same_slot_twice", ring(2, {0, 0}, {{1, 8, 0}}, 64));
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  g_root = argv[1];
  FrameReaderSeeds();
  DispatchSeeds();
  AttributeCodecSeeds();
  PrivateKeySeeds();
  ConfigSeeds();
  RingSeeds();
  TokenSeeds("fresh", false);
  TokenSeeds("with_keys", true);
  std::printf("seeds written under %s\n", g_root.c_str());
  return 0;
}

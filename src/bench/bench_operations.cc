#include "bench/bench_operations.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "signet/protocol.hpp"

namespace signet::bench {
namespace {

using K = BenchOperationKind;
constexpr crypto::KeySpec kNoKey{};

constexpr std::array kOperations = {
    BenchOperation{"aes-gcm-1k", "aes_gcm_1k", K::kEncrypt, CKM_AES_GCM, kNoKey, 1024},
    BenchOperation{"aes-gcm-16k", "aes_gcm_16k", K::kEncrypt, CKM_AES_GCM, kNoKey, 16384},
    BenchOperation{"aes-cbc-1k", "aes_cbc_1k", K::kEncrypt, CKM_AES_CBC, kNoKey, 1024},
    BenchOperation{"aes-cbc-16k", "aes_cbc_16k", K::kEncrypt, CKM_AES_CBC, kNoKey, 16384},
    BenchOperation{"hmac-sha256-1k", "hmac_sha256_1k", K::kMac, CKM_SHA256_HMAC, kNoKey, 1024},
    BenchOperation{"rsa2048-oaep-decrypt", "rsa_2048_oaep_dec", K::kDecrypt, CKM_RSA_PKCS_OAEP,
                   crypto::KeySpec{crypto::KeyType::kRsa, 2048}, 0},
    BenchOperation{"ecdh-p256", "ecdh_p256", K::kDerive, CKM_ECDH1_DERIVE,
                   crypto::KeySpec{crypto::KeyType::kEcP256, 0}, 0},
    BenchOperation{"x25519", "x25519", K::kDerive, CKM_ECDH1_DERIVE,
                   crypto::KeySpec{crypto::KeyType::kX25519, 0}, 0},
};

bool SameName(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

std::span<const BenchOperation> AllBenchOperations() { return kOperations; }

Bytes RawEcPoint(Bytes point) {
  if (point.size() > 2 && point[0] == 0x04 && point[1] == point.size() - 2) {
    point.erase(point.begin(), point.begin() + 2);
  }
  return point;
}

const BenchOperation* FindBenchOperation(std::string_view name) {
  for (const BenchOperation& op : kOperations) {
    if (SameName(name, op.id) || SameName(name, op.label)) return &op;
  }
  return nullptr;
}

}  // namespace signet::bench

// Known-answer vectors for the start-up self-tests (self_test.cc). Each
// comment names the published source; the two signature-verify vectors were
// made with the `openssl` command-line tool as an independent signer.
// Included only by self_test.cc and its tests.
#pragma once

#include "crypto/self_test_internal.h"

namespace signet::crypto::internal {

// FIPS 180-2 Appendix A/B/C ("abc") and FIPS 180-1 Appendix A for SHA-1.
inline constexpr DigestVector kDigestVectors[] = {
    {"SHA-1 abc", DigestAlg::kSha1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
    {"SHA-256 abc", DigestAlg::kSha256, "abc",
     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"SHA-384 abc", DigestAlg::kSha384, "abc",
     "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded163"
     "1a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"},
    {"SHA-512 abc", DigestAlg::kSha512, "abc",
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
     "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"},
};

// McGrew & Viega, "The Galois/Counter Mode of Operation", test case 16
// (AES-256, 96-bit IV, AAD, 60-byte plaintext).
inline constexpr GcmVector kGcmVectors[] = {
    {"AES-256-GCM test case 16", "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
     "cafebabefacedbaddecaf888", "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
     "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
     "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
     "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
     "76fc6ece0f4e1768cddf8853bb2d551b"},
};

// RFC 5649 section 6: both examples (192-bit KEK, 20- and 7-byte keys).
inline constexpr KeyWrapVector kKeyWrapVectors[] = {
    {"AES-KWP RFC 5649 20-byte key", "5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8",
     "c37b7e6492584340bed12207808941155068f738",
     "138bdeaa9b8fa7fc61f97742e72248ee5ae6ae5360d1ae6a5f54f373fa543b6a"},
    {"AES-KWP RFC 5649 7-byte key", "5840df6e29b02af1ab493b705bf16ea1ae8338f4dcc176a8",
     "466f7250617369", "afbeb0f07dfbf5419200f2ccb50bb24f"},
};

// RFC 8032 section 7.1, TEST 1-3.
inline constexpr Ed25519Vector kEd25519Vectors[] = {
    {"Ed25519 RFC 8032 test 1", "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
     "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
    {"Ed25519 RFC 8032 test 2", "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
     "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
    {"Ed25519 RFC 8032 test 3", "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
     "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"},
};

// Signature-verify vectors. Made once with OpenSSL 3.0.19's CLI:
//   openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa.pem
//   openssl pkey -in rsa.pem -pubout -outform DER          (spki_hex)
//   printf '<message>' | openssl dgst -sha256 -sign rsa.pem (signature_hex)
// and likewise with `-algorithm EC -pkeyopt ec_paramgen_curve:P-256`. The
// private keys were then discarded.
inline constexpr SignatureVector kSignatureVectors[] = {
    {"RSA-2048 PKCS#1 v1.5 SHA-256 verify", SignScheme::kRsaPkcs1, DigestAlg::kSha256,
     "30820122300d06092a864886f70d01010105000382010f003082010a0282010100bb0e4d6a835f7d60a28863"
     "ecb7216272451f26692d3d3d93898d8a40a80805934529bd46c09ed350e1f7c8fbade413d023aa67f11544e502"
     "05bd0a9d783423ecb5d74d0b514828027ea04060bddebcff69d787f3826b8e12f361994069043fe9c63455ddaa"
     "a724af27f632abad5b7e7ff2cf0f084c5be4bfadb69922edb5726a1abfc346e64c38ad27c3cea58ac88fb9aaa6"
     "c64ee7ae911c8a123aed59675840f156e0ccaf15ce930d9e8f0bc60997c123cc047ee0bc5cd0068956b05208be"
     "835c64cea4a023df33f9b5f25ebb10bafbb6408d8a8118998f229f0c55cb32c74cbcedf29dc49edd302ea6cae2"
     "9ecdd0be4150923d5259385026f9a66379c4f7fd0203010001",
     "signet RSA PKCS#1 v1.5 self-test",
     "8685f2671d13ec69bf48eb08fbd32ae0f999b0e69bf9c61a03e6711a410377dc22980546702a283f40b4870d85"
     "fce80be4c6026f0c136784e26c03f406b2f891ff8282ffbe9c7c11bc6ca77e9d815981f6fea6764999eab2d999"
     "d949c48bea8b0dff0dd15c3bf50b07309ea6d4374a2ad692235ae1414b1ec20bac65d7bf26da28caad748b2f35"
     "3390cb1447d1f1ca7713ddd843c1ba28fbb04e4693373a25fd0b29c9826bc519a5e423bbe646ded9187d917725"
     "53c6e166ea39b554c03c278c036f03bc9a3a4011b63f2ef8a2f028a508cbc6d83b41f3a9d9543ce1579c5b8a8e"
     "2fff79799833169cd49544a2e54479f853309c95588325075231848fb397b0"},
    {"ECDSA P-256 SHA-256 verify", SignScheme::kEcdsa, DigestAlg::kSha256,
     "3059301306072a8648ce3d020106082a8648ce3d03010703420004bf0a7d217ed259045c942f853c2271a1dd1e"
     "7d2629f8d9f9d73d3fcdaef791a4e5632d46b0e41b42a842c44660c32b3d4e6f9b2d3be5e3360b834b52e2c702"
     "c5",
     "signet ECDSA P-256 self-test",
     "304502206f59cd5115b6cad5807595f6b9ff29e067793150c007642d609a866ff0239631022100dc451ee7aa8a"
     "e5fef5ee47dbc28d8241a9248ce5ed922b10ed238c12aafacbce"},
};

}  // namespace signet::crypto::internal

#include "pkcs11/abi.h"

#include <gtest/gtest.h>

#include <cstring>

#include "pkcs11/pkcs11_v3.h"

namespace signet::pkcs11 {
namespace {

TEST(WriteOutput, LengthQueryTooSmallAndCopy) {
  const std::uint8_t data[] = {1, 2, 3};
  CK_ULONG len = 0;
  EXPECT_EQ(WriteOutput(data, nullptr, &len), CKR_OK);
  EXPECT_EQ(len, 3u);
  CK_BYTE out[3] = {};
  len = 2;
  EXPECT_EQ(WriteOutput(data, out, &len), CKR_BUFFER_TOO_SMALL);
  EXPECT_EQ(len, 3u);
  EXPECT_TRUE(KeepsOperation(CKR_BUFFER_TOO_SMALL, out));
  len = 3;
  EXPECT_EQ(WriteOutput(data, out, &len), CKR_OK);
  EXPECT_EQ(std::memcmp(out, data, 3), 0);
  EXPECT_FALSE(KeepsOperation(CKR_OK, out));
  EXPECT_EQ(WriteOutput(data, out, nullptr), CKR_ARGUMENTS_BAD);
}

TEST(PaddedStrings, PadAndTrim) {
  unsigned char field[8];
  PadCopy("abc", field, sizeof(field));
  EXPECT_EQ(std::memcmp(field, "abc     ", 8), 0);
  EXPECT_EQ(TrimPadded(field, sizeof(field)), "abc");
  PadCopy("0123456789", field, sizeof(field));
  EXPECT_EQ(TrimPadded(field, sizeof(field)), "01234567");
}

TEST(ToTemplate, RejectsNullsAndUnknownArrays) {
  EXPECT_EQ(ToTemplate(nullptr, 1).error().code, CKR_ARGUMENTS_BAD);
  CK_ATTRIBUTE null_value = {CKA_LABEL, nullptr, 4};
  EXPECT_EQ(ToTemplate(&null_value, 1).error().code, CKR_ARGUMENTS_BAD);
  CK_ATTRIBUTE unknown_array = {CKF_ARRAY_ATTRIBUTE | 0x999, nullptr, 0};
  EXPECT_EQ(ToTemplate(&unknown_array, 1).error().code, CKR_ATTRIBUTE_TYPE_INVALID);
  CK_BYTE odd[3] = {};
  CK_ATTRIBUTE not_attributes = {CKA_WRAP_TEMPLATE, odd, sizeof odd};
  EXPECT_EQ(ToTemplate(&not_attributes, 1).error().code, CKR_ATTRIBUTE_VALUE_INVALID);
  CK_BBOOL yes = CK_TRUE;
  CK_ATTRIBUTE sign = {CKA_SIGN, &yes, sizeof(yes)};
  Result<client::Template> ok = ToTemplate(&sign, 1);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)[0].value, client::Bytes{1});
}

TEST(ToTemplate, TemplateAttributesTravelInTheirByteForm) {
  CK_BBOOL yes = CK_TRUE;
  CK_ATTRIBUTE nested[] = {{CKA_EXTRACTABLE, &yes, sizeof yes}};
  CK_ATTRIBUTE wrap = {CKA_WRAP_TEMPLATE, nested, sizeof nested};
  Result<client::Template> got = ToTemplate(&wrap, 1);
  ASSERT_TRUE(got.ok()) << got.error().message;
  auto decoded = DecodeAttributeArray((*got)[0].value);
  ASSERT_TRUE(decoded.has_value());
  ASSERT_EQ(decoded->size(), 1u);
  EXPECT_EQ((*decoded)[0].type, CKA_EXTRACTABLE);
  EXPECT_EQ((*decoded)[0].value, std::vector<std::uint8_t>{CK_TRUE});
  CK_ATTRIBUTE inner_array[] = {{CKA_WRAP_TEMPLATE, nullptr, 0}};
  CK_ATTRIBUTE nested_array = {CKA_UNWRAP_TEMPLATE, inner_array, sizeof inner_array};
  EXPECT_EQ(ToTemplate(&nested_array, 1).error().code, CKR_ATTRIBUTE_VALUE_INVALID);
}

TEST(ToMechanism, TypedParameters) {
  CK_RSA_PKCS_PSS_PARAMS pss = {CKM_SHA384, CKG_MGF1_SHA384, 48};
  CK_MECHANISM m = {CKM_RSA_PKCS_PSS, &pss, sizeof(pss)};
  Result<client::Mechanism> got = ToMechanism(&m);
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got->pss.has_value());
  EXPECT_EQ(got->pss->hash_alg, CKM_SHA384);
  EXPECT_EQ(got->pss->salt_len, 48u);
  CK_MECHANISM no_params = {CKM_RSA_PKCS_PSS, nullptr, 0};
  EXPECT_EQ(ToMechanism(&no_params).error().code, CKR_MECHANISM_PARAM_INVALID);
  CK_MECHANISM bad_size = {CKM_AES_GCM, &pss, sizeof(pss)};
  EXPECT_EQ(ToMechanism(&bad_size).error().code, CKR_MECHANISM_PARAM_INVALID);
  CK_BYTE iv[12] = {};
  CK_GCM_PARAMS gcm = {iv, sizeof(iv), 96, nullptr, 0, 128};
  CK_MECHANISM aes = {CKM_AES_GCM, &gcm, sizeof(gcm)};
  Result<client::Mechanism> gcm_got = ToMechanism(&aes);
  ASSERT_TRUE(gcm_got.ok());
  EXPECT_EQ(gcm_got->gcm->iv.size(), 12u);
  EXPECT_EQ(ToMechanism(nullptr).error().code, CKR_ARGUMENTS_BAD);
}

TEST(ToMechanism, OaepParametersAndLabelAreCopied) {
  CK_BYTE label[] = {'l', 'b', 'l'};
  CK_RSA_PKCS_OAEP_PARAMS p{CKM_SHA256, CKG_MGF1_SHA384, CKZ_DATA_SPECIFIED, label, sizeof(label)};
  CK_MECHANISM m{CKM_RSA_PKCS_OAEP, &p, sizeof(p)};
  auto out = ToMechanism(&m);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out->oaep.has_value());
  EXPECT_EQ(out->oaep->hash_alg, static_cast<CK_ULONG>(CKM_SHA256));
  EXPECT_EQ(out->oaep->mgf, static_cast<CK_ULONG>(CKG_MGF1_SHA384));
  EXPECT_EQ(out->oaep->source, static_cast<CK_ULONG>(CKZ_DATA_SPECIFIED));
  EXPECT_EQ(out->oaep->source_data, (client::Bytes{'l', 'b', 'l'}));
  EXPECT_TRUE(out->raw_params.empty());
  // Without parameters, of the wrong size, or a label length without bytes.
  CK_MECHANISM none{CKM_RSA_PKCS_OAEP, nullptr, 0};
  EXPECT_EQ(ToMechanism(&none).error().code, CKR_MECHANISM_PARAM_INVALID);
  CK_MECHANISM short_param{CKM_RSA_PKCS_OAEP, &p, sizeof(p) - 1};
  EXPECT_EQ(ToMechanism(&short_param).error().code, CKR_MECHANISM_PARAM_INVALID);
  p.pSourceData = nullptr;
  EXPECT_EQ(ToMechanism(&m).error().code, CKR_MECHANISM_PARAM_INVALID);
}

TEST(ToMechanism, RsaAesWrapParametersAndTheirOaepAreCopied) {
  CK_BYTE label[] = {'k', 'w'};
  CK_RSA_PKCS_OAEP_PARAMS oaep{CKM_SHA384, CKG_MGF1_SHA1, CKZ_DATA_SPECIFIED, label, sizeof(label)};
  CK_RSA_AES_KEY_WRAP_PARAMS p{192, &oaep};
  CK_MECHANISM m{CKM_RSA_AES_KEY_WRAP, &p, sizeof(p)};
  auto out = ToMechanism(&m);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out->rsa_aes.has_value());
  EXPECT_EQ(out->rsa_aes->aes_key_bits, 192u);
  EXPECT_EQ(out->rsa_aes->oaep.hash_alg, static_cast<CK_ULONG>(CKM_SHA384));
  EXPECT_EQ(out->rsa_aes->oaep.mgf, static_cast<CK_ULONG>(CKG_MGF1_SHA1));
  EXPECT_EQ(out->rsa_aes->oaep.source_data, (client::Bytes{'k', 'w'}));
  EXPECT_FALSE(out->oaep.has_value());
  EXPECT_TRUE(out->raw_params.empty());
  // No parameter, a short one, no OAEP parameters, a label length without bytes.
  CK_MECHANISM none{CKM_RSA_AES_KEY_WRAP, nullptr, 0};
  EXPECT_EQ(ToMechanism(&none).error().code, CKR_MECHANISM_PARAM_INVALID);
  CK_MECHANISM short_param{CKM_RSA_AES_KEY_WRAP, &p, sizeof(p) - 1};
  EXPECT_EQ(ToMechanism(&short_param).error().code, CKR_MECHANISM_PARAM_INVALID);
  p.pOAEPParams = nullptr;
  EXPECT_EQ(ToMechanism(&m).error().code, CKR_MECHANISM_PARAM_INVALID);
  p.pOAEPParams = &oaep;
  oaep.pSourceData = nullptr;
  EXPECT_EQ(ToMechanism(&m).error().code, CKR_MECHANISM_PARAM_INVALID);
}

TEST(ToMechanism, MacGeneralLengthIsCopiedForEveryGeneralMac) {
  for (CK_MECHANISM_TYPE type :
       {CKM_SHA_1_HMAC_GENERAL, CKM_SHA224_HMAC_GENERAL, CKM_SHA256_HMAC_GENERAL,
        CKM_SHA384_HMAC_GENERAL, CKM_SHA512_HMAC_GENERAL, CKM_MD5_HMAC_GENERAL,
        CKM_AES_CMAC_GENERAL, CKM_DES3_CMAC_GENERAL}) {
    SCOPED_TRACE(type);
    CK_ULONG length = 12;  // CK_MAC_GENERAL_PARAMS
    CK_MECHANISM m = {type, &length, sizeof(length)};
    Result<client::Mechanism> got = ToMechanism(&m);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->mac_length, std::optional<CK_ULONG>(12));
    EXPECT_TRUE(got->raw_params.empty());
    // CK_MAC_GENERAL_PARAMS is one CK_ULONG: nothing else is accepted.
    CK_MECHANISM none = {type, nullptr, 0};
    EXPECT_EQ(ToMechanism(&none).error().code, CKR_MECHANISM_PARAM_INVALID);
    CK_MECHANISM short_param = {type, &length, sizeof(length) - 1};
    EXPECT_EQ(ToMechanism(&short_param).error().code, CKR_MECHANISM_PARAM_INVALID);
  }
  // The full-length forms take none; a stray one travels as bytes and the
  // daemon refuses it (core/mechanisms.cc MacLengthFor).
  CK_MECHANISM plain = {CKM_SHA256_HMAC, nullptr, 0};
  ASSERT_TRUE(ToMechanism(&plain).ok());
  EXPECT_FALSE(ToMechanism(&plain)->mac_length.has_value());
}

TEST(ToMechanism, HkdfParametersSaltAndInfoAreCopied) {
  CK_BYTE salt[] = {1, 2, 3};
  CK_BYTE info[] = {9, 8};
  CK_HKDF_PARAMS p = {CK_TRUE,      CK_FALSE, CKM_SHA384, CKF_HKDF_SALT_DATA, salt,
                      sizeof(salt), 77,       info,       sizeof(info)};
  CK_MECHANISM m = {CKM_HKDF_DERIVE, &p, sizeof(p)};
  Result<client::Mechanism> got = ToMechanism(&m);
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got->hkdf.has_value());
  EXPECT_TRUE(got->hkdf->extract);
  EXPECT_FALSE(got->hkdf->expand);
  EXPECT_EQ(got->hkdf->prf_hash, static_cast<CK_ULONG>(CKM_SHA384));
  EXPECT_EQ(got->hkdf->salt_type, static_cast<CK_ULONG>(CKF_HKDF_SALT_DATA));
  EXPECT_EQ(got->hkdf->salt, (client::Bytes{1, 2, 3}));
  EXPECT_EQ(got->hkdf->salt_key, 77u);
  EXPECT_EQ(got->hkdf->info, (client::Bytes{9, 8}));
  // Without parameters, of the wrong size, or a salt length without bytes.
  CK_MECHANISM none = {CKM_HKDF_DERIVE, nullptr, 0};
  EXPECT_EQ(ToMechanism(&none).error().code, CKR_MECHANISM_PARAM_INVALID);
  CK_MECHANISM short_param = {CKM_HKDF_DERIVE, &p, sizeof(p) - 1};
  EXPECT_EQ(ToMechanism(&short_param).error().code, CKR_MECHANISM_PARAM_INVALID);
  p.pSalt = nullptr;
  EXPECT_EQ(ToMechanism(&m).error().code, CKR_MECHANISM_PARAM_INVALID);
}

TEST(ToMechanism, DerivationDataAndTheOtherKeyAreCopied) {
  CK_BYTE data[] = {5, 6, 7};
  CK_KEY_DERIVATION_STRING_DATA string_data = {data, sizeof(data)};
  for (CK_MECHANISM_TYPE type :
       {CKM_CONCATENATE_BASE_AND_DATA, CKM_CONCATENATE_DATA_AND_BASE, CKM_XOR_BASE_AND_DATA,
        CKM_AES_ECB_ENCRYPT_DATA, CKM_DES3_ECB_ENCRYPT_DATA}) {
    SCOPED_TRACE(type);
    CK_MECHANISM m = {type, &string_data, sizeof(string_data)};
    Result<client::Mechanism> got = ToMechanism(&m);
    ASSERT_TRUE(got.ok());
    ASSERT_TRUE(got->derivation.has_value());
    EXPECT_EQ(got->derivation->data, (client::Bytes{5, 6, 7}));
    EXPECT_TRUE(got->derivation->iv.empty());
    CK_MECHANISM none = {type, nullptr, 0};
    EXPECT_EQ(ToMechanism(&none).error().code, CKR_MECHANISM_PARAM_INVALID);
  }
  CK_AES_CBC_ENCRYPT_DATA_PARAMS aes = {};
  aes.iv[15] = 0x0f;
  aes.pData = data;
  aes.length = sizeof(data);
  CK_MECHANISM aes_m = {CKM_AES_CBC_ENCRYPT_DATA, &aes, sizeof(aes)};
  Result<client::Mechanism> aes_got = ToMechanism(&aes_m);
  ASSERT_TRUE(aes_got.ok());
  EXPECT_EQ(aes_got->derivation->iv.size(), 16u);
  EXPECT_EQ(aes_got->derivation->iv[15], 0x0f);
  EXPECT_EQ(aes_got->derivation->data, (client::Bytes{5, 6, 7}));
  CK_DES_CBC_ENCRYPT_DATA_PARAMS des = {};
  des.iv[7] = 0x07;
  des.pData = data;
  des.length = sizeof(data);
  CK_MECHANISM des_m = {CKM_DES3_CBC_ENCRYPT_DATA, &des, sizeof(des)};
  Result<client::Mechanism> des_got = ToMechanism(&des_m);
  ASSERT_TRUE(des_got.ok());
  EXPECT_EQ(des_got->derivation->iv.size(), 8u);
  EXPECT_EQ(des_got->derivation->iv[7], 0x07);
  // The AES parameter is not the DES one.
  CK_MECHANISM swapped = {CKM_AES_CBC_ENCRYPT_DATA, &des, sizeof(des)};
  EXPECT_EQ(ToMechanism(&swapped).error().code, CKR_MECHANISM_PARAM_INVALID);
  CK_OBJECT_HANDLE other = 42;
  CK_MECHANISM key_m = {CKM_CONCATENATE_BASE_AND_KEY, &other, sizeof(other)};
  Result<client::Mechanism> key_got = ToMechanism(&key_m);
  ASSERT_TRUE(key_got.ok());
  EXPECT_EQ(key_got->other_key, std::optional<CK_OBJECT_HANDLE>(42));
  CK_MECHANISM short_key = {CKM_CONCATENATE_BASE_AND_KEY, &other, sizeof(other) - 1};
  EXPECT_EQ(ToMechanism(&short_key).error().code, CKR_MECHANISM_PARAM_INVALID);
}

TEST(ToMechanism, EddsaParametersAreCopiedOrAbsent) {
  CK_BYTE context[] = {'c', 't', 'x'};
  CK_EDDSA_PARAMS p = {CK_TRUE, sizeof(context), context};
  CK_MECHANISM m = {CKM_EDDSA, &p, sizeof(p)};
  Result<client::Mechanism> got = ToMechanism(&m);
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got->eddsa.has_value());
  EXPECT_TRUE(got->eddsa->prehash);
  EXPECT_EQ(got->eddsa->context, (client::Bytes{'c', 't', 'x'}));
  // No parameter: plain EdDSA, no typed value.
  CK_MECHANISM none = {CKM_EDDSA, nullptr, 0};
  ASSERT_TRUE(ToMechanism(&none).ok());
  EXPECT_FALSE(ToMechanism(&none)->eddsa.has_value());
  CK_MECHANISM short_param = {CKM_EDDSA, &p, sizeof(p) - 1};
  EXPECT_EQ(ToMechanism(&short_param).error().code, CKR_MECHANISM_PARAM_INVALID);
  p.pContextData = nullptr;
  EXPECT_EQ(ToMechanism(&m).error().code, CKR_MECHANISM_PARAM_INVALID);
}

TEST(ToMechanism, ParameterFormComesFromTheTable) {
  // The raw PSS form needs its parameter; the hashing forms default it.
  CK_MECHANISM raw_pss = {CKM_RSA_PKCS_PSS, nullptr, 0};
  EXPECT_EQ(ToMechanism(&raw_pss).error().code, CKR_MECHANISM_PARAM_INVALID);
  CK_MECHANISM sha384_pss = {CKM_SHA384_RSA_PKCS_PSS, nullptr, 0};
  ASSERT_TRUE(ToMechanism(&sha384_pss).ok());
  EXPECT_FALSE(ToMechanism(&sha384_pss)->pss.has_value());
  // A mechanism the table does not know keeps its parameter's bytes.
  CK_BYTE bytes[3] = {1, 2, 3};
  CK_MECHANISM unknown = {CKM_VENDOR_DEFINED + 7, bytes, sizeof(bytes)};
  Result<client::Mechanism> got = ToMechanism(&unknown);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->raw_params, client::Bytes({1, 2, 3}));
}

}  // namespace
}  // namespace signet::pkcs11

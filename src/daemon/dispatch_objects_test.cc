// The dispatch scenarios of the object and key request types: key
// generation, object creation, copy, destruction, search and attributes
// (dispatch_test.cc runs them for every request type of the schema).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/hex.h"
#include "daemon/dispatch_fixture_test_util.h"

namespace signet::daemon {
namespace {

using core::kRo;

// ---------------------------------------------------------------- objects

void GenerateKeyPairOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  Ran ran = t.Run(RequestBody::GenerateKeyPairRequest, [&](auto& fbb) {
    auto pub = t.Template(fbb, {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)},
                                {CKA_TOKEN, B(true)},
                                {CKA_LABEL, S("pair")}});
    auto priv = t.Template(fbb, {{CKA_TOKEN, B(true)}, {CKA_LABEL, S("pair")}, {CKA_ID, S("7")}});
    return wire::CreateGenerateKeyPairRequest(fbb, s, t.Mech(fbb, CKM_EC_KEY_PAIR_GEN), pub, priv,
                                              /*unique_label=*/true);
  });
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_TRUE(ran.audit.starts_with("audit op=generate_key_pair slot=0 mechanism=")) << ran.audit;
  EXPECT_NE(ran.audit.find(" unique_label=1 private_label=\"pair\" private_id=\"7\" "
                           "public_label=\"pair\" result=CKR_OK" +
                           kOwnerTail),
            std::string::npos)
      << ran.audit;
  auto* pair = ran.body<wire::KeyPairResponse>();
  ASSERT_NE(pair, nullptr);
  EXPECT_NE(pair->public_key(), pair->private_key());
  EXPECT_TRUE(t.Exists(s, pair->private_key()));
}
void GenerateKeyPairRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);  // not logged in: no private token key
  Ran ran = t.Run(RequestBody::GenerateKeyPairRequest, [&](auto& fbb) {
    auto pub = t.Template(fbb, {{CKA_EC_PARAMS, crypto::EcParamsDer(crypto::KeyType::kEcP256)},
                                {CKA_TOKEN, B(true)}});
    auto priv = t.Template(fbb, {{CKA_TOKEN, B(true)}});
    return wire::CreateGenerateKeyPairRequest(fbb, s, t.Mech(fbb, CKM_EC_KEY_PAIR_GEN), pub, priv);
  });
  EXPECT_EQ(ran.rv(), CKR_USER_NOT_LOGGED_IN) << ran.message();
  EXPECT_NE(ran.audit.find("op=generate_key_pair slot=0 "), std::string::npos) << ran.audit;
  EXPECT_NE(ran.audit.find(" result=CKR_USER_NOT_LOGGED_IN" + kOwnerTail), std::string::npos)
      << ran.audit;
}

void GenerateKeyOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  Ran ran = t.Run(RequestBody::GenerateKeyRequest, [&](auto& fbb) {
    return wire::CreateGenerateKeyRequest(
        fbb, s, t.Mech(fbb, CKM_AES_KEY_GEN),
        t.Template(fbb, {{CKA_VALUE_LEN, U(32)}, {CKA_LABEL, S("aes")}, {CKA_TOKEN, B(true)}}));
  });
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_EQ(BodyType(ran), wire::ResponseBody::ObjectResponse);
  EXPECT_TRUE(ran.audit.starts_with("audit op=generate_key slot=0 mechanism=")) << ran.audit;
  EXPECT_NE(ran.audit.find(" label=\"aes\" result=CKR_OK" + kOwnerTail), std::string::npos)
      << ran.audit;
  ASSERT_NE(ran.body<wire::ObjectResponse>(), nullptr);
  EXPECT_TRUE(t.Exists(s, ran.body<wire::ObjectResponse>()->object()));
}
void GenerateKeyRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_, kRo);  // a token key in a read-only session
  Ran ran = t.Run(RequestBody::GenerateKeyRequest, [&](auto& fbb) {
    return wire::CreateGenerateKeyRequest(
        fbb, s, t.Mech(fbb, CKM_AES_KEY_GEN),
        t.Template(fbb, {{CKA_VALUE_LEN, U(32)}, {CKA_TOKEN, B(true)}}));
  });
  EXPECT_NE(ran.rv(), CKR_OK);
  EXPECT_EQ(BodyType(ran), wire::ResponseBody::NONE);
  EXPECT_TRUE(ran.audit.starts_with("audit op=generate_key slot=0 ")) << ran.audit;
  EXPECT_EQ(ran.audit.find("result=CKR_OK"), std::string::npos) << ran.audit;
}

void CreateObjectOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  Ran ran = t.Run(RequestBody::CreateObjectRequest, [&](auto& fbb) {
    return wire::CreateCreateObjectRequest(fbb, s,
                                           t.Template(fbb, {{CKA_CLASS, U(CKO_DATA)},
                                                            {CKA_LABEL, S("note")},
                                                            {CKA_VALUE, S("value-never-logged")}}));
  });
  ExpectOk(ran,
           "audit op=create_object slot=0 class=0x0 label=\"note\" result=CKR_OK" + kOwnerTail);
  ASSERT_NE(ran.body<wire::ObjectResponse>(), nullptr);
  EXPECT_TRUE(t.Exists(s, ran.body<wire::ObjectResponse>()->object()));
  EXPECT_EQ(ran.log.find("never-logged"), std::string::npos);
}
void CreateObjectRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  ExpectRefused(t.Run(RequestBody::CreateObjectRequest,
                      [&](auto& fbb) {
                        return wire::CreateCreateObjectRequest(
                            fbb, s, t.Template(fbb, {{CKA_LABEL, S("classless")}}));
                      }),
                CKR_TEMPLATE_INCOMPLETE,
                "audit op=create_object slot=0 label=\"classless\" result=CKR_TEMPLATE_INCOMPLETE" +
                    kOwnerTail);
}

void CopyObjectOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE original = t.DataObject(s);
  Ran ran = t.Run(RequestBody::CopyObjectRequest, [&](auto& fbb) {
    return wire::CreateCopyObjectRequest(fbb, s, original,
                                         t.Template(fbb, {{CKA_LABEL, S("copy")}}));
  });
  ExpectOk(ran, "audit op=copy_object slot=0 object=" + HexNumber(original) +
                    " new_label=\"copy\" result=CKR_OK" + kOwnerTail);
  ASSERT_NE(ran.body<wire::ObjectResponse>(), nullptr);
  EXPECT_NE(ran.body<wire::ObjectResponse>()->object(), original);
}
void CopyObjectRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  ExpectRefused(
      t.Run(RequestBody::CopyObjectRequest,
            [&](auto& fbb) { return wire::CreateCopyObjectRequest(fbb, s, 0x1234); }),
      CKR_OBJECT_HANDLE_INVALID,
      "audit op=copy_object slot=0 object=0x1234 result=CKR_OBJECT_HANDLE_INVALID" + kOwnerTail);
}

void DestroyObjectOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE object = t.DataObject(s);
  Ran ran = t.Run(RequestBody::DestroyObjectRequest,
                  [&](auto& fbb) { return wire::CreateDestroyObjectRequest(fbb, s, object); });
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_TRUE(ran.audit.starts_with("audit op=destroy_object slot=0 object=0x")) << ran.audit;
  EXPECT_FALSE(t.Exists(s, object));
}
void DestroyObjectRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE object = t.DataObject(s);
  CK_SESSION_HANDLE other = t.Session(*t.stranger_);
  // Another connection cannot name this connection's session object.
  ExpectRefused(t.Run(
                    RequestBody::DestroyObjectRequest,
                    [&](auto& fbb) { return wire::CreateDestroyObjectRequest(fbb, other, object); },
                    t.stranger_.get()),
                CKR_OBJECT_HANDLE_INVALID,
                "audit op=destroy_object slot=0 object=" + HexNumber(object) +
                    " result=CKR_OBJECT_HANDLE_INVALID peer=unix:uid=2000,pid=43");
  EXPECT_TRUE(t.Exists(s, object));
}

void CreateObjectsOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  Ran ran = t.Run(RequestBody::CreateObjectsRequest, [&](auto& fbb) {
    std::vector<fb::Offset<wire::ObjectTemplate>> templates = {
        wire::CreateObjectTemplate(fbb, t.Template(fbb, {{CKA_CLASS, U(CKO_DATA)},
                                                         {CKA_TOKEN, B(true)},
                                                         {CKA_LABEL, S("both")}})),
        wire::CreateObjectTemplate(fbb, t.Template(fbb, {{CKA_CLASS, U(CKO_DATA)},
                                                         {CKA_TOKEN, B(true)},
                                                         {CKA_LABEL, S("both")}}))};
    return wire::CreateCreateObjectsRequest(fbb, s, fbb.CreateVector(templates), false);
  });
  ExpectOk(ran,
           "audit op=create_objects slot=0 object0_class=0x0 object0_label=\"both\" "
           "object1_class=0x0 object1_label=\"both\" result=CKR_OK" +
               kOwnerTail);
  auto* made = ran.body<wire::ObjectsResponse>();
  ASSERT_NE(made, nullptr);
  ASSERT_EQ(made->objects()->size(), 2u);
  EXPECT_TRUE(t.Exists(s, made->objects()->Get(0)));
  EXPECT_TRUE(t.Exists(s, made->objects()->Get(1)));
}
void CreateObjectsRefused(DispatchFixture& t) {
  // Token objects need a R/W session.
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_, CKU_USER, kRo);
  Ran ran = t.Run(RequestBody::CreateObjectsRequest, [&](auto& fbb) {
    std::vector<fb::Offset<wire::ObjectTemplate>> templates = {wire::CreateObjectTemplate(
        fbb,
        t.Template(fbb, {{CKA_CLASS, U(CKO_DATA)}, {CKA_TOKEN, B(true)}, {CKA_LABEL, S("ro")}}))};
    return wire::CreateCreateObjectsRequest(fbb, s, fbb.CreateVector(templates), true);
  });
  ExpectRefused(ran, CKR_SESSION_READ_ONLY,
                "audit op=create_objects slot=0 unique_label=1 object0_class=0x0 "
                "object0_label=\"ro\" result=CKR_SESSION_READ_ONLY" +
                    kOwnerTail);
}

void DestroyObjectsOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE a = t.DataObject(s, "a");
  CK_OBJECT_HANDLE b = t.DataObject(s, "b");
  Ran ran = t.Run(RequestBody::DestroyObjectsRequest, [&](auto& fbb) {
    std::vector<std::uint64_t> objects = {a, b};
    return wire::CreateDestroyObjectsRequest(fbb, s, fbb.CreateVector(objects));
  });
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_TRUE(ran.audit.starts_with("audit op=destroy_objects slot=0 objects=0x")) << ran.audit;
  EXPECT_NE(ran.audit.find(",0x"), std::string::npos) << ran.audit;
  EXPECT_FALSE(t.Exists(s, a));
  EXPECT_FALSE(t.Exists(s, b));
}
void DestroyObjectsRefused(DispatchFixture& t) {
  // One bad handle: nothing is destroyed (one transaction).
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE a = t.DataObject(s, "a");
  Ran ran = t.Run(RequestBody::DestroyObjectsRequest, [&](auto& fbb) {
    std::vector<std::uint64_t> objects = {a, 0x1234};
    return wire::CreateDestroyObjectsRequest(fbb, s, fbb.CreateVector(objects));
  });
  EXPECT_EQ(ran.rv(), CKR_OBJECT_HANDLE_INVALID) << ran.message();
  EXPECT_NE(ran.audit.find(",0x1234 result=CKR_OBJECT_HANDLE_INVALID" + kOwnerTail),
            std::string::npos)
      << ran.audit;
  EXPECT_TRUE(t.Exists(s, a));
}

void FindObjectsOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE wanted = t.DataObject(s, "wanted");
  t.DataObject(s, "other");
  Ran ran = t.Run(RequestBody::FindObjectsRequest, [&](auto& fbb) {
    return wire::CreateFindObjectsRequest(fbb, s, t.Template(fbb, {{CKA_LABEL, S("wanted")}}));
  });
  ExpectOk(ran);
  auto* found = ran.body<wire::FindObjectsResponse>();
  ASSERT_NE(found, nullptr);
  ASSERT_EQ(found->objects()->size(), 1u);
  EXPECT_EQ(found->objects()->Get(0), wanted);
}
void FindObjectsRefused(DispatchFixture& t) {
  ExpectRefused(t.Run(RequestBody::FindObjectsRequest,
                      [](auto& fbb) { return wire::CreateFindObjectsRequest(fbb, 0xdead); }),
                CKR_SESSION_HANDLE_INVALID);
}

void GetAttributeValueOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE object = t.DataObject(s, "read-me");
  Ran ran = t.Run(RequestBody::GetAttributeValueRequest, [&](auto& fbb) {
    std::vector<std::uint64_t> types = {CKA_LABEL, CKA_CLASS};
    return wire::CreateGetAttributeValueRequest(fbb, s, object, fbb.CreateVector(types));
  });
  ExpectOk(ran);
  auto* values = ran.body<wire::GetAttributeValueResponse>();
  ASSERT_NE(values, nullptr);
  ASSERT_EQ(values->values()->size(), 2u);
  auto* label = values->values()->Get(0);
  EXPECT_EQ(label->type(), CKA_LABEL);
  EXPECT_EQ(label->rv(), CKR_OK);
  EXPECT_EQ(std::string(label->value()->begin(), label->value()->end()), "read-me");
  EXPECT_EQ(std::vector<std::uint8_t>(values->values()->Get(1)->value()->begin(),
                                      values->values()->Get(1)->value()->end()),
            U(CKO_DATA));
}
void GetAttributeValueRefused(DispatchFixture& t) {
  // PKCS#11 §5.7: a sensitive value is withheld, the others answered, and
  // the reply carries its body with CKR_ATTRIBUTE_SENSITIVE.
  CK_SESSION_HANDLE s = t.LoggedIn(*t.owner_);
  const auto pair = t.EcPair(s);
  // Plain names, not a structured binding: clang 14 (the fuzz and
  // sanitizer build) cannot capture a binding in a lambda.
  const CK_OBJECT_HANDLE priv = pair.second;
  Ran ran = t.Run(RequestBody::GetAttributeValueRequest, [&](auto& fbb) {
    std::vector<std::uint64_t> types = {CKA_LABEL, CKA_VALUE, 0x7fff0000};
    return wire::CreateGetAttributeValueRequest(fbb, s, priv, fbb.CreateVector(types));
  });
  EXPECT_EQ(ran.rv(), CKR_ATTRIBUTE_SENSITIVE);
  auto* values = ran.body<wire::GetAttributeValueResponse>();
  ASSERT_NE(values, nullptr);
  ASSERT_EQ(values->values()->size(), 3u);
  EXPECT_EQ(values->values()->Get(0)->rv(), CKR_OK);
  EXPECT_EQ(values->values()->Get(1)->rv(), CKR_ATTRIBUTE_SENSITIVE);
  EXPECT_EQ(values->values()->Get(1)->value(), nullptr);
  EXPECT_EQ(values->values()->Get(2)->rv(), CKR_ATTRIBUTE_TYPE_INVALID);
}

void SetAttributeValueOk(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE object = t.DataObject(s, "before");
  Ran ran = t.Run(RequestBody::SetAttributeValueRequest, [&](auto& fbb) {
    return wire::CreateSetAttributeValueRequest(fbb, s, object,
                                                t.Template(fbb, {{CKA_LABEL, S("after")}}));
  });
  EXPECT_EQ(ran.rv(), CKR_OK) << ran.message();
  EXPECT_TRUE(ran.audit.starts_with("audit op=set_attribute_value slot=0 object=0x")) << ran.audit;
  EXPECT_NE(ran.audit.find(" new_label=\"after\" result=CKR_OK"), std::string::npos) << ran.audit;
}
void SetAttributeValueRefused(DispatchFixture& t) {
  CK_SESSION_HANDLE s = t.Session(*t.owner_);
  CK_OBJECT_HANDLE object = t.DataObject(s);
  Ran ran = t.Run(RequestBody::SetAttributeValueRequest, [&](auto& fbb) {
    return wire::CreateSetAttributeValueRequest(fbb, s, object,
                                                t.Template(fbb, {{CKA_CLASS, U(CKO_SECRET_KEY)}}));
  });
  EXPECT_EQ(ran.rv(), CKR_ATTRIBUTE_READ_ONLY) << ran.message();
  EXPECT_NE(ran.audit.find(" new_class=0x4 result=CKR_ATTRIBUTE_READ_ONLY"), std::string::npos)
      << ran.audit;
}

}  // namespace

ScenarioTable ObjectScenarios() {
  return {
      {RequestBody::GenerateKeyPairRequest, {GenerateKeyPairOk, GenerateKeyPairRefused}},
      {RequestBody::GenerateKeyRequest, {GenerateKeyOk, GenerateKeyRefused}},
      {RequestBody::CreateObjectRequest, {CreateObjectOk, CreateObjectRefused}},
      {RequestBody::CopyObjectRequest, {CopyObjectOk, CopyObjectRefused}},
      {RequestBody::DestroyObjectRequest, {DestroyObjectOk, DestroyObjectRefused}},
      {RequestBody::FindObjectsRequest, {FindObjectsOk, FindObjectsRefused}},
      {RequestBody::GetAttributeValueRequest, {GetAttributeValueOk, GetAttributeValueRefused}},
      {RequestBody::SetAttributeValueRequest, {SetAttributeValueOk, SetAttributeValueRefused}},
      {RequestBody::CreateObjectsRequest, {CreateObjectsOk, CreateObjectsRefused}},
      {RequestBody::DestroyObjectsRequest, {DestroyObjectsOk, DestroyObjectsRefused}},
  };
}

}  // namespace signet::daemon

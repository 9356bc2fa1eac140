// DescribeAudited on its own: which requests are audited, how client bytes
// are escaped in the text line and the JSON fields, and that no secret (PIN,
// key value) ever reaches either.
#include "daemon/audit.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "daemon/dispatch_fixture_test_util.h"

namespace signet::daemon {
namespace {

// Record: DescribeAudited for the request whose body `build(fbb)` returns.
template <typename Build>
std::optional<AuditRecord> Record(RequestBody type, Build&& build, CK_RV rv,
                                  core::ClientState& client) {
  fb::FlatBufferBuilder fbb;
  fbb.Finish(wire::CreateRequest(fbb, 1, proto::kProtocolVersion, type, build(fbb).Union()));
  return DescribeAudited(*fb::GetRoot<wire::Request>(fbb.GetBufferPointer()), rv, client);
}

// Line: the record's text line (AuditText), nullopt when not audited.
template <typename Build>
std::optional<std::string> Line(RequestBody type, Build&& build, CK_RV rv,
                                core::ClientState& client) {
  auto record = Record(type, std::forward<Build>(build), rv, client);
  if (!record) return std::nullopt;
  return AuditText(*record);
}

// Client: a connection's state with no sessions (so no slot is named).
std::unique_ptr<core::ClientState> Client() {
  auto client = std::make_unique<core::ClientState>(/*id=*/1);
  client->peer = "tcp:192.0.2.7:5000";
  return client;
}

TEST(AuditText, UsesOfKeysAndReadsAreNotAudited) {
  auto client_state = Client();
  core::ClientState& client = *client_state;
  const RequestBody quiet[] = {RequestBody::GetInfoRequest,
                               RequestBody::OpenSessionRequest,
                               RequestBody::CloseSessionRequest,
                               RequestBody::CloseAllSessionsRequest,
                               RequestBody::GetSessionInfoRequest,
                               RequestBody::FindObjectsRequest,
                               RequestBody::GetAttributeValueRequest,
                               RequestBody::SignRequest,
                               RequestBody::SignBatchRequest,
                               RequestBody::VerifyRequest,
                               RequestBody::DigestRequest,
                               RequestBody::EncryptRequest,
                               RequestBody::DecryptRequest,
                               RequestBody::GenerateRandomRequest,
                               RequestBody::SeedRandomRequest,
                               RequestBody::GetStatsRequest};
  for (RequestBody type : quiet) {
    EXPECT_EQ(Line(
                  type, [](auto& fbb) { return wire::CreateGetInfoRequest(fbb); }, CKR_OK, client),
              std::nullopt)
        << wire::EnumNameRequestBody(type);
  }
}

TEST(AuditText, ClientBytesAreQuotedOnOneLine) {
  auto client_state = Client();
  core::ClientState& client = *client_state;
  auto line = Line(
      RequestBody::CreateObjectRequest,
      [](auto& fbb) {
        return wire::CreateCreateObjectRequest(
            fbb, 9,
            DispatchFixture::Template(fbb, {{CKA_LABEL, S("evil\n\"label\"\\")},
                                            {CKA_ID, std::vector<std::uint8_t>{0x00, 0xff}},
                                            {CKA_KEY_TYPE, U(CKK_EC)},
                                            {CKA_CLASS, {1, 2}}}));  // wrong size: skipped
      },
      CKR_OK, client);
  ASSERT_TRUE(line.has_value());
  // Session 9 is unknown to this client: no slot is named.
  EXPECT_EQ(*line,
            "audit op=create_object label=\"evil\\x0a\\x22label\\x22\\x5c\" id=\"\\x00\\xff\" "
            "key_type=0x3 result=CKR_OK peer=tcp:192.0.2.7:5000");
}

TEST(AuditText, SecretsNeverReachTheLine) {
  auto client_state = Client();
  core::ClientState& client = *client_state;
  const std::string kSecret = "TOP-SECRET-VALUE";
  std::vector<std::string> lines;
  lines.push_back(*Line(
      RequestBody::LoginRequest,
      [&](auto& fbb) {
        return wire::CreateLoginRequest(fbb, 1, CKU_SO, DispatchFixture::Bytes(fbb, kSecret));
      },
      CKR_PIN_INCORRECT, client));
  lines.push_back(*Line(
      RequestBody::SetPinRequest,
      [&](auto& fbb) {
        return wire::CreateSetPinRequest(fbb, 1, DispatchFixture::Bytes(fbb, kSecret),
                                         DispatchFixture::Bytes(fbb, kSecret));
      },
      CKR_OK, client));
  lines.push_back(*Line(
      RequestBody::InitTokenRequest,
      [&](auto& fbb) {
        return wire::CreateInitTokenRequest(fbb, 0, DispatchFixture::Bytes(fbb, kSecret),
                                            fbb.CreateString("lbl"),
                                            DispatchFixture::Bytes(fbb, kSecret));
      },
      CKR_OK, client));
  lines.push_back(*Line(
      RequestBody::CreateObjectRequest,
      [&](auto& fbb) {
        return wire::CreateCreateObjectRequest(
            fbb, 1,
            DispatchFixture::Template(
                fbb, {{CKA_VALUE, S(kSecret)}, {CKA_PRIVATE_EXPONENT, S(kSecret)}}));
      },
      CKR_OK, client));
  lines.push_back(*Line(
      RequestBody::UnwrapKeyRequest,
      [&](auto& fbb) {
        return wire::CreateUnwrapKeyRequest(fbb, 1, wire::CreateMechanism(fbb, 0x7777), 5,
                                            DispatchFixture::Bytes(fbb, kSecret));
      },
      CKR_OK, client));
  for (const std::string& line : lines) {
    EXPECT_EQ(line.find("SECRET"), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  }
  EXPECT_EQ(lines[0], "audit op=login user=so result=CKR_PIN_INCORRECT peer=tcp:192.0.2.7:5000");
  // An unknown mechanism is named by its number.
  EXPECT_EQ(lines[4],
            "audit op=unwrap_key mechanism=0x7777 unwrapping_key=0x5 result=CKR_OK "
            "peer=tcp:192.0.2.7:5000");
}

TEST(AuditText, UserTypesAndUnknownResultCodesAreSpelledOut) {
  auto client_state = Client();
  core::ClientState& client = *client_state;
  auto login = [&](CK_ULONG user, CK_RV rv) {
    return *Line(
        RequestBody::LoginRequest,
        [&](auto& fbb) { return wire::CreateLoginRequest(fbb, 1, user); }, rv, client);
  };
  EXPECT_NE(login(CKU_USER, CKR_OK).find("user=user "), std::string::npos);
  EXPECT_NE(login(CKU_CONTEXT_SPECIFIC, CKR_OK).find("user=context_specific "), std::string::npos);
  EXPECT_NE(login(42, CKR_OK).find("user=0x2a "), std::string::npos);
  EXPECT_NE(login(CKU_USER, 0x12345).find(" result=CKR_0x12345 "), std::string::npos)
      << login(CKU_USER, 0x12345);
}

TEST(AuditJson, FieldsInOrderEscapedAsInTheLineWithSlotsAsNumbers) {
  auto client_state = Client();
  core::ClientState& client = *client_state;
  auto record = Record(
      RequestBody::InitTokenRequest,
      [](auto& fbb) {
        return wire::CreateInitTokenRequest(fbb, 3, DispatchFixture::Bytes(fbb, "so-pin"),
                                            fbb.CreateString("new\n\"tok\""));
      },
      CKR_OK, client);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(AuditJson(*record).dump(),
            R"({"op":"init_token","slot":3,"label":"new\\x0a\\x22tok\\x22",)"
            R"("result":"CKR_OK","peer":"tcp:192.0.2.7:5000"})");
  EXPECT_EQ(AuditText(*record),
            "audit op=init_token slot=3 label=\"new\\x0a\\x22tok\\x22\" result=CKR_OK "
            "peer=tcp:192.0.2.7:5000");
}

TEST(AuditJson, ARepeatedAttributeKeepsEveryValue) {
  auto client_state = Client();
  core::ClientState& client = *client_state;
  auto record = Record(
      RequestBody::CreateObjectRequest,
      [](auto& fbb) {
        return wire::CreateCreateObjectRequest(
            fbb, 9,
            DispatchFixture::Template(fbb, {{CKA_LABEL, S("first")}, {CKA_LABEL, S("second")}}));
      },
      CKR_OK, client);
  ASSERT_TRUE(record.has_value());
  nlohmann::ordered_json fields = AuditJson(*record);
  EXPECT_EQ(fields["label"], "first");
  EXPECT_EQ(fields["label_2"], "second");
}

// A hostile template cannot make a record (and the log's lock and fsync)
// as large as the request: eight naming attributes per template, 64 bytes of
// a label, sixteen templates per CreateObjects; the rest is counted.
TEST(AuditJson, ARecordIsBoundedWhateverTheRequestHolds) {
  auto client_state = Client();
  core::ClientState& client = *client_state;
  auto record = Record(
      RequestBody::CreateObjectRequest,
      [](auto& fbb) {
        AttributeList attrs;
        attrs.push_back({CKA_LABEL, S(std::string(100, 'x'))});
        for (int i = 0; i < 1000; ++i) attrs.push_back({CKA_LABEL, S("l")});
        return wire::CreateCreateObjectRequest(fbb, 9, DispatchFixture::Template(fbb, attrs));
      },
      CKR_OK, client);
  ASSERT_TRUE(record.has_value());
  nlohmann::ordered_json fields = AuditJson(*record);
  EXPECT_EQ(fields["label"], std::string(64, 'x') + "...");
  EXPECT_TRUE(fields.contains("label_8"));
  EXPECT_FALSE(fields.contains("label_9"));
  EXPECT_EQ(fields["omitted"], 993u);

  auto many = Record(
      RequestBody::CreateObjectsRequest,
      [](auto& fbb) {
        std::vector<fb::Offset<wire::ObjectTemplate>> templates;
        for (int i = 0; i < 40; ++i) {
          templates.push_back(wire::CreateObjectTemplate(
              fbb, DispatchFixture::Template(fbb, {{CKA_LABEL, S("o")}})));
        }
        return wire::CreateCreateObjectsRequest(fbb, 9, fbb.CreateVector(templates));
      },
      CKR_OK, client);
  ASSERT_TRUE(many.has_value());
  nlohmann::ordered_json objects = AuditJson(*many);
  EXPECT_TRUE(objects.contains("object15_label"));
  EXPECT_FALSE(objects.contains("object16_label"));
  EXPECT_EQ(objects["objects_omitted"], 24u);
}

}  // namespace
}  // namespace signet::daemon

// Every request type of the wire schema (the RequestBody union), dispatched
// in-process on a temp-dir Hsm: one scenario that succeeds and, where one
// is meaningful, one the Hsm must refuse. Each scenario checks the reply,
// the audit line and the route a connection would take (RouteFor). The
// scenarios live in one file per area (dispatch_sessions_test.cc,
// dispatch_objects_test.cc, dispatch_crypto_test.cc); this file runs them.
//
// The suite is parameterised over EnumValuesRequestBody(), so a request type
// appended to the schema without a scenario fails
// AllRequestTypes/DispatchEveryType.Succeeds/<Type>.
#include "daemon/dispatch.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "daemon/dispatch_fixture_test_util.h"

namespace signet::daemon {
namespace {

// AllScenarios: the areas' tables together (the coverage test below checks
// that no request type is in two).
const ScenarioTable& AllScenarios() {
  static const ScenarioTable kScenarios = [] {
    ScenarioTable all;
    for (ScenarioTable area : {SessionScenarios(), ObjectScenarios(), CryptoScenarios()}) {
      all.merge(area);
    }
    return all;
  }();
  return kScenarios;
}

// EveryRequestType: the schema's union members, NONE excluded.
std::vector<RequestBody> EveryRequestType() {
  std::vector<RequestBody> types;
  for (RequestBody type : wire::EnumValuesRequestBody()) {
    if (type != RequestBody::NONE) types.push_back(type);
  }
  return types;
}

class DispatchEveryType : public DispatchFixture,
                          public ::testing::WithParamInterface<RequestBody> {};

TEST_P(DispatchEveryType, Succeeds) {
  auto found = AllScenarios().find(GetParam());
  ASSERT_NE(found, AllScenarios().end())
      << "no dispatch scenario for " << wire::EnumNameRequestBody(GetParam())
      << ": add one to the dispatch_*_test.cc of its area";
  found->second.succeeds(*this);
}

TEST_P(DispatchEveryType, RefusesWhatTheHsmRefuses) {
  auto found = AllScenarios().find(GetParam());
  ASSERT_NE(found, AllScenarios().end())
      << "no dispatch scenario for " << wire::EnumNameRequestBody(GetParam());
  if (found->second.refused == nullptr) {
    GTEST_SKIP() << wire::EnumNameRequestBody(GetParam()) << " has nothing to refuse";
  }
  found->second.refused(*this);
}

INSTANTIATE_TEST_SUITE_P(AllRequestTypes, DispatchEveryType,
                         ::testing::ValuesIn(EveryRequestType()),
                         [](const ::testing::TestParamInfo<RequestBody>& param) {
                           return std::string(wire::EnumNameRequestBody(param.param));
                         });

TEST(DispatchCoverage, TheSchemaHas36RequestTypesAndEachHasAScenario) {
  EXPECT_EQ(EveryRequestType().size(), 36u);
  EXPECT_EQ(AllScenarios().size(), EveryRequestType().size());
  EXPECT_EQ(SessionScenarios().size() + ObjectScenarios().size() + CryptoScenarios().size(),
            AllScenarios().size());
}

}  // namespace
}  // namespace signet::daemon

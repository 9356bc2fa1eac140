#include "areas.h"

namespace signet::conformance {

void RunToken(Fixture&) {}

}  // namespace signet::conformance

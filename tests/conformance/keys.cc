#include "areas.h"

namespace signet::conformance {

void RunKeys(Fixture&) {}

}  // namespace signet::conformance

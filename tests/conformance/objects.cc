#include "areas.h"

namespace signet::conformance {

void RunObjects(Fixture&) {}

}  // namespace signet::conformance

#include "areas.h"

namespace signet::conformance {

void RunAttributes(Fixture&) {}

}  // namespace signet::conformance

#include "areas.h"

namespace signet::conformance {

void RunRandom(Fixture&) {}

}  // namespace signet::conformance

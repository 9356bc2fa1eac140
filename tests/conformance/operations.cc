#include "areas.h"

namespace signet::conformance {

void RunOperations(Fixture&) {}

}  // namespace signet::conformance

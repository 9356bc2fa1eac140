#include "areas.h"

namespace signet::conformance {

void RunFind(Fixture&) {}

}  // namespace signet::conformance

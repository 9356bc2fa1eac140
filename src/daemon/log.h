// Log: one line per event on stderr, written with a single write so lines
// from different threads never interleave. Callers never pass secrets.
#pragma once

#include <string_view>

namespace signet::daemon {

// Log writes "signetd: <line>\n" to stderr. Safe from any thread.
void Log(std::string_view line);

}  // namespace signet::daemon

// RunSignet: the whole `signet` command-line program, given main()'s
// arguments: it scrubs secret arguments (secret_arguments.h), registers
// every subcommand (commands.h and `signet bench`), parses, runs the chosen
// command and prints its error with the CK_RV name. Returns the exit
// status: 0 success (and --help, --version), 1 the operation failed (the
// message names its CK_RV), 2 bad usage (a command line that does not parse:
// an unknown command or option, a missing or invalid value; the message
// says which). main.cc is only this call, so tests can run the program's
// argument handling in-process.
// Single-threaded; touches stdout, stderr and argv (secret values are
// overwritten in place).
#pragma once

namespace signet::cli {

int RunSignet(int argc, char** argv);

}  // namespace signet::cli

// signet: the command-line client of signetd (and, for `init`, of the
// keystore directly). The program lives in cli/program.h (RunSignet), so its
// argument handling is unit-tested; exit status as described there.
#include "cli/program.h"

int main(int argc, char** argv) { return signet::cli::RunSignet(argc, argv); }

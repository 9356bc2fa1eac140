// The libFuzzer entry points every target in fuzz/ defines. Each target is
// linked two ways: with -fsanitize=fuzzer (the `fuzz` preset, run by
// scripts/fuzz.sh) and with replay_main.cc (every build), which feeds the
// files of fuzz/corpus/<target>/ and fuzz/regressions/<target>/ to the same
// function so ctest replays every input that ever crashed a target.
//
// Every target defines both (LLVMFuzzerInitialize may do nothing).
// A target returns 0 for every input; a finding is a sanitizer report or a
// FUZZ_CHECK failure (an invariant of the code under test, which aborts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);

// FUZZ_CHECK aborts (a crash libFuzzer reports with its input) when `cond`
// is false; unlike assert() it stays in release builds.
#define FUZZ_CHECK(cond)                                                              \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                   \
    }                                                                                 \
  } while (0)

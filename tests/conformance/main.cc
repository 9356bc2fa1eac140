// signet-conformance: PKCS#11 v2.40 chapter 5 conformance checks against any
// module, loaded as an application loads it (dlopen + C_GetFunctionList).
//
//   signet-conformance --module LIB.so --token LABEL --user-pin PIN --so-pin PIN
//                      [--reinit] [--expect-fail FILE] [--only ID-PREFIX]
//
// The token must be initialised with both PINs. Each check prints one line;
// the exit status is 0 when the failing checks are exactly those listed in
// the --expect-fail file (or none without it). See docs/PKCS11.md,
// "Conformance suite".
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "areas.h"

namespace {

using signet::conformance::Options;

bool ParseArguments(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    bool ok = true;
    if (arg == "--module") {
      ok = value(&options->module);
    } else if (arg == "--token") {
      ok = value(&options->token_label);
    } else if (arg == "--user-pin") {
      ok = value(&options->user_pin);
    } else if (arg == "--so-pin") {
      ok = value(&options->so_pin);
    } else if (arg == "--expect-fail") {
      ok = value(&options->expect_file);
    } else if (arg == "--only") {
      ok = value(&options->only);
    } else if (arg == "--reinit") {
      options->reinit = true;
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr, "signet-conformance: bad argument %s\n", arg.c_str());
      return false;
    }
  }
  return !options->module.empty() && !options->token_label.empty() && !options->user_pin.empty() &&
         !options->so_pin.empty();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace signet::conformance;
  Options options;
  if (!ParseArguments(argc, argv, &options)) {
    std::fprintf(stderr,
                 "usage: %s --module LIB.so --token LABEL --user-pin PIN --so-pin PIN "
                 "[--reinit] [--expect-fail FILE] [--only ID-PREFIX]\n",
                 argv[0]);
    return 2;
  }
  void* library = dlopen(options.module.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "signet-conformance: %s\n", dlerror());
    return 2;
  }
  auto get_list = reinterpret_cast<CK_C_GetFunctionList>(dlsym(library, "C_GetFunctionList"));
  CK_FUNCTION_LIST_PTR functions = nullptr;
  if (get_list == nullptr || get_list(&functions) != CKR_OK || functions == nullptr) {
    std::fprintf(stderr, "signet-conformance: no usable C_GetFunctionList in %s\n",
                 options.module.c_str());
    return 2;
  }

  Suite suite(functions, options);
  RunGeneral(suite);  // leaves the module initialised
  Fixture fixture(suite);
  const bool found = fixture.FindToken();
  if (!suite.True("general.token_found", "5.5.3", found, "a token labelled " + options.token_label,
                  found ? "found" : "none")) {
    functions->C_Finalize(nullptr);
    return suite.Finish();
  }
  using Area = void (*)(Fixture&);
  const std::pair<const char*, Area> areas[] = {
      {"slot.", RunSlots},     {"session.", RunSessions}, {"login.", RunSessions},
      {"object.", RunObjects}, {"attr.", RunAttributes},  {"class.", RunAttributes},
      {"find.", RunFind},      {"op.", RunOperations},    {"key.", RunKeys},
      {"random.", RunRandom},  {"token.", RunToken},
  };
  Area last = nullptr;
  for (const auto& [prefix, run] : areas) {
    if (run == last || !suite.Selected(prefix)) continue;
    last = run;
    run(fixture);
    fixture.Cleanup();
  }
  // C_Finalize closes the application's sessions (§5.4.2): their handles
  // are invalid after the next C_Initialize.
  CK_SESSION_HANDLE open = fixture.Open(false);
  functions->C_Finalize(nullptr);
  CK_SESSION_INFO info;
  if (open != CK_INVALID_HANDLE && functions->C_Initialize(nullptr) == CKR_OK) {
    suite.Rv("general.finalize_closes_sessions", "5.4.2", CKR_SESSION_HANDLE_INVALID,
             functions->C_GetSessionInfo(open, &info));
    functions->C_Finalize(nullptr);
  }
  // The library stays loaded: some modules keep threads that outlive C_Finalize.
  return suite.Finish();
}

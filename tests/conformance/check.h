// The conformance suite's check framework: each check compares what a
// PKCS#11 module answered with what the specification names and prints one
// line, "<id> PASS|FAIL expected <...> got <...> [<spec section>]".
//
// Suite collects the results of one run. With an expectations file (check
// ids one per line, each followed by a one-line reason) a run passes when the
// checks that fail are exactly the listed ones: a listed check that passes
// fails the run too, so the list only shrinks. Single-threaded: the suite
// runs its areas one after another on the main thread.
#pragma once

#include <p11-kit/pkcs11.h>

#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace signet::conformance {

// RvName: "CKR_..." for a return value (the project's one table of names,
// base/rv_names.h; unknown codes as "CKR_0x...").
std::string RvName(CK_RV rv);

// Options: what the suite runs against (from the command line).
struct Options {
  std::string module;       // path of the PKCS#11 module
  std::string token_label;  // label of an initialised token with a user PIN
  std::string user_pin;
  std::string so_pin;
  bool reinit = false;      // the suite may re-initialise the token and use the free slot
  std::string expect_file;  // check ids expected to fail (may be empty)
  std::string only;         // run only checks whose id starts with this
};

class Suite {
 public:
  Suite(CK_FUNCTION_LIST_PTR functions, Options options);

  CK_FUNCTION_LIST_PTR p11() const { return p11_; }
  const Options& options() const { return options_; }

  // Rv records check `id` (section: the specification's section, e.g.
  // "5.7.5"): PASS when `got` is `expected`. Returns whether it passed.
  bool Rv(const std::string& id, const char* section, CK_RV expected, CK_RV got);

  // RvIn: PASS when `got` is one of `allowed` (where the specification
  // itself lets the module choose between these codes).
  bool RvIn(const std::string& id, const char* section, std::initializer_list<CK_RV> allowed,
            CK_RV got);

  // True records a check that is not a return value (a flag, a length, a
  // state): PASS when `ok`; `expected` and `got` are printed as given.
  bool True(const std::string& id, const char* section, bool ok, const std::string& expected,
            const std::string& got);

  // Skip prints a check that could not run (a mechanism the module does not
  // offer, a failed set-up step); it counts neither way.
  void Skip(const std::string& id, const std::string& reason);

  // Selected: whether checks with this id prefix are part of this run.
  bool Selected(const std::string& prefix) const;

  // Finish prints the summary and compares the failures with the
  // expectations file; returns the process exit code (0: as expected).
  int Finish();

 private:
  bool Record(const std::string& id, const char* section, bool ok, const std::string& expected,
              const std::string& got);

  CK_FUNCTION_LIST_PTR p11_;
  Options options_;
  std::vector<std::string> failed_;
  std::set<std::string> seen_;
  int passed_ = 0;
  int skipped_ = 0;
};

// ReadExpectations parses an expectations file: `id reason...` per line,
// blank lines and `#` comments ignored. Returns id -> reason.
std::map<std::string, std::string> ReadExpectations(const std::string& path, std::string* error);

}  // namespace signet::conformance

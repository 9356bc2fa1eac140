// replay_main: the main() of a fuzz target outside libFuzzer. Feeds each
// file named on the command line (or each regular file, sorted, in a named
// directory; names starting with '.' are skipped) to LLVMFuzzerTestOneInput
// once. Exit status 0 when every input ran; a finding aborts the process, so
// ctest reports the test failed and its log names the file last started.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_target.h"

namespace {

std::vector<std::filesystem::path> Inputs(const std::filesystem::path& arg) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::is_directory(arg)) return {arg};
  for (const auto& entry : std::filesystem::directory_iterator(arg)) {
    if (entry.is_regular_file() && entry.path().filename().string().front() != '.') {
      out.push_back(entry.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  int replayed = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::filesystem::exists(argv[i])) continue;  // an empty regressions/ dir is fine
    for (const auto& path : Inputs(argv[i])) {
      std::ifstream in(path, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        return 2;
      }
      std::vector<std::uint8_t> data((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
      std::fprintf(stderr, "replaying %s (%zu bytes)\n", path.c_str(), data.size());
      LLVMFuzzerTestOneInput(data.data(), data.size());
      ++replayed;
    }
  }
  std::printf("replayed %d inputs\n", replayed);
  return 0;
}

// Runs a fuzz target once on each file of the corpus folders (and files) given: the corpus as
// an ordinary test, with any compiler. Exit 0 when every input ran and no input named
// hostile_* was accepted; 1 otherwise. A finding aborts, as under libFuzzer.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "tests/fuzz/fuzz_target.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (fs::is_directory(argv[i], ec)) {
      for (const auto& e : fs::recursive_directory_iterator(argv[i]))
        if (e.is_regular_file()) inputs.push_back(e.path());
    } else if (fs::is_regular_file(argv[i], ec)) {
      inputs.emplace_back(argv[i]);
    } else {
      std::fprintf(stderr, "%s: no such file or folder\n", argv[i]);
      return 1;
    }
  }
  std::sort(inputs.begin(), inputs.end());
  std::size_t accepted = 0, hostile = 0, wrongly_accepted = 0;
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    skb_fuzz_accepted = false;
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    bool is_hostile = path.filename().string().rfind("hostile_", 0) == 0;
    accepted += skb_fuzz_accepted;
    hostile += is_hostile;
    if (is_hostile && skb_fuzz_accepted) {
      std::fprintf(stderr, "%s: a hostile input was accepted\n", path.c_str());
      ++wrongly_accepted;
    }
  }
  std::printf("%zu inputs ran: %zu accepted, %zu hostile refused\n", inputs.size(), accepted,
              hostile - wrongly_accepted);
  return inputs.empty() || wrongly_accepted ? 1 : 0;
}

// Runs a fuzz target once on each file of the corpus folders (and files) given: the corpus as
// an ordinary test, with any compiler. Exit 0 when every input ran, no input named hostile_* was
// accepted and every input named valid (valid.json, valid_*) was: a hostile input is the twin of a
// valid one with one thing wrong, so it is refused for that thing only when its twin is accepted.
// 1 otherwise. A finding aborts, as under libFuzzer.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
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
  std::size_t accepted = 0, hostile = 0, wrongly_accepted = 0, valid = 0, wrongly_refused = 0;
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    skb_fuzz_accepted = false;
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    const std::string name = path.filename().string();
    bool is_hostile = name.rfind("hostile_", 0) == 0;
    bool is_valid = name == "valid" || name.rfind("valid.", 0) == 0 || name.rfind("valid_", 0) == 0;
    accepted += skb_fuzz_accepted;
    hostile += is_hostile;
    valid += is_valid;
    if (is_hostile && skb_fuzz_accepted) {
      std::fprintf(stderr, "%s: a hostile input was accepted\n", path.c_str());
      ++wrongly_accepted;
    }
    if (is_valid && !skb_fuzz_accepted) {
      std::fprintf(stderr, "%s: a valid input was refused\n", path.c_str());
      ++wrongly_refused;
    }
  }
  std::printf("%zu inputs ran: %zu accepted (%zu valid ones of %zu), %zu hostile refused (of %zu)\n", inputs.size(),
              accepted, valid - wrongly_refused, valid, hostile - wrongly_accepted, hostile);
  return inputs.empty() || wrongly_accepted || wrongly_refused ? 1 : 0;
}

#pragma once
// What every fuzz target shares: the libFuzzer entry point, and a check that fails loudly.
// Each target feeds untrusted bytes to one reader of skb. Rejections (common::Error,
// common::FieldError) are the expected outcome for most inputs; any other exception, crash,
// sanitizer report or failed SKB_FUZZ_CHECK is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

/// Set by a target when its reader accepted the input: the corpus replay checks that no input
/// named hostile_* is ever accepted.
inline bool skb_fuzz_accepted = false;

#define SKB_FUZZ_CHECK(cond)                                                                  \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "%s:%d: property does not hold: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)

inline std::string_view fuzz_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

#pragma once
#include <string>
#include <unordered_map>

#include "opmodel/op_record.h"
#include "runtime/index_reader.h"

namespace skb::runtime {

/// For a call with no static kernel: the installed static kernel of its op nearest to it (the
/// fewest fields of the canonical signature that differ, read from each kernel's .info: other
/// fields than shapes first, then shapes of another rank, then dims) and the
/// first field that differs, e.g. "/inputs/0/shape/1: installed 2048, called 2047". Reads the
/// library only here, so a call that finds its kernel pays nothing for it.
std::string explain_miss(const Index& index, const opmodel::OpRecord& call);

/// The signatures of installed kernels (their .info), each read once: for explaining many calls
/// against one index (skb coverage). Not thread-safe.
class InstalledSignatures {
 public:
  /// The kernel's signature; null when it cannot be read.
  const common::Json* get(const IndexEntry& entry);

 private:
  std::unordered_map<std::string, common::Json> by_key_;  // discarded for one that cannot be read
};

/// explain_miss, reading each kernel's .info once through `signatures`.
std::string explain_miss(const Index& index, const opmodel::OpRecord& call, InstalledSignatures& signatures);

}  // namespace skb::runtime

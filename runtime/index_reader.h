#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>

#include "packager/format/launch.h"

namespace skb::runtime {

/// One kernel as the operator library's index lists it.
struct IndexEntry {
  std::string op_type, key, kernel_name, package, entry, sha256, variant;
  std::filesystem::path bin;  // absolute
  packager::Launch launch;    // device "host" for a host kernel
};

/// The merged index of one SoC: config/<soc>/binary_info_config.json of an operator library.
struct Index {
  std::string soc;
  std::unordered_map<std::string, IndexEntry> by_key;  // skbKey → kernel
  // Static kernels not served on this machine class (runtime/payoff.h): skbKey → why; and why
  // this class's evidence was refused, when it was.
  std::unordered_map<std::string, std::string> withheld;
  std::string payoff_problem;

  /// Why the static kernel of `key` is not served on this machine class; nullptr when it is (or
  /// when the index has no kernel of that key).
  const std::string* withheld_reason(const std::string& key) const;
};

/// Parses the text of one binary_info_config.json; binPaths resolve below root. Throws
/// common::FieldError with the JSON pointer of the first malformed field.
std::unordered_map<std::string, IndexEntry> parse_index(std::string_view text, const std::filesystem::path& root);

/// Reads the index of `soc` (empty: the only SoC the library has). The installer replaces the
/// file by rename, so one read sees a whole index. Throws common::Error naming the file and,
/// for a malformed index, the JSON pointer.
Index read_index(const std::filesystem::path& root, const std::string& soc);

}  // namespace skb::runtime

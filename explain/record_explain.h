#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "common/json_diff.h"
#include "common/json_input.h"

namespace skb::explain {
using common::diff_json;
using common::FieldDiff;
using common::show_value;

/// Why two op records are, or are not, the same kernel.
struct RecordExplanation {
  std::string file_a, file_b;
  std::string key_a, key_b;   // SHA-256 of each canonical signature: the runtime's lookup key
  bool same = false;          // the same static kernel
  bool same_dynamic = false;  // the same dynamic kernel (op and dtypes; shapes may differ)
  /// Each field of the canonical signature that differs, by JSON pointer in the record's terms
  /// (/inputs/0/shape/1, /attrs/0/value), with an attr's name in `note`.
  std::vector<FieldDiff> differences;
  std::vector<std::string> notes;  // one per difference: "" or what the pointer names
};

/// Reads and validates a record (field by field and against its op's shape rules). Throws
/// common::Error naming the file and the JSON pointer of a bad field.
/// `canonical` gets the signature's text (its SHA-256 is the runtime's key), `dynamic` the
/// signature of the record's dynamic kernel.
common::Json read_signature(const std::filesystem::path& file, std::string* canonical, std::string* dynamic);

/// Explains two record files.
RecordExplanation explain_records(const std::filesystem::path& a, const std::filesystem::path& b);

/// For people: a verdict line, then one line per difference.
std::string record_text(const RecordExplanation& e);
common::Json record_json(const RecordExplanation& e);

}  // namespace skb::explain

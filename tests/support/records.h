#pragma once
// Op-statistics records for tests, field for field as the format has them.
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "common/json_input.h"
#include "opmodel/op_record.h"

namespace skb::test {

/// A tensor object: name t<index>, required, not a view; format also its origin format.
common::Json tensor(const std::string& dtype, std::vector<std::int64_t> shape, int index = 0,
                    const std::string& format = "ND");
/// A value-dependent input holding `values` (a permutation, multiples, ...).
common::Json value_tensor(const std::string& dtype, std::vector<std::int64_t> values, int index);
common::Json attr(const std::string& name, int index, const std::string& dtype, common::Json value);
/// A whole record; inputs and outputs may hold null for an absent slot. Vectors, not Json:
/// `{tensor(...)}` as a Json argument is a copy for clang, an array for gcc.
common::Json record(const std::string& op, std::vector<common::Json> inputs, std::vector<common::Json> outputs,
                    std::vector<common::Json> attrs = {});

/// Every record file under these folders (recursively) that parses as a record, with its path:
/// the example dump and the fuzz corpus, for properties that must hold for all of them.
std::vector<std::pair<std::filesystem::path, opmodel::OpRecord>> valid_records(const std::vector<std::string>& dirs);

}  // namespace skb::test

#pragma once
// Op-statistics records for tests, field for field as the format has them.
#include <cstdint>
#include <string>
#include <vector>

#include "common/json_input.h"

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

}  // namespace skb::test

#pragma once
#include <string>
#include <vector>

#include "common/json_input.h"

namespace skb::common {

/// One field where two documents differ: its JSON pointer and both values (null: absent there).
struct FieldDiff {
  std::string pointer;
  Json a, b;
  bool in_a = true, in_b = true;
};

/// Every leaf where a and b differ, in document order. Objects are compared member by member,
/// arrays of the same length element by element; arrays of different lengths (a shape of
/// another rank) are one difference at the array's pointer.
std::vector<FieldDiff> diff_json(const Json& a, const Json& b);

/// A value as one line for people: JSON text, "absent" when missing.
std::string show_value(const Json& v, bool present);

}  // namespace skb::common

#pragma once
#include <string_view>
#include <vector>

namespace skb::common {

/// The lines of `text`, each without its '\n': a last line without one counts, and a text that
/// ends in '\n' has no empty line after it ("" has none). Views into `text`, which must outlive
/// them.
std::vector<std::string_view> lines(std::string_view text);

}  // namespace skb::common

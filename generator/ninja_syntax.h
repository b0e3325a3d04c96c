#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace skb::generator {

/// A path as a Ninja build-line token: `$`, space and `:` escaped. Throws common::Error for a
/// path with a line break, which no escape carries.
std::string ninja_path(std::string_view path);

/// A word as one argument of /bin/sh: unchanged when it holds only safe characters,
/// otherwise single-quoted.
std::string shell_quote(std::string_view word);

/// Words joined for a Ninja `command =` line: each shell-quoted, then `$` doubled. Words
/// that are Ninja variable references ($name, or $name.suffix) are kept as they are. Throws
/// common::Error for a word with a line break.
std::string ninja_command(const std::vector<std::string>& words);

}  // namespace skb::generator

#pragma once
// For the command-line units only (CLI11 compiles its inline code in every unit that includes it).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <optional>

#include "common/diag.h"

namespace skb::common {

/// Parses a command line, and gives what the program returns when it is not to go on: --help and
/// --version print their text (0); any other fault is one error in the users' format, `<program>:
/// error: <what>; `<program> --help` lists the options`, and 2 (a bad command line).
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const Diag& diag) {
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    diag.error(fmt::format("{}; `{} --help` lists the options", e.what(), diag.program()));
    return 2;
  }
}

}  // namespace skb::common

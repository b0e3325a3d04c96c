#pragma once
// For the command-line units only (CLI11 compiles its inline code in every unit that includes it).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cmath>
#include <optional>

#include "common/diag.h"
#include "common/error.h"

namespace skb::common {

/// A CLI11 check of a function that throws common::Error for a bad value: its message, or none.
template <class Parse>
CLI::Validator checked_by(Parse parse) {
  return CLI::Validator(
      [parse](std::string& value) {
        try {
          parse(value);
          return std::string();
        } catch (const Error& e) {
          return std::string(e.what());
        }
      },
      "");
}

/// A CLI11 check that a value is not empty: `--soc ""` is refused, not taken as no --soc.
inline CLI::Validator not_empty() {
  return CLI::Validator(
      [](std::string& value) { return value.empty() ? std::string("expected a value, found an empty one") : ""; }, "");
}

/// A CLI11 check of a number from min to max, both included; unlike CLI::Range, NaN (which no
/// comparison refuses) is not in any range.
inline CLI::Validator number_in(double min, double max) {
  // A whole bound in full (1000000000, not 1e+09).
  auto show = [](double d) {
    return d == std::floor(d) && std::fabs(d) <= 1e15 ? fmt::format("{:.0f}", d) : fmt::format("{:g}", d);
  };
  return CLI::Validator(
      [min, max, show](std::string& value) {
        double v = 0;
        if (CLI::detail::lexical_cast(value, v) && v >= min && v <= max) return std::string();
        return fmt::format("{}: expected a number from {} to {}", value, show(min), show(max));
      },
      fmt::format("NUMBER in [{}, {}]", show(min), show(max)));
}

/// CLI11's help, but its usage line leaves out " [SUBCOMMAND]" when every subcommand is internal
/// (in no group, so the help lists none).
class UsageFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string name) const override {
    std::string usage = CLI::Formatter::make_usage(app, std::move(name));
    const std::string_view listed = " [SUBCOMMAND]";
    if (app->get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }).empty())
      if (std::size_t at = usage.find(listed); at != std::string::npos) usage.erase(at, listed.size());
    return usage;
  }
};

/// Parses a command line, and gives what the program returns when it is not to go on: --help and
/// --version print their text (0); any other fault is one error in the users' format, `<program>:
/// error: <what>; `<program> --help` lists the options`, and 2 (a bad command line).
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, const Diag& diag) {
  app.formatter(std::make_shared<UsageFormatter>());
  if (app.get_name().empty()) app.name(diag.program());  // not argv[0]'s path
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::string command = app.get_name();  // the (sub)command whose options were being read
    for (const CLI::App* at = &app; !at->get_subcommands().empty();) {
      at = at->get_subcommands().front();
      command += " " + at->get_name();
    }
    Diag(app.get_name()).error(fmt::format("{}; `{} --help` lists the options", e.what(), command));
    return 2;
  }
}

}  // namespace skb::common

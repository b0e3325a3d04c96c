#pragma once
#include <string>
#include <string_view>

namespace skb::common {

/// Where every message to the user goes: stderr, as `<program>: <level>: <message>`.
class Diag {
 public:
  explicit Diag(std::string program, bool quiet = false) : program_(std::move(program)), quiet_(quiet) {}
  void error(std::string_view message) const;
  void warning(std::string_view message) const;
  /// Progress and summaries; silenced by --quiet.
  void note(std::string_view message) const;
  /// A progress line that overwrites itself on a terminal; nothing otherwise.
  void progress(std::string_view message) const;
  void end_progress() const;
  const std::string& program() const { return program_; }

 private:
  std::string program_;
  bool quiet_;
};

}  // namespace skb::common

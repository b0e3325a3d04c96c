#include "common/diag.h"

#include <unistd.h>

#include <cstdio>

namespace skb::common {
namespace {
void emit(const std::string& program, const char* level, std::string_view message) {
  std::string line = program + ": " + level + std::string(message) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}
bool stderr_is_tty() {
  static const bool tty = ::isatty(2) == 1;
  return tty;
}
}  // namespace

void Diag::error(std::string_view message) const { emit(program_, "error: ", message); }
void Diag::warning(std::string_view message) const { emit(program_, "warning: ", message); }
void Diag::note(std::string_view message) const {
  if (!quiet_) emit(program_, "", message);
}
void Diag::progress(std::string_view message) const {
  if (quiet_ || !stderr_is_tty()) return;
  std::string line = "\r" + program_ + ": " + std::string(message) + "\x1b[K";
  std::fwrite(line.data(), 1, line.size(), stderr);
}
void Diag::end_progress() const {
  if (!quiet_ && stderr_is_tty()) std::fputs("\r\x1b[K", stderr);
}

}  // namespace skb::common

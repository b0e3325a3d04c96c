#include "common/diag.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace skb::common {
namespace {
// One write of the whole line, so that the lines of processes sharing stderr never mix; a write
// that fails before any of it went out is tried once more (the message may be the error that says
// why the program fails, the one output that must reach the user).
void emit(const std::string& program, const char* level, std::string_view message) {
  std::string line = program + ": " + level + std::string(message) + "\n";
  std::fflush(stderr);  // what stdio holds goes first
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::string_view rest = line;
    while (!rest.empty()) {
      ssize_t n = ::write(2, rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
    if (rest.size() != line.size()) return;  // all of it, or a part: a second try would repeat it
  }
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

#include "common/interrupt.h"

#include <fmt/format.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace skb::common {
namespace {

using detail::kForwardedSignals;
volatile std::sig_atomic_t g_signal = 0;
std::atomic<bool> g_forwarding{false};
std::atomic<pid_t> g_child{0};

void on_signal(int signal) {
  int saved = errno;
  g_signal = signal;
  if (pid_t child = g_child.load(); child > 0) ::kill(child, signal);
  errno = saved;
}

}  // namespace

Interrupted::Interrupted(int signal)
    : Error(fmt::format("interrupted by SIG{}: stopped what it ran", ::sigabbrev_np(signal))), signal_(signal) {}

ForwardSignals::ForwardSignals() {
  g_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; ++i) {
    ::sigaction(kForwardedSignals[i], &sa, &old_[i]);
    // One the process was told to ignore (nohup, a background job of a script) stays ignored.
    if (old_[i].sa_handler == SIG_IGN) ::sigaction(kForwardedSignals[i], &old_[i], nullptr);
  }
  g_forwarding = true;
}

ForwardSignals::~ForwardSignals() {
  g_forwarding = false;
  for (int i = 0; i < 3; ++i) ::sigaction(kForwardedSignals[i], &old_[i], nullptr);
}

void throw_if_interrupted() {
  if (int signal = g_signal; signal != 0 && g_forwarding) throw Interrupted(signal);
}

namespace detail {
bool forwarding_signals() { return g_forwarding; }
sigset_t forwarded_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kForwardedSignals) sigaddset(&set, sig);
  return set;
}
void set_signalled_child(pid_t child) { g_child = child; }
}  // namespace detail

}  // namespace skb::common

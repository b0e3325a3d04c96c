#pragma once
#include <sys/types.h>

#include <csignal>

#include "common/error.h"

namespace skb::common {

/// A job stopped by a signal (SIGINT, SIGTERM or SIGHUP) while a ForwardSignals lived.
class Interrupted : public Error {
 public:
  explicit Interrupted(int signal);
  int signal() const { return signal_; }

 private:
  int signal_;
};

/// While one lives, SIGINT, SIGTERM and SIGHUP sent to this process are passed on to the child
/// that run_process waits for (ninja, given one, stops its own), and remembered: run_process
/// throws Interrupted once that child has ended, and starts no other, so that the job's
/// destructors clean up; run_main then ends the process by the same signal. Without it, a
/// `kill PID` left the child running on, and what it published was taken for the job's result.
/// One at a time, on the main thread.
class ForwardSignals {
 public:
  ForwardSignals();
  ~ForwardSignals();
  ForwardSignals(const ForwardSignals&) = delete;
  ForwardSignals& operator=(const ForwardSignals&) = delete;

 private:
  struct sigaction old_[3];
};

/// Throws Interrupted when a signal came while a ForwardSignals lived.
void throw_if_interrupted();

namespace detail {
/// The signals ForwardSignals passes on.
inline constexpr int kForwardedSignals[3] = {SIGINT, SIGTERM, SIGHUP};
/// run_process's part: whether signals are forwarded, and to which child (0: none).
bool forwarding_signals();
/// The signals ForwardSignals passes on (SIGINT, SIGTERM, SIGHUP), as a set to block.
sigset_t forwarded_signals();
void set_signalled_child(pid_t child);
}  // namespace detail

}  // namespace skb::common

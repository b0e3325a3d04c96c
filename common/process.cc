#include "common/process.h"

#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "common/error.h"
#include "common/interrupt.h"

extern char** environ;

namespace skb::common {

std::string find_program(const std::string& name) {
  namespace fs = std::filesystem;
  if (name.find('/') != std::string::npos)
    return ::access(name.c_str(), X_OK) == 0 ? fs::absolute(name).lexically_normal().string() : "";
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "/usr/bin:/bin";
  while (true) {
    std::size_t colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate))
      return fs::absolute(candidate).lexically_normal().string();
    if (colon == std::string_view::npos) return "";
    rest.remove_prefix(colon + 1);
  }
}

namespace {

// posix_spawnp, but the child gets SIGTERM when this process dies, even by SIGKILL (the job's
// ninja would otherwise build on and publish what the caller took for failed). Returns 0 or the
// errno of the start, as posix_spawnp does (`program`: argv[0] found on PATH, empty when it is
// not; no script is run through sh, as execvp would). Called with the forwarded signals blocked;
// the child unblocks them (mask `child_mask`) with their handlers reset, just before it runs the
// program. A child that inherits SIGTERM ignored (a job started so) ignores this one too, unless
// it handles SIGTERM itself, as ninja does.
int spawn_tied(pid_t* pid, const std::string& program, const std::vector<char*>& args, int out_fd, Output output,
               const sigset_t& child_mask) {
  if (program.empty()) return ENOENT;
  int report[2];  // the child's exec errno, if it fails; closed on a successful exec
  if (::pipe2(report, O_CLOEXEC) != 0) return errno;
  const pid_t parent = ::getpid();
  *pid = ::fork();
  if (*pid < 0) {
    int e = errno;
    ::close(report[0]), ::close(report[1]);
    return e;
  }
  if (*pid == 0) {  // only async-signal-safe calls from here to the exec
    if (output == Output::kCapture) ::dup2(out_fd, 1), ::dup2(out_fd, 2);
    if (output == Output::kToStderr) ::dup2(2, 1);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(128 + SIGTERM);  // it died before the prctl
    for (int sig : detail::kForwardedSignals) {
      struct sigaction now {};
      if (::sigaction(sig, nullptr, &now) == 0 && now.sa_handler != SIG_IGN) {
        now.sa_handler = SIG_DFL;
        ::sigaction(sig, &now, nullptr);
      }
    }
    ::sigprocmask(SIG_SETMASK, &child_mask, nullptr);
    ::execve(program.c_str(), args.data(), environ);
    int e = errno;
    (void)!::write(report[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(report[1]);
  int e = 0;
  ssize_t n;
  while ((n = ::read(report[0], &e, sizeof e)) < 0 && errno == EINTR) {
  }
  ::close(report[0]);
  if (n != static_cast<ssize_t>(sizeof e)) return 0;
  while (::waitpid(*pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  return e;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, Output output) {
  const bool capture = output == Output::kCapture;
  if (argv.empty()) throw Error("internal: empty command");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // Under ForwardSignals, the signals it passes on wait, blocked, until the child's pid is known
  // (the child starts with the mask as it was); one that came before is an Interrupted now.
  const bool forwarding = detail::forwarding_signals();
  const std::string program = forwarding ? find_program(argv[0]) : "";  // what may throw, before the mask
  sigset_t before;
  if (forwarding) {
    sigset_t stop = detail::forwarded_signals();
    ::pthread_sigmask(SIG_BLOCK, &stop, &before);
    try {
      throw_if_interrupted();
    } catch (...) {
      ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
      throw;
    }
  }
  int pipefd[2] = {-1, -1};
  if (capture && ::pipe2(pipefd, O_CLOEXEC) != 0) {
    if (forwarding) ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
    throw Error("cannot create a pipe");
  }
  pid_t pid = -1;
  int rc = 0;
  if (forwarding) {
    rc = spawn_tied(&pid, program, args, pipefd[1], output, before);
  } else {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (capture) {
      posix_spawn_file_actions_adddup2(&actions, pipefd[1], 1);
      posix_spawn_file_actions_adddup2(&actions, pipefd[1], 2);
    } else if (output == Output::kToStderr) {
      posix_spawn_file_actions_adddup2(&actions, 2, 1);
    }
    rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
  }
  if (forwarding) {
    if (rc == 0) detail::set_signalled_child(pid);
    ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  }
  ProcessResult result;
  if (capture) ::close(pipefd[1]);
  if (rc != 0) {
    if (capture) ::close(pipefd[0]);
    throw Error(fmt::format("cannot run {}: {}", argv[0], std::strerror(rc)));
  }
  if (capture) {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(pipefd[0], buf, sizeof buf)) != 0) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      result.output.append(buf, static_cast<std::size_t>(n));
    }
    ::close(pipefd[0]);
  }
  if (forwarding) {  // no signal is passed on once it has ended: its pid, reaped, could be another's
    siginfo_t ended{};
    while (::waitid(P_PID, static_cast<id_t>(pid), &ended, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
    }
    detail::set_signalled_child(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  throw_if_interrupted();
  return result;
}

}  // namespace skb::common

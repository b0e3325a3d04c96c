#include "common/process.h"

#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
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

ProcessResult run_process(const std::vector<std::string>& argv, Output output) {
  const bool capture = output == Output::kCapture;
  if (argv.empty()) throw Error("internal: empty command");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // Under ForwardSignals, the signals it passes on wait, blocked, until the child's pid is known
  // (the child starts with the mask as it was); one that came before is an Interrupted now.
  const bool forwarding = detail::forwarding_signals();
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
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (capture) {
    if (::pipe2(pipefd, O_CLOEXEC) != 0) {
      posix_spawn_file_actions_destroy(&actions);
      if (forwarding) ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
      throw Error("cannot create a pipe");
    }
    posix_spawn_file_actions_adddup2(&actions, pipefd[1], 1);
    posix_spawn_file_actions_adddup2(&actions, pipefd[1], 2);
  } else if (output == Output::kToStderr) {
    posix_spawn_file_actions_adddup2(&actions, 2, 1);
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (forwarding) {
    posix_spawnattr_setsigmask(&attr, &before);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  }
  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
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

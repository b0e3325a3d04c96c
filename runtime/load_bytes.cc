#include "runtime/load_bytes.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>
#include <vector>

namespace skb::runtime {

void* dlopen_bytes(std::string_view bytes, const std::string& name, std::string& error) {
  int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) {
    error = fmt::format("memfd_create: {}", std::strerror(errno));
    return nullptr;
  }
  std::vector<int> fds{fd};
  auto fail = [&](std::string why) -> void* {
    for (int f : fds) ::close(f);
    error = std::move(why);
    return nullptr;
  };
  for (std::size_t done = 0; done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail(fmt::format("writing its bytes to a memfd: {}", std::strerror(errno)));
    done += static_cast<std::size_t>(n);
  }
  // Nobody changes them from here: not this process, not another through /proc/PID/fd.
  if (::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
    return fail(fmt::format("sealing its memfd: {}", std::strerror(errno)));
  // dlopen knows a library by the name it was opened by: a library still loaded from an earlier
  // memfd of this fd number would be handed back for this one. Another number then.
  std::string path;
  for (;;) {
    path = fmt::format("/proc/self/fd/{}", fds.back());
    void* loaded = ::dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (!loaded) break;
    ::dlclose(loaded);
    int again = ::fcntl(fds.back(), F_DUPFD_CLOEXEC, fds.back() + 1);
    if (again < 0) return fail(fmt::format("another descriptor for its memfd: {}", std::strerror(errno)));
    fds.push_back(again);
  }
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    return fail(why ? why : "dlopen failed");
  }
  for (int f : fds) ::close(f);  // the mapping keeps the bytes
  return handle;
}

}  // namespace skb::runtime

#include "packager/install/run_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cstring>
#include <string_view>

#include "packager/format/run_header.h"

namespace skb::installer {

RunFile::RunFile(const std::filesystem::path& path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw common::Error(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  struct stat st;
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw common::Error(fmt::format("{}: not a file (a package is a .run file)", path.string()));
  }
  std::string head(1 << 20, '\0');
  ssize_t n = ::pread(fd_, head.data(), head.size(), 0);
  head.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  try {
    header_len = packager::run_header_number(head, "skb_header_len");
    if (header_len > head.size()) throw VerifyError("the header is truncated");
    packager::RunHeaderFields f = packager::parse_run_header(std::string_view(head).substr(0, header_len));
    verify_run_file(fd_, header_len, f.payload_offset + f.payload_size);  // from here, the header's values are its own
    signature_size = f.signature_size;
    package = f.package;
    installer = {fd_, f.installer_offset, f.installer_size, f.installer_sha256, "", "installer"};
    payload = {fd_, f.payload_offset, f.payload_size, f.payload_sha256, package};
    installer_unpacked_sha256 = f.installer_unpacked_sha256;
    installer_unpacked_b2 = f.installer_unpacked_b2;
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

RunFile::~RunFile() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace skb::installer

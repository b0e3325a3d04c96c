#include "packager/install/run_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <string_view>

#include "packager/format/run_header.h"

namespace skb::installer {

using packager::run_header_field;
using packager::run_header_number;
using packager::run_header_value;

RunFile::RunFile(const std::filesystem::path& path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw common::Error(fmt::format("{}: cannot open", path.string()));
  struct stat st;
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw common::Error(fmt::format("{}: not a file (a package is a .run file)", path.string()));
  }
  std::string head(1 << 20, '\0');
  ssize_t n = ::pread(fd_, head.data(), head.size(), 0);
  head.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  header_len = run_header_number(head, "skb_header_len");
  if (header_len > head.size()) throw VerifyError("the header is truncated");
  std::string_view header = std::string_view(head).substr(0, header_len);
  std::uint64_t total = run_header_number(header, "skb_payload_offset") + run_header_number(header, "skb_payload_size");
  verify_run_file(fd_, header_len, total);  // from here, the header's values are its own
  signature_size = run_header_number(header, "skb_signature_size");
  package = run_header_value(header, "skb_package");
  installer = {fd_,
               run_header_number(header, "skb_installer_offset"),
               run_header_number(header, "skb_installer_size"),
               run_header_value(header, "skb_installer_sha256"),
               "",
               "installer"};
  payload = {fd_, run_header_number(header, "skb_payload_offset"), run_header_number(header, "skb_payload_size"),
             run_header_value(header, "skb_payload_sha256"), package};
  installer_unpacked_sha256 = run_header_field(header, "skb_installer_unpacked_sha256").value_or("");
  installer_unpacked_b2 = run_header_field(header, "skb_installer_unpacked_b2").value_or("");
}

RunFile::~RunFile() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace skb::installer

#include "packager/install/run_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <charconv>
#include <optional>
#include <string_view>

namespace skb::installer {

namespace {

// The value of `name=<digits or hex>` at the start of a line of the header; nothing when absent.
std::optional<std::string> header_field(std::string_view header, const std::string& name) {
  std::string key = "\n" + name + "=";
  std::size_t at = header.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t start = at + key.size(), end = header.find('\n', start);
  return std::string(header.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
}

std::string header_value(std::string_view header, const std::string& name) {
  std::optional<std::string> v = header_field(header, name);
  if (!v) throw VerifyError(fmt::format("not a skb package: no {} in its header", name));
  return *v;
}

std::uint64_t header_number(std::string_view header, const std::string& name) {
  std::string text = header_value(header, name);
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    throw VerifyError(fmt::format("not a skb package: {}={} is not a number", name, text));
  return n;
}

}  // namespace

RunFile::RunFile(const std::filesystem::path& path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw common::Error(fmt::format("{}: cannot open", path.string()));
  std::string head(1 << 20, '\0');
  ssize_t n = ::pread(fd_, head.data(), head.size(), 0);
  head.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  header_len = header_number(head, "skb_header_len");
  if (header_len > head.size()) throw VerifyError("the header is truncated");
  std::string_view header = std::string_view(head).substr(0, header_len);
  std::uint64_t total = header_number(header, "skb_payload_offset") + header_number(header, "skb_payload_size");
  verify_run_file(fd_, header_len, total);  // from here, the header's values are its own
  signature_size = header_number(header, "skb_signature_size");
  package = header_value(header, "skb_package");
  installer = {fd_, header_number(header, "skb_installer_offset"), header_number(header, "skb_installer_size"),
               header_value(header, "skb_installer_sha256"), "installer"};
  payload = {fd_, header_number(header, "skb_payload_offset"), header_number(header, "skb_payload_size"),
             header_value(header, "skb_payload_sha256"), package};
  installer_unpacked_sha256 = header_field(header, "skb_installer_unpacked_sha256").value_or("");
}

RunFile::~RunFile() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace skb::installer

#include "packager/install/payload_reader.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <future>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "common/fs.h"
#include "common/sha256.h"
#include "packager/format/run_header.h"
#include "packager/install/block_inflater.h"
#include "packager/install/file_sink.h"
#include "packager/install/payload_filters.h"

namespace skb::installer {
namespace fs = std::filesystem;
using packager::Manifest;

namespace {

constexpr std::size_t kMaxManifest = 64 << 20;

// libarchive reads the payload's byte range with pread, never past its end: the compressed bytes
// for its own decompressors, or, from a payload of gzip blocks, the tar stream that BlockInflater
// unpacks on all cores. Reading is a C callback: an exception waits in `failure` until libarchive
// has returned.
struct RangeReader {
  const PayloadSource* src = nullptr;
  std::unique_ptr<BlockInflater> blocks{};
  std::uint64_t pos = 0;
  std::vector<char> buf{};
  std::exception_ptr failure{};
};

la_ssize_t read_range(archive* a, void* data, const void** out) {
  auto* r = static_cast<RangeReader*>(data);
  if (r->blocks) {
    try {
      std::string_view b = r->blocks->next();
      *out = b.data();
      return static_cast<la_ssize_t>(b.size());
    } catch (...) {
      r->failure = std::current_exception();
      archive_set_error(a, EINVAL, "damaged payload");
      return -1;
    }
  }
  std::uint64_t left = r->src->size - r->pos;
  std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(left, r->buf.size()));
  if (want == 0) return 0;
  ssize_t n;
  do n = ::pread(r->src->fd, r->buf.data(), want, static_cast<off_t>(r->src->offset + r->pos));
  while (n < 0 && errno == EINTR);
  if (n <= 0) return n < 0 ? -1 : 0;
  r->pos += static_cast<std::uint64_t>(n);
  *out = r->buf.data();
  return n;
}

// libarchive's message for the last error (it may have none), with the system's reason when
// there is one: "Write error: No space left on device".
std::string why(archive* a) {
  std::string message = archive_error_string(a) ? archive_error_string(a) : "unknown error";
  int e = archive_errno(a);
  if (e > 0 && message.find(std::strerror(e)) == std::string::npos) message += std::string(": ") + std::strerror(e);
  return message;
}

// Blocks unpacked at once beyond the one being read, when the whole payload is read.
unsigned blocks_ahead() { return std::clamp(std::thread::hardware_concurrency(), 1u, 8u); }

struct ReadArchive {
  archive* a = archive_read_new();
  archive_entry* entry = nullptr;  // the current entry's header
  RangeReader reader;
  // ahead: blocks unpacked ahead on other threads (none when only the manifest is read).
  ReadArchive(const PayloadSource& src, unsigned ahead) : reader{&src} {
    if (BlockInflater::starts_with_block(src.fd, src.offset, src.size)) {
      reader.blocks = std::make_unique<BlockInflater>(src.fd, src.offset, src.size, ahead);
    } else {
      add_payload_filters(a);
      reader.buf.resize(1 << 17);
    }
    archive_read_support_format_tar(a);
    if (archive_read_open(a, &reader, nullptr, &read_range, nullptr) != ARCHIVE_OK) {
      // No destructor runs for a constructor that throws: free the archive here.
      std::string what = why(a);
      archive_read_free(a);
      if (reader.failure) std::rethrow_exception(reader.failure);
      throw VerifyError(fmt::format("the payload is not a readable archive: {}", what));
    }
  }
  ~ReadArchive() { archive_read_free(a); }
  ReadArchive(const ReadArchive&) = delete;
  ReadArchive& operator=(const ReadArchive&) = delete;

  // Throws what made libarchive fail: the reader's exception, or libarchive's own message.
  [[noreturn]] void fail() {
    if (reader.failure) std::rethrow_exception(reader.failure);
    throw VerifyError(fmt::format("damaged payload: {}", why(a)));
  }

  // After the archive's end: the rest of a payload of gzip blocks must be blocks too (the tar's
  // padding at most), so that nothing unchecked trails it.
  void read_to_end() {
    if (reader.blocks)
      while (!reader.blocks->next().empty()) {
      }
  }

  // The next entry's header, or nullptr at the end.
  archive_entry* next() {
    entry = nullptr;
    int rc = archive_read_next_header(a, &entry);
    if (rc == ARCHIVE_EOF) return entry = nullptr;
    if (rc != ARCHIVE_OK) fail();
    return entry;
  }
};

std::string describe_type(archive_entry* e) {
  if (archive_entry_hardlink(e)) return "a hard link";
  switch (archive_entry_filetype(e)) {
    case AE_IFLNK:
      return "a symlink";
    case AE_IFDIR:
      return "a folder";
    case AE_IFCHR:
      return "a character device";
    case AE_IFBLK:
      return "a block device";
    case AE_IFIFO:
      return "a FIFO";
    case AE_IFSOCK:
      return "a socket";
    default:
      return "not a regular file";
  }
}

// Refuses every entry that is not a plain file.
void check_entry(archive_entry* e, const char* path) {
  if (archive_entry_hardlink(e) || archive_entry_symlink(e) || archive_entry_filetype(e) != AE_IFREG)
    throw VerifyError(fmt::format("payload entry {} is {}: refused", path, describe_type(e)));
  if (archive_entry_perm(e) & (S_ISUID | S_ISGID | S_ISVTX))
    throw VerifyError(fmt::format("payload entry {} has a setuid, setgid or sticky bit: refused", path));
}

// The data of the current entry, refused beyond limit bytes.
std::string read_all(ReadArchive& ar, std::uint64_t limit, const char* what) {
  std::string out;
  la_int64_t declared = archive_entry_size_is_set(ar.entry) ? archive_entry_size(ar.entry) : 0;
  if (declared > 0 && static_cast<std::uint64_t>(declared) <= limit) out.reserve(static_cast<std::size_t>(declared));
  // libarchive's own blocks, copied once (archive_read_data would copy each into a buffer first);
  // a hole that a sparse entry skips reads as zeros, as archive_read_data gives it.
  const void* data = nullptr;
  std::size_t size = 0;
  la_int64_t at = 0;
  int rc;
  while ((rc = archive_read_data_block(ar.a, &data, &size, &at)) == ARCHIVE_OK) {
    if (at < 0 || static_cast<std::uint64_t>(at) > limit || size > limit - static_cast<std::uint64_t>(at))
      throw VerifyError(fmt::format("payload entry {} is larger than listed", what));
    if (static_cast<std::uint64_t>(at) < out.size())
      throw VerifyError(fmt::format("payload entry {} is damaged: its blocks overlap", what));
    out.resize(static_cast<std::size_t>(at), '\0');
    out.append(static_cast<const char*>(data), size);
  }
  if (rc != ARCHIVE_EOF) ar.fail();
  return out;
}

// The first entry's bytes, which must be manifest.json.
std::string first_entry_text(ReadArchive& ar) {
  archive_entry* e = ar.next();
  const char* path = e ? archive_entry_pathname(e) : nullptr;
  if (!path || std::strcmp(path, packager::kManifestName) != 0)
    throw VerifyError("the payload does not start with manifest.json");
  check_entry(e, path);
  return read_all(ar, kMaxManifest, path);
}

Manifest parse_payload_manifest(const std::string& text) {
  try {
    return packager::parse_manifest(common::parse_json(text));
  } catch (const common::FieldError& e) {
    throw VerifyError(fmt::format("payload manifest.json: {}", e.describe()));
  }
}

// Checks the entries after the manifest against it, writing them below dest when it is set.
void extract_files(ReadArchive& ar, const Manifest& m, const fs::path& dest, FutureInstalledFiles installed = {}) {
  if (!dest.empty() && ::mkdir(dest.c_str(), 0755) != 0)
    throw common::Error(fmt::format("{}: cannot create: {}", dest.string(), std::strerror(errno)));
  FileSink sink(dest, std::move(installed));
  std::size_t next = 0;
  // A delta package's files that its base holds are not in the payload (the installer links them).
  auto skip_base_files = [&] {
    while (next < m.files.size() && !m.files[next].carried) ++next;
  };
  skip_base_files();
  while (archive_entry* e = ar.next()) {
    const char* path = archive_entry_pathname(e);
    if (!path) throw VerifyError("payload entry without a name: refused");
    check_entry(e, path);
    if (next >= m.files.size() || m.files[next].path != path)
      throw VerifyError(fmt::format("payload entry {} is not the next file the manifest lists: refused", path));
    const packager::PackageFile& want = m.files[next++];
    std::string data = read_all(ar, want.size, path);
    sink.put(want, std::move(data));
    skip_base_files();
  }
  if (next != m.files.size())
    throw VerifyError(
        fmt::format("the payload lacks {} of the {} files its manifest lists", m.files.size() - next, m.files.size()));
  ar.read_to_end();
  sink.finish();
}

// Checks that bytes [offset, offset + size) of fd hash to sha256 (hex); `what` names them.
void verify_range(int fd, std::uint64_t offset, std::uint64_t size, std::string_view sha256, const char* what) {
  common::Sha256 h;
  std::vector<char> buf(1 << 16);  // small: every page of a buffer is a page fault to pay
  for (std::uint64_t pos = 0; pos < size;) {
    std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(size - pos, buf.size()));
    if (!pread_full(fd, buf.data(), want, offset + pos)) throw VerifyError(fmt::format("the {} is truncated", what));
    h.update(buf.data(), want);
    pos += want;
  }
  if (h.hex() != sha256) throw VerifyError(fmt::format("{} checksum mismatch: the file is damaged", what));
}

}  // namespace

bool pread_full(int fd, char* buf, std::size_t n, std::uint64_t offset) {
  for (std::size_t got = 0; got < n;) {
    ssize_t r = ::pread(fd, buf + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += static_cast<std::size_t>(r);
  }
  return true;
}

void verify_run_file(int fd, std::uint64_t header_len, std::uint64_t total) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) != total)
    throw VerifyError(fmt::format("{} bytes, expected {}: the file is truncated or damaged",
                                  static_cast<long long>(st.st_size), total));
  constexpr std::uint64_t kMaxHeader = 1 << 20;
  char line[packager::kStubHashLine];
  if (header_len == 0 || header_len > kMaxHeader || header_len + sizeof line > total ||
      !pread_full(fd, line, sizeof line, header_len) || line[sizeof line - 1] != '\n')
    throw VerifyError("header checksum mismatch: the file is damaged");
  verify_range(fd, 0, header_len, std::string_view(line, sizeof line - 1), "header");
}

void verify_payload_hash(const PayloadSource& src) { verify_range(src.fd, src.offset, src.size, src.sha256, src.what); }

PayloadManifest read_manifest(const PayloadSource& src) {
  ReadArchive ar(src, 0);
  PayloadManifest pm;
  pm.text = first_entry_text(ar);
  pm.manifest = parse_payload_manifest(pm.text);
  return pm;
}

PayloadManifest read_checked_manifest(const PayloadSource& src) {
  std::future<void> hashed = std::async(std::launch::async, [&src] { verify_payload_hash(src); });
  std::optional<PayloadManifest> pm;
  std::exception_ptr unread;
  try {
    pm = read_manifest(src);
  } catch (...) {
    unread = std::current_exception();
  }
  hashed.get();
  if (unread) std::rethrow_exception(unread);
  return std::move(*pm);
}

Manifest read_payload(const PayloadSource& src, const fs::path& dest) {
  ReadArchive ar(src, blocks_ahead());
  Manifest m = parse_payload_manifest(first_entry_text(ar));
  extract_files(ar, m, dest);
  return m;
}

void read_payload(const PayloadSource& src, const fs::path& dest, const PayloadManifest& known,
                  FutureInstalledFiles installed) {
  ReadArchive ar(src, blocks_ahead());
  if (first_entry_text(ar) != known.text) throw VerifyError("the payload's manifest changed while it was read");
  extract_files(ar, known.manifest, dest, std::move(installed));
}

}  // namespace skb::installer

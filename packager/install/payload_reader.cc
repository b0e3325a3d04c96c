#include "packager/install/payload_reader.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "common/fs.h"
#include "common/sha256.h"

namespace skb::installer {
namespace fs = std::filesystem;
using packager::Manifest;

namespace {

constexpr std::size_t kMaxManifest = 64 << 20;

// libarchive reads the payload's byte range with pread, never past its end.
struct RangeReader {
  const PayloadSource* src;
  std::uint64_t pos = 0;
  std::vector<char> buf = std::vector<char>(1 << 17);
};

la_ssize_t read_range(archive*, void* data, const void** out) {
  auto* r = static_cast<RangeReader*>(data);
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

struct ReadArchive {
  archive* a = archive_read_new();
  RangeReader reader;
  explicit ReadArchive(const PayloadSource& src) : reader{&src} {
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_zstd(a);
    archive_read_support_filter_xz(a);
    archive_read_support_format_tar(a);
    if (archive_read_open(a, &reader, nullptr, &read_range, nullptr) != ARCHIVE_OK) {
      // No destructor runs for a constructor that throws: free the archive here.
      std::string what = why(a);
      archive_read_free(a);
      throw VerifyError(fmt::format("the payload is not a readable archive: {}", what));
    }
  }
  ~ReadArchive() { archive_read_free(a); }
  ReadArchive(const ReadArchive&) = delete;
  ReadArchive& operator=(const ReadArchive&) = delete;

  // The next entry's header, or nullptr at the end.
  archive_entry* next() {
    archive_entry* e = nullptr;
    int rc = archive_read_next_header(a, &e);
    if (rc == ARCHIVE_EOF) return nullptr;
    if (rc != ARCHIVE_OK) throw VerifyError(fmt::format("damaged payload: {}", why(a)));
    return e;
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

std::string read_all(ReadArchive& ar, std::size_t limit, const char* what) {
  std::string out;
  char buf[1 << 16];
  la_ssize_t n;
  while ((n = archive_read_data(ar.a, buf, sizeof buf)) > 0) {
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > limit) throw VerifyError(fmt::format("payload entry {} is too large", what));
  }
  if (n < 0) throw VerifyError(fmt::format("damaged payload: {}", why(ar.a)));
  return out;
}

Manifest first_entry_manifest(ReadArchive& ar) {
  archive_entry* e = ar.next();
  const char* path = e ? archive_entry_pathname(e) : nullptr;
  if (!path || std::strcmp(path, packager::kManifestName) != 0)
    throw VerifyError("the payload does not start with manifest.json");
  check_entry(e, path);
  try {
    return packager::parse_manifest(common::parse_json(read_all(ar, kMaxManifest, path)));
  } catch (const common::FieldError& e2) {
    throw VerifyError(fmt::format("payload manifest.json: {}", e2.describe()));
  }
}

void make_dirs_below(const fs::path& dest, const std::string& rel) {
  fs::path cur = dest;
  fs::path parent = fs::path(rel).parent_path();
  for (const auto& part : parent) common::ensure_real_dir(cur /= part);
}

}  // namespace

void verify_payload_hash(const PayloadSource& src) {
  common::Sha256 h;
  std::vector<char> buf(1 << 20);
  std::uint64_t pos = 0;
  while (pos < src.size) {
    std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(src.size - pos, buf.size()));
    ssize_t n = ::pread(src.fd, buf.data(), want, static_cast<off_t>(src.offset + pos));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw VerifyError("the payload is truncated");
    h.update(buf.data(), static_cast<std::size_t>(n));
    pos += static_cast<std::uint64_t>(n);
  }
  if (h.hex() != src.sha256) throw VerifyError("payload checksum mismatch: the file is damaged");
}

Manifest read_manifest(const PayloadSource& src) {
  ReadArchive ar(src);
  return first_entry_manifest(ar);
}

Manifest read_payload(const PayloadSource& src, const fs::path& dest) {
  ReadArchive ar(src);
  Manifest m = first_entry_manifest(ar);
  if (!dest.empty() && ::mkdir(dest.c_str(), 0755) != 0)
    throw common::Error(fmt::format("{}: cannot create: {}", dest.string(), std::strerror(errno)));
  std::size_t next = 0;
  std::vector<char> buf(1 << 16);
  std::string made;  // the last folder made below dest: files come sorted, most share it
  while (archive_entry* e = ar.next()) {
    const char* path = archive_entry_pathname(e);
    if (!path) throw VerifyError("payload entry without a name: refused");
    check_entry(e, path);
    if (next >= m.files.size() || m.files[next].path != path)
      throw VerifyError(fmt::format("payload entry {} is not the next file the manifest lists: refused", path));
    const packager::PackageFile& want = m.files[next++];
    int fd = -1;
    if (!dest.empty()) {
      std::string folder = want.path.substr(0, want.path.rfind('/') + 1);
      if (folder != made) {
        make_dirs_below(dest, want.path);
        made = folder;
      }
      fs::path out = dest / want.path;
      fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (fd < 0) throw common::Error(fmt::format("{}: cannot create: {}", out.string(), std::strerror(errno)));
    }
    std::unique_ptr<int, void (*)(int*)> closer(&fd, [](int* f) {
      if (*f >= 0) ::close(*f);
    });
    common::Sha256 h;
    std::uint64_t size = 0;
    la_ssize_t n;
    while ((n = archive_read_data(ar.a, buf.data(), buf.size())) > 0) {
      h.update(buf.data(), static_cast<std::size_t>(n));
      size += static_cast<std::uint64_t>(n);
      if (size > want.size) throw VerifyError(fmt::format("payload entry {} is larger than listed", path));
      for (la_ssize_t done = 0; fd >= 0 && done < n;) {
        ssize_t w = ::write(fd, buf.data() + done, static_cast<std::size_t>(n - done));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0)
          throw common::Error(fmt::format("{}: write failed: {}", (dest / want.path).string(), std::strerror(errno)));
        done += w;
      }
    }
    if (n < 0) throw VerifyError(fmt::format("damaged payload: {}", why(ar.a)));
    if (size != want.size || h.hex() != want.sha256)
      throw VerifyError(fmt::format("payload entry {} does not match its sha256 in the manifest", path));
    // Start writing the file to disk now, as dpkg does, so that the caller's sync before
    // publishing finds little left to wait for.
    if (fd >= 0) ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
  }
  if (next != m.files.size())
    throw VerifyError(
        fmt::format("the payload lacks {} of the {} files its manifest lists", m.files.size() - next, m.files.size()));
  return m;
}

}  // namespace skb::installer

#include "store/entry.h"

#include <archive.h>
#include <archive_entry.h>

#include <fmt/format.h>
#include <map>
#include <memory>

namespace skb::store {

namespace {

constexpr const char* kRecord = "build.json";
constexpr const char* kBinary = "kernel";
constexpr const char* kSidecar = "sidecar.json";
constexpr const char* kKey = "key.json";
constexpr const char* kSignature = "signature";
constexpr std::size_t kMaxMember = std::size_t(1) << 30;

struct WriteDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct ReadDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};

std::string why(archive* a) { return archive_error_string(a) ? archive_error_string(a) : "unknown error"; }

la_ssize_t append(archive*, void* out, const void* data, std::size_t n) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(data), n);
  return static_cast<la_ssize_t>(n);
}

void add(archive* a, const char* name, const std::string& data, unsigned mode = 0644) {
  std::unique_ptr<archive_entry, void (*)(archive_entry*)> e(archive_entry_new(), &archive_entry_free);
  archive_entry_set_pathname(e.get(), name);
  archive_entry_set_filetype(e.get(), AE_IFREG);
  archive_entry_set_perm(e.get(), mode & 0755);
  archive_entry_set_size(e.get(), static_cast<la_int64_t>(data.size()));
  if (archive_write_header(a, e.get()) < ARCHIVE_WARN ||
      (!data.empty() && archive_write_data(a, data.data(), data.size()) != static_cast<la_ssize_t>(data.size())))
    throw std::runtime_error(fmt::format("libarchive: packing {}: {}", name, why(a)));
}

}  // namespace

std::string pack_entry(const EntryFiles& files) {
  std::string out;
  std::unique_ptr<archive, WriteDeleter> a(archive_write_new());
  if (!a || archive_write_set_format_ustar(a.get()) != ARCHIVE_OK ||
      archive_write_add_filter_zstd(a.get()) != ARCHIVE_OK ||
      archive_write_set_bytes_in_last_block(a.get(), 1) != ARCHIVE_OK ||
      archive_write_open2(a.get(), &out, nullptr, append, nullptr, nullptr) != ARCHIVE_OK)
    throw std::runtime_error(fmt::format("libarchive: {}", a ? why(a.get()) : "out of memory"));
  add(a.get(), kRecord, files.record);
  add(a.get(), kBinary, files.binary, files.binary_mode);
  if (files.sidecar) add(a.get(), kSidecar, *files.sidecar);
  if (files.key) add(a.get(), kKey, *files.key);
  if (files.signature) add(a.get(), kSignature, *files.signature);
  if (archive_write_close(a.get()) != ARCHIVE_OK) throw std::runtime_error("libarchive: " + why(a.get()));
  return out;
}

EntryFiles unpack_entry(const std::string& object) {
  std::unique_ptr<archive, ReadDeleter> a(archive_read_new());
  if (!a) throw BadEntry("out of memory");
  archive_read_support_filter_zstd(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_memory(a.get(), object.data(), object.size()) != ARCHIVE_OK)
    throw BadEntry(fmt::format("not an entry: {}", why(a.get())));
  std::map<std::string, std::string> members;
  unsigned binary_mode = 0644;
  archive_entry* e = nullptr;
  int rc;
  while ((rc = archive_read_next_header(a.get(), &e)) == ARCHIVE_OK) {
    std::string name = archive_entry_pathname(e) ? archive_entry_pathname(e) : "";
    if (name != kRecord && name != kBinary && name != kSidecar && name != kKey && name != kSignature)
      throw BadEntry(fmt::format("unknown member '{}'", name));
    if (archive_entry_filetype(e) != AE_IFREG || archive_entry_size(e) < 0 ||
        static_cast<std::uint64_t>(archive_entry_size(e)) > kMaxMember)
      throw BadEntry(fmt::format("member {}: not a file of at most 1 GiB", name));
    if (members.count(name)) throw BadEntry(fmt::format("member {} twice", name));
    std::string data(static_cast<std::size_t>(archive_entry_size(e)), '\0');
    la_ssize_t n = data.empty() ? 0 : archive_read_data(a.get(), data.data(), data.size());
    if (n != static_cast<la_ssize_t>(data.size()))
      throw BadEntry(fmt::format("member {}: {}", name, n < 0 ? why(a.get()) : "truncated"));
    if (name == kBinary) binary_mode = static_cast<unsigned>(archive_entry_perm(e)) & 0755;
    members.emplace(name, std::move(data));
  }
  if (rc != ARCHIVE_EOF) throw BadEntry(fmt::format("truncated or damaged: {}", why(a.get())));
  if (!members.count(kRecord) || !members.count(kBinary)) throw BadEntry("a member is missing");
  EntryFiles files;
  files.record = members[kRecord];
  files.binary = members[kBinary];
  files.binary_mode = binary_mode;
  if (members.count(kSidecar)) files.sidecar = members[kSidecar];
  if (members.count(kKey)) files.key = members[kKey];
  if (members.count(kSignature)) files.signature = members[kSignature];
  return files;
}

}  // namespace skb::store

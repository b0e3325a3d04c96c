// A .run's payload, as the installer reads it after the stub has checked the header: every
// entry checked against the manifest, and extracted into a fresh staging folder. Properties:
// an accepted payload extracts only regular files, below the staging folder, listed by the
// manifest, none of them setuid or writable by others.
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>

#include "common/error.h"
#include "packager/install/payload_reader.h"
#include "tests/fuzz/fuzz_target.h"

namespace fs = std::filesystem;

namespace {

struct Scratch {
  fs::path dir;
  Scratch() {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/skb_fuzz_payload.XXXXXX";
    SKB_FUZZ_CHECK(::mkdtemp(tmpl.data()) != nullptr);
    dir = tmpl;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

void check_extracted(const fs::path& dest, const skb::packager::Manifest& m) {
  std::set<std::string> listed;
  for (const auto& f : m.files) listed.insert(f.path);
  for (fs::recursive_directory_iterator it(dest), end; it != end; ++it) {
    struct stat st {};
    SKB_FUZZ_CHECK(::lstat(it->path().c_str(), &st) == 0);
    SKB_FUZZ_CHECK(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode));
    SKB_FUZZ_CHECK((st.st_mode & (S_ISUID | S_ISGID | S_ISVTX | S_IWOTH)) == 0);
    if (S_ISREG(st.st_mode)) {
      std::string rel = it->path().lexically_relative(dest).string();
      SKB_FUZZ_CHECK(rel == skb::packager::kManifestName || listed.count(rel) == 1);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace skb;
  int fd = ::memfd_create("payload", MFD_CLOEXEC);
  SKB_FUZZ_CHECK(fd >= 0);
  SKB_FUZZ_CHECK(::write(fd, data, size) == static_cast<ssize_t>(size));
  installer::PayloadSource src{fd, 0, size, "", ""};
  try {
    packager::Manifest checked = installer::read_payload(src, "");
    Scratch scratch;
    fs::path dest = scratch.dir / "staging";
    packager::Manifest m = installer::read_payload(src, dest);
    SKB_FUZZ_CHECK(m.files.size() == checked.files.size());
    check_extracted(dest, m);
    skb_fuzz_accepted = true;
  } catch (const common::Error&) {
  }
  ::close(fd);
  return 0;
}

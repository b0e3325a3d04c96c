#include "packager/package.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <set>

#include "common/error.h"
#include "common/fs.h"
#include "common/sha256.h"
#include "common/text.h"
#include "packager/collect.h"
#include "packager/format/gzip_bytes.h"
#include "packager/format/manifest.h"
#include "packager/format/run_header.h"
#include "packager/install/payload_reader.h"
#include "packager/install/run_file.h"
#include "packager/left_out.h"
#include "packager/stub.h"
#include "trust/blake2b.h"
#include "trust/key.h"
#include "trust/signature.h"

namespace skb::packager {
namespace fs = std::filesystem;
using common::Error;

std::int64_t package_epoch() {
  const char* env = std::getenv("SOURCE_DATE_EPOCH");
  if (env == nullptr || *env == '\0') return static_cast<std::int64_t>(std::time(nullptr));
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(env, &end, 10);
  if (errno != 0 || *end != '\0' || v < 0 || v > 253402300799LL)
    throw Error(fmt::format("SOURCE_DATE_EPOCH={}: expected a non-negative integer of seconds", env));
  return v;
}

std::string package_name(std::int64_t epoch, const std::string& digest) {
  std::time_t t = static_cast<std::time_t>(epoch);
  return fmt::format("static_kernel_{:%Y%m%d%H%M%S}_{}", fmt::gmtime(t), digest.substr(0, 8));
}

fs::path default_installer(Compression payload) {
  const char* name = payload == Compression::kGzip ? "skb-install.gz" : "skb-install-all.gz";
  return (common::self_exe().parent_path() / SKB_LIBEXEC_RELDIR / name).lexically_normal();
}

namespace {

// The installer skb-package puts into a .run, gzip-compressed, and what it unpacks to.
struct Installer {
  std::string gz;
  std::uint64_t unpacked_size = 0;
  std::string unpacked_sha256;
  std::string unpacked_b2;
};

Installer read_installer(const fs::path& file) {
  Installer i;
  i.gz = common::read_file(file, 1 << 30);
  std::optional<std::string> bytes = gunzip_bytes(i.gz, std::size_t{1} << 30);
  if (!bytes) throw Error(fmt::format("{}: not a gzip file (a broken skb installation?)", file.string()));
  i.unpacked_size = bytes->size();
  i.unpacked_sha256 = common::sha256_hex(*bytes);
  i.unpacked_b2 = trust::blake2b512_hex(*bytes);
  return i;
}

void check_records_list(const fs::path& list, const Collected& c) {
  std::set<std::string> expected, packed;
  std::string text = common::read_file(list, 1 << 28);
  for (std::string_view line : common::lines(text))
    if (!line.empty()) expected.insert(fs::path(line).stem().string());
  for (const auto& k : c.manifest.kernels) packed.insert(k.name);
  if (expected != packed)
    throw Error(fmt::format("{}: the build graph lists {} kernels, plan.json {}: regenerate with skb-generate",
                            list.string(), expected.size(), packed.size()));
}

void append_file(std::FILE* out, const fs::path& in, const fs::path& out_path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(in.c_str(), "rb"), &std::fclose);
  if (!f) throw Error(fmt::format("{}: cannot open", in.string()));
  char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0)
    if (std::fwrite(buf, 1, n, out) != n)
      throw Error(fmt::format("{}: write failed: {}", out_path.string(), std::strerror(errno)));
}

// What the package holds, whatever its date: the digest in its name.
std::string content_digest(const Manifest& m, Compression compression) {
  common::Sha256 h;
  h.update(fmt::format("{}\n{}\n{}\n{}\n", m.soc, m.toolchain, m.toolchain_identity, static_cast<int>(compression)));
  for (const auto& f : m.files) h.update(f.path + " " + f.sha256 + (f.carried ? "\n" : " base\n"));
  if (!m.base.empty()) h.update("base " + m.base + "\n");
  return h.hex();
}

// Makes the package a delta on the package of `base_run`: its files whose bytes that package
// holds are left out of the payload (carried false). The base is read as skb verify reads a
// package (its header, payload hash and manifest checked); its signature is not needed: only
// its files' hashes are used, and the installer finds those bytes in the library or refuses.
std::string make_delta(Collected& c, const fs::path& base_run) {
  refuse_moving_base(base_run);
  std::optional<installer::RunFile> opened;
  packager::Manifest base;
  try {
    opened.emplace(base_run);
    base = installer::read_checked_manifest(opened->payload).manifest;
  } catch (const installer::VerifyError& e) {
    throw Error(fmt::format("--base {}: {}", base_run.string(), e.what()));
  }
  const installer::RunFile& run = *opened;
  std::set<std::string> held;
  for (const auto& f : base.files) held.insert(f.sha256);
  for (auto& f : c.manifest.files) f.carried = !held.count(f.sha256);
  c.manifest.base = base.package;
  return run.installer_unpacked_sha256;
}

// What a packaging killed while it wrote left in dir (.static_kernel_*.payload.tmp.<pid> and
// .static_kernel_*.run.tmp.<pid> of a process that has ended): removed, as the folder of the
// packages holds nothing but packages.
void remove_dead_temps(const fs::path& dir) {
  for (const std::string& file : common::list_dir(dir))
    if (file.rfind(".static_kernel", 0) == 0 && file.find(".tmp.") != std::string::npos &&
        !common::is_live_temp(dir / file))
      common::remove_file(dir / file);
}

// <dir>/static_kernel.run: a hard link (a copy across file systems) to the newest package,
// replaced by rename, for build systems that need a name known in advance (the CMake module's
// OUTPUT_VARIABLE). It lives in the build folder, so that the folder of the packages holds
// nothing but packages.
void link_latest(const PackageResult& r, const fs::path& dir) {
  fs::path latest = dir / kLatestPackageLink;
  fs::path tmp = dir / fmt::format(".static_kernel.run.tmp.{}", ::getpid());
  ::unlink(tmp.c_str());
  if (::link(r.run.c_str(), tmp.c_str()) != 0) {
    std::error_code ec;
    if (errno != EXDEV || !fs::copy_file(r.run, tmp, ec) || ec) {
      ::unlink(tmp.c_str());
      throw Error(fmt::format("{}: cannot link to {}: {}", latest.string(), r.run.string(), std::strerror(errno)));
    }
  }
  if (::rename(tmp.c_str(), latest.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw Error(fmt::format("{}: cannot replace: {}", latest.string(), std::strerror(errno)));
  }
}

// What a build folder's stamp says of the package it made last.
struct Stamp {
  fs::path run;
  std::string sha256;
};
std::optional<Stamp> read_stamp(const fs::path& stamp) {
  if (stamp.empty()) return std::nullopt;
  try {
    std::optional<std::string> text = common::read_file_if_exists(stamp, 1 << 20);
    if (!text) return std::nullopt;
    common::Json j = common::parse_json(*text);
    return Stamp{j.at("run").get<std::string>(), j.at("sha256").get<std::string>()};
  } catch (const std::exception&) {
    return std::nullopt;  // a stamp of an older skb, or damaged: no package to follow
  }
}

// The package this build made before, as its stamp names it, when it is not `now`.
std::optional<fs::path> previous_package(const std::optional<Stamp>& s, const fs::path& now) {
  if (s && s->run != now && s->run.parent_path() == now.parent_path() && is_package_name(s->run.stem().string()))
    return s->run;
  return std::nullopt;
}

// Whether the package at `run` (its bytes hashing to `sha256`) is the one this build made before
// under the same name, untouched since: a build that names its package replaces its own.
bool made_here_before(const std::optional<Stamp>& s, const fs::path& run, const std::string& sha256) {
  return s && s->run == run && s->sha256 == sha256;
}

void write_stamp(const fs::path& stamp, const PackageResult& r) {
  common::Json j = {
      {"run", r.run.string()}, {"package", r.package}, {"sha256", r.sha256}, {"size", r.size}, {"kernels", r.kernels}};
  common::write_if_changed(stamp, j.dump(2) + "\n");
}

// Removes a file on scope exit unless released.
struct TempFile {
  fs::path path;
  ~TempFile() {
    if (!path.empty()) ::unlink(path.c_str());
  }
};

}  // namespace

PackageResult make_package(const PackageOptions& o) {
  Collected c = collect_kernels(o.build_dir);
  if (!o.records_from.empty()) check_records_list(o.records_from, c);
  if (!o.payoff.empty()) leave_out_slower(c, read_payoff_file(o.payoff));
  if (c.manifest.kernels.empty()) throw Error(fmt::format("{}: no kernels to package", o.build_dir.string()));
  // The signing key first: one that cannot be read fails the packaging before its work, and
  // before the output folder is made.
  std::optional<trust::SigningKey> key;
  if (!o.sign_key.empty()) key = trust::read_signing_key(o.sign_key);
  std::int64_t epoch = package_epoch();
  fs::path out_dir = o.output_dir.empty() ? o.build_dir : o.output_dir;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw Error(fmt::format("{}: cannot create: {}", out_dir.string(), ec.message()));
  fs::path installer = o.installer.empty() ? default_installer(o.compression) : o.installer;
  if (!fs::is_regular_file(installer))
    throw Error(fmt::format("{}: the installer that goes into every .run is missing (a broken skb installation?)",
                            installer.string()));

  if (!o.name.empty() && !is_package_name(o.name))
    throw Error(fmt::format("{}: expected a package name static_kernel_[A-Za-z0-9_]+", o.name));
  std::string base_installer = o.base.empty() ? "" : make_delta(c, o.base);
  c.manifest.package = o.name.empty() ? package_name(epoch, content_digest(c.manifest, o.compression)) : o.name;
  if (c.manifest.package == c.manifest.base)
    throw Error(fmt::format("{}: the package would be its own base", c.manifest.package));
  c.manifest.created = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(static_cast<std::time_t>(epoch)));
  remove_dead_temps(out_dir);
  TempFile payload{out_dir / fmt::format(".{}.payload.tmp.{}", c.manifest.package, ::getpid())};
  std::vector<SourceFile> carried;  // what the payload holds: a delta leaves its base's files out
  for (std::size_t i = 0; i < c.files.size(); ++i)
    if (c.manifest.files[i].carried) carried.push_back(c.files[i]);
  refuse_mismatches(o.build_dir, write_payload(payload.path, manifest_json(c.manifest), carried, o.compression, epoch),
                    c.manifest.kernels.size());

  StubInput si;
  si.package = c.manifest.package;
  si.soc = c.manifest.soc;
  si.kernels = c.manifest.kernels.size();
  // Read once: its size and hashes for the header, then its bytes for the .run. A delta whose
  // base has the same installer leaves it out: it runs the copy its base left in the library.
  Installer inst = read_installer(installer);
  if (!o.self_contained && !base_installer.empty() && base_installer == inst.unpacked_sha256) inst.gz.clear();
  si.installer_size = inst.gz.size();
  si.installer_sha256 = common::sha256_hex(inst.gz);
  si.installer_unpacked_size = inst.unpacked_size;
  si.installer_unpacked_sha256 = inst.unpacked_sha256;
  si.installer_unpacked_b2 = inst.unpacked_b2;
  si.base = c.manifest.base;
  si.payload_size = fs::file_size(payload.path);
  si.payload_sha256 = common::sha256_file(payload.path);
  si.signature_size = key ? trust::signature_line_size(key->name()) : 0;
  std::string stub = make_stub(si);
  std::string signature =
      key ? trust::signature_line(*key,
                                  package_signed_message(std::string_view(stub).substr(0, stub.size() - kStubHashLine)))
          : "";

  PackageResult r;
  r.package = c.manifest.package;
  if (key) r.signer = key->name();
  r.kernels = c.manifest.kernels.size();
  r.run = fs::absolute(out_dir / (r.package + ".run")).lexically_normal();
  TempFile run_tmp{out_dir / fmt::format(".{}.run.tmp.{}", r.package, ::getpid())};
  {
    int fd = ::open(run_tmp.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0755);
    if (fd < 0) throw Error(fmt::format("{}: cannot create: {}", run_tmp.path.string(), std::strerror(errno)));
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(::fdopen(fd, "wb"), &std::fclose);
    if (std::fwrite(stub.data(), 1, stub.size(), out.get()) != stub.size() ||
        std::fwrite(signature.data(), 1, signature.size(), out.get()) != signature.size() ||
        std::fwrite(inst.gz.data(), 1, inst.gz.size(), out.get()) != inst.gz.size())
      throw Error(fmt::format("{}: write failed: {}", run_tmp.path.string(), std::strerror(errno)));
    append_file(out.get(), payload.path, run_tmp.path);
    if (std::fflush(out.get()) != 0 || ::fsync(fd) != 0)
      throw Error(fmt::format("{}: write failed: {}", run_tmp.path.string(), std::strerror(errno)));
  }
  ::chmod(run_tmp.path.c_str(), 0755);
  r.sha256 = common::sha256_file(run_tmp.path);
  r.size = fs::file_size(run_tmp.path);

  const std::optional<Stamp> made_before = read_stamp(o.stamp);  // read once, before it names this package
  if (::renameat2(AT_FDCWD, run_tmp.path.c_str(), AT_FDCWD, r.run.c_str(), RENAME_NOREPLACE) == 0) {
    run_tmp.path.clear();
  } else if (errno == EEXIST) {
    const std::string there = common::sha256_file(r.run);
    if (there == r.sha256) {
      r.unchanged = true;
    } else if (o.force || made_here_before(made_before, r.run, there)) {
      if (::rename(run_tmp.path.c_str(), r.run.c_str()) != 0)
        throw Error(fmt::format("{}: cannot replace: {}", r.run.string(), std::strerror(errno)));
      run_tmp.path.clear();
    } else {
      throw Error(
          fmt::format("{} already exists with other contents; it is left as it is (use --force to replace "
                      "it, or set SOURCE_DATE_EPOCH to another time)",
                      r.run.string()));
    }
  } else {
    throw Error(fmt::format("{}: cannot publish: {}", r.run.string(), std::strerror(errno)));
  }
  if (!o.stamp.empty()) {
    // The one this package follows goes (one .run per folder), but never the base a delta needs:
    // told before the link to the newest package moves.
    std::optional<fs::path> before = previous_package(made_before, r.run);
    if (before && !o.base.empty() && common::same_file(*before, o.base)) before.reset();
    link_latest(r, o.stamp.parent_path().empty() ? fs::path(".") : o.stamp.parent_path());
    write_stamp(o.stamp, r);
    if (before) ::unlink(before->c_str());
  }
  return r;
}

}  // namespace skb::packager

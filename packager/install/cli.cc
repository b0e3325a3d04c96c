#include "packager/install/cli.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cstdlib>
#include <set>

#include "common/error.h"
#include "common/fs.h"
#include "packager/format/run_header.h"
#include "packager/install/library.h"
#include "packager/install/options.h"
#include "packager/install/payload_reader.h"
#include "packager/install/trust_policy.h"

namespace skb::installer {
namespace fs = std::filesystem;

namespace {

// The stub's temporary files: this program (loaded, so it can go now) and its scratch file.
void remove_work_file(const std::string& file) {
  ::unlink(file.c_str());
  ::unlink((file + ".t").c_str());
  ::unlink((file + ".h").c_str());
}

// The folder in which the stub unpacked this program for the other copies of the package that
// the ranks of a node run at once. They have linked it under names of their own by now, so it
// goes, with everything in it, as the work file does: nothing of it is left, even when this
// program is killed. It is renamed away first, so that a stub that comes meanwhile finds no
// folder (and makes its own) rather than one half emptied, which it would wait in.
void remove_node_lock(const std::string& dir) {
  std::string gone = fmt::format("{}.{}.gone", dir, ::getpid());
  if (::rename(dir.c_str(), gone.c_str()) != 0) return;  // not there, or not ours to move
  for (int round = 0; round < 8; ++round) {
    try {
      common::remove_tree(gone);
      return;
    } catch (const common::Error&) {  // a stub was making its file in it as it went: again
    }
  }
}

// The header's fields as skb verify and skb-install run bare read them are the values the stub
// read as sh variables and passed on: a field sh reads otherwise (`skb_signature_size=0 `, a
// number followed by blanks) is a malformed header, here as there.
void refuse_other_reading(int fd, const Args& a) {
  std::string header(a.header_len, '\0');
  if (!pread_full(fd, header.data(), header.size(), 0)) throw VerifyError("the header cannot be read");
  packager::RunHeaderFields f = packager::parse_run_header(header);
  if (f.header_len != a.header_len || f.package != a.package_name || f.payload_offset != a.payload_offset ||
      f.payload_size != a.payload_size || f.payload_sha256 != a.payload_sha256 ||
      f.signature_size != a.signature_size || f.installer_offset != a.installer_offset ||
      f.installer_size != a.installer_size || f.installer_sha256 != a.installer_sha256)
    throw VerifyError("the header's fields are not what its shell part read from them: the header is malformed");
}

PayloadSource open_payload(const Args& a, int& fd) {
  fd = ::open(a.run_file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw common::Error(fmt::format("{}: cannot open", a.run_file));
  try {
    // The stub checked this program only: the file's length and its header (which gave the
    // payload's offsets and hash) are checked here, before anything of the payload is used.
    verify_run_file(fd, a.header_len, a.payload_offset + a.payload_size);
    refuse_other_reading(fd, a);
  } catch (...) {
    ::close(fd);
    throw;
  }
  return PayloadSource{fd, a.payload_offset, a.payload_size, a.payload_sha256, a.package_name};
}

// The installer's bytes in the .run open_payload opened (and checked the header of).
PayloadSource carried_installer(const Args& a, int fd) {
  return PayloadSource{fd, a.installer_offset, a.installer_size, a.installer_sha256, "", "installer"};
}

// What --info says of the installer: the package's own, unpacked by the stub (given a work file),
// or the operator library's copy of the same program, which the stub found and ran in place.
std::string describe_installer(const Args& a) {
  std::string carried = a.installer_size == 0 ? "none carried (a delta: it runs the one its base left in the library)"
                                              : fmt::format("{} bytes, gzip-compressed", a.installer_size);
  if (!a.work_file.empty() || !a.node_lock.empty()) return carried + "; running it";
  std::string self = "(unknown path)";
  try {
    self = common::self_exe().string();
  } catch (const common::Error&) {
  }
  return fmt::format("{}; running the library's copy, {}", carried, self);
}

// An option's folder that is something else: said as the user gave it, not by what is below it.
void refuse_unless_folder(const char* option, const std::string& path) {
  struct stat st {};
  if (!path.empty() && ::stat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    throw common::Error(fmt::format("{} {}: not a folder", option, path));
}

int run(const Args& a, const common::Diag& diag) {
  LibraryOptions lo;
  lo.lock_timeout = a.lock_timeout;
  lo.force = a.force;
  lo.upgrade = a.upgrade;
  refuse_unless_folder("--install-path", a.install_path);
  refuse_unless_folder("--extract", a.extract);
  fs::path root = !a.install_path.empty() ? packager::library_root(a.install_path)
                  : !a.library.empty()    ? fs::path(a.library)
                                          : default_library_root();
  if (a.uninstall_all) {
    Library lib(root, diag);
    lib.uninstall_all(lo);
    diag.note(fmt::format("removed every package from {}", lib.root().string()));
    return kExitOk;
  }
  if (a.run_file.empty()) {
    if (a.uninstall && !a.package.empty()) {
      Library lib(root, diag);
      bool removed = lib.uninstall(a.package, lo);
      diag.note(fmt::format("{} {}", removed ? "uninstalled" : "not installed:", a.package));
      return kExitOk;
    }
    throw common::Error("this installer works on a .run package: run the package itself");
  }
  int fd = -1;
  PayloadSource src = open_payload(a, fd);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};

  if (a.uninstall) {
    Library lib(root, diag);
    bool removed = lib.uninstall(a.package_name, lo);
    diag.note(fmt::format("{} {} {} {}", removed ? "uninstalled" : "not installed:", a.package_name,
                          removed ? "from" : "in", lib.root().string()));
    return kExitOk;
  }
  std::optional<trust::TrustedKeys> policy = trust_policy(a.trusted_keys, root);
  trust::SignatureCheck signature =
      check_package_signature(fd, a.header_len, a.signature_size, policy ? *policy : trust::TrustedKeys{});
  std::string signed_by = describe_signature(signature, policy);
  if (a.info || a.list) {
    packager::Manifest m = read_checked_manifest(src).manifest;
    if (a.info) {
      std::printf(
          "package:     %s\nsoc:         %s\ncreated:     %s\nkernels:     %zu\ninstalled:   %llu bytes\n"
          "toolchain:   %s (%s)\nmade by:     skb %s\nsignature:   %s\ninstaller:   %s\n",
          m.package.c_str(), m.soc.c_str(), m.created.c_str(), m.kernels.size(),
          static_cast<unsigned long long>(m.installed_size), m.toolchain.c_str(), m.toolchain_identity.c_str(),
          m.skb_version.c_str(), signed_by.c_str(), describe_installer(a).c_str());
      if (!m.base.empty())
        std::printf("base:        %s (a delta: %zu of its %zu files are taken from the library)\n", m.base.c_str(),
                    m.files_from_base(), m.files.size());
      if (!m.measured_on.empty()) std::printf("payoff:      %s\n", m.payoff_summary().c_str());
      for (const auto& k : m.left_out) std::printf("left out:    %s: %s\n", k.name.c_str(), k.reason.c_str());
    }
    if (a.list) {
      std::set<std::string> from_base;  // binaries the payload leaves to the base
      for (const auto& f : m.files)
        if (!f.carried) from_base.insert(f.path);
      // op, variant, kernel, file; then "from <base>" for a delta's file the base has, and the
      // payoff measured for it ("payoff faster, 0.62x (0.60-0.65)") when the package has one.
      for (const auto& k : m.kernels) {
        std::string payoff = m.payoff_of(k.name);
        std::printf("%s\t%s\t%s\t%s%s%s\n", k.op_type.c_str(), k.variant.c_str(), k.name.c_str(), k.bin.c_str(),
                    from_base.count(k.bin) ? ("\tfrom " + m.base).c_str() : "",
                    payoff.empty() ? "" : ("\tpayoff " + payoff).c_str());
      }
    }
    return kExitOk;
  }
  // Past here something is checked or written for use: the policy decides first.
  if (policy && !signature.trusted()) throw UntrustedError(fmt::format("{} is {}", a.package_name, signed_by));
  if (a.check) {
    // The installer too: the one running may be the library's copy, not the package's.
    verify_payload_hash(carried_installer(a, fd));
    verify_payload_hash(src);
    packager::Manifest m = read_payload(src, {});
    std::printf("%s: OK (header, %spayload and %zu files verified; %s%s)\n", m.package.c_str(),
                a.installer_size ? "installer, " : "", m.files.size() - m.files_from_base(), signed_by.c_str(),
                m.base.empty() ? "" : ("; a delta on " + m.base).c_str());
    return kExitOk;
  }
  // The stub checked the installer it unpacked; the bytes of one that the library's copy stood in
  // for are checked here, so that a .run that --check refuses is never extracted or installed.
  if (a.work_file.empty() && a.node_lock.empty()) verify_payload_hash(carried_installer(a, fd));
  if (!a.extract.empty()) {
    verify_payload_hash(src);
    fs::path dest = fs::absolute(a.extract).lexically_normal() / a.package_name;
    if (fs::exists(dest)) throw common::Error(fmt::format("{} already exists; nothing was extracted", dest.string()));
    fs::path staging = dest.parent_path() / fmt::format(".{}.extract.{}", a.package_name, ::getpid());
    std::error_code ec;
    fs::create_directories(dest.parent_path(), ec);
    packager::Manifest m;
    try {
      // The package's files, and its manifest.json beside them as an install keeps it (what
      // they are, and a delta's files its base holds).
      PayloadManifest pm = read_manifest(src);
      read_payload(src, staging, pm);
      common::write_atomic(staging / packager::kManifestName, pm.text, 0644, common::Sync::kAtomic);
      m = std::move(pm.manifest);
    } catch (...) {
      fs::remove_all(staging, ec);
      throw;
    }
    fs::rename(staging, dest);
    diag.note(fmt::format("extracted {} into {}", a.package_name, dest.string()));
    if (std::size_t left = m.files_from_base(); left && !a.quiet)  // a delta's extract is not whole
      diag.warning(
          fmt::format("{} is a delta on {}: {} of its {} files are the base's, not carried, so not "
                      "extracted; extract {} too for them",
                      a.package_name, m.base, left, m.files.size(), m.base));
    return kExitOk;
  }
  if (!policy && !a.quiet)  // -q: errors only
    diag.warning(fmt::format("{} is {}", a.package_name, signed_by));
  Library lib(root, diag);
  bool installed = lib.install(src, lo);
  diag.note(installed ? fmt::format("installed {} into {}", a.package_name, lib.root().string())
                      : fmt::format("{} is already installed in {}", a.package_name, lib.root().string()));
  return kExitOk;
}

}  // namespace

int installer_main(int argc, char** argv, common::Diag& diag) {
  if (argc == 2 && std::string(argv[1]) == "--self-test") return kExitOk;
  Args a;
  std::optional<int> user = parse_stub_options(argc, argv, a);
  if (!a.work_file.empty()) remove_work_file(a.work_file);
  if (!a.node_lock.empty()) remove_node_lock(a.node_lock);
  if (!user) {
    diag.error("the arguments before `--` are a package's own: run the package, not its installer");
    return kExitUsage;
  }
  common::Diag said(program_name(a));
  if (std::optional<int> status = parse_user_options(argc, argv, *user, a, said)) return *status;
  if (!a.package.empty()) a.uninstall = true;
  int actions = a.info + a.list + a.check + !a.extract.empty() + a.install + a.uninstall + a.uninstall_all;
  if (actions > 1 && !(a.info && a.list && actions == 2)) {
    said.error("give one of --install, --uninstall, --check, --extract, --info/--list");
    return kExitUsage;
  }
  common::Diag out(program_name(a), a.quiet);
  try {
    return run(a, out);
  } catch (const VerifyError& e) {
    out.error(std::string(e.what()) + "; nothing was written");
    return kExitCorrupt;
  } catch (const UntrustedError& e) {
    out.error(std::string(e.what()) + "; nothing was written");
    return kExitUntrusted;
  } catch (const BaseMissingError& e) {
    out.error(e.what());
    return kExitBaseMissing;
  } catch (const common::Error& e) {
    out.error(e.what());
    return kExitError;
  } catch (const fs::filesystem_error& e) {  // names the path and the system error
    out.error(e.what());
    return kExitError;
  }
}

}  // namespace skb::installer

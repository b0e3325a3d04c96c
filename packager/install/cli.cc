#include "packager/install/cli.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <set>

#include "common/error.h"
#include "common/version.h"
#include "packager/install/library.h"
#include "packager/install/payload_reader.h"
#include "packager/install/trust_policy.h"

namespace skb::installer {
namespace fs = std::filesystem;

namespace {

constexpr const char* kHelpFooter = R"(
Without an action option, --install is done. Nothing is ever asked on the terminal.

Where it installs: DIR/opp/static_kernel/ai_core/ for --install-path=DIR or SKB_INSTALL_PATH=DIR;
else the operator library CANN's opbase reads: $ASCEND_OPP_PATH/static_kernel/ai_core/, else
$ASCEND_HOME_PATH/opp/static_kernel/ai_core/; else that of /usr/local/skb (root) or
$HOME/.local/skb. So with CANN's environment set, running the package bare installs it where
opbase and torchair look. The kernels go to ai_core/<package>/ (with its own index, config/<soc>/binary_info_config.json), the merged index to
ai_core/config/<soc>/binary_info_config.json, the install order to ai_core/config.ini;
ai_core/<package>/uninstall.sh removes the package, and ai_core/ goes with the last one.
Many processes (e.g. the LOCAL_WORLD_SIZE ranks of a node) may run it at once: every change
holds static_kernel/.ai_core.lock, so the package is installed once and readers never see a
half-written index. An interrupted install or uninstall is finished or undone by the next run.

Trust: a package may be signed (skb-package --sign-key). A trust policy says which keys a
package must be signed by to install here: --trusted-keys FILE, else SKB_TRUSTED_KEYS, else the
file an administrator places at static_kernel/trusted-keys, beside ai_core/ (one public key a
line, `name:base64`, as `skb key public` prints it). Under a policy an unsigned package, or one
signed by another key, is refused before anything is written (exit 4), and so is one changed
after signing. Without a policy it installs as before, and says who signed it, if anyone.
--info and --check print the signer and whether the policy trusts it. This script checks
itself: to check a package before running any of its code, use `skb verify FILE.run`.

Environment: TMPDIR (where the installer is unpacked; /tmp mounted noexec is fine),
SKB_INSTALL_PATH, ASCEND_OPP_PATH, ASCEND_HOME_PATH, SKB_TRUSTED_KEYS, SKB_LOCK_TIMEOUT (seconds,
default 300).

A delta package (skb-package --base OLD.run) carries only the kernels OLD lacks: it installs
into a library that holds OLD's files (by content, in whichever package), and is then whole on
its own: uninstalling OLD later leaves it intact. --info names its base.

Exit status: 0 done, 1 error (the library is left as it was), 2 bad option,
3 the package failed verification (nothing was written), 4 the trust policy refused the
package (nothing was written), 5 a delta package whose base's files the library lacks (nothing
was written).
)";

struct Args {
  std::string run_file, package_name, payload_sha256, work_file;
  std::uint64_t header_len = 0, payload_offset = 0, payload_size = 0, signature_size = 0;
  std::string trusted_keys;
  bool info = false, list = false, check = false, install = false, uninstall = false, uninstall_all = false;
  bool upgrade = false, force = false, quiet = false;
  std::string extract, install_path, package, library;
  double lock_timeout = 300;
};

// The stub's temporary files: this program (loaded, so it can go now) and its scratch file.
void remove_work_file(const std::string& file) {
  ::unlink(file.c_str());
  ::unlink((file + ".t").c_str());
}

PayloadSource open_payload(const Args& a, int& fd) {
  fd = ::open(a.run_file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw common::Error(fmt::format("{}: cannot open", a.run_file));
  try {
    // The stub checked this program only: the file's length and its header (which gave the
    // payload's offsets and hash) are checked here, before anything of the payload is used.
    verify_run_file(fd, a.header_len, a.payload_offset + a.payload_size);
  } catch (...) {
    ::close(fd);
    throw;
  }
  return PayloadSource{fd, a.payload_offset, a.payload_size, a.payload_sha256, a.package_name};
}

int run(const Args& a, const common::Diag& diag) {
  LibraryOptions lo;
  lo.lock_timeout = a.lock_timeout;
  lo.force = a.force;
  lo.upgrade = a.upgrade;
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
    verify_payload_hash(src);
    packager::Manifest m = read_manifest(src).manifest;
    if (a.info) {
      std::printf(
          "package:     %s\nsoc:         %s\ncreated:     %s\nkernels:     %zu\ninstalled:   %llu bytes\n"
          "toolchain:   %s (%s)\nmade by:     skb %s\nsignature:   %s\n",
          m.package.c_str(), m.soc.c_str(), m.created.c_str(), m.kernels.size(),
          static_cast<unsigned long long>(m.installed_size), m.toolchain.c_str(), m.toolchain_identity.c_str(),
          m.skb_version.c_str(), signed_by.c_str());
      if (!m.base.empty())
        std::printf("base:        %s (a delta: %zu of its %zu files are taken from the library)\n", m.base.c_str(),
                    m.files_from_base(), m.files.size());
    }
    if (a.list) {
      std::set<std::string> from_base;  // binaries the payload leaves to the base
      for (const auto& f : m.files)
        if (!f.carried) from_base.insert(f.path);
      for (const auto& k : m.kernels)
        std::printf("%s\t%s\t%s\t%s%s\n", k.op_type.c_str(), k.variant.c_str(), k.name.c_str(), k.bin.c_str(),
                    from_base.count(k.bin) ? ("\tfrom " + m.base).c_str() : "");
    }
    return kExitOk;
  }
  // Past here something is checked or written for use: the policy decides first.
  if (policy && !signature.trusted()) throw UntrustedError(fmt::format("{} is {}", a.package_name, signed_by));
  if (a.check) {
    verify_payload_hash(src);
    packager::Manifest m = read_payload(src, {});
    std::printf("%s: OK (header, installer, payload and %zu files verified; %s%s)\n", m.package.c_str(),
                m.files.size() - m.files_from_base(), signed_by.c_str(),
                m.base.empty() ? "" : ("; a delta on " + m.base).c_str());
    return kExitOk;
  }
  if (!a.extract.empty()) {
    verify_payload_hash(src);
    fs::path dest = fs::absolute(a.extract).lexically_normal() / a.package_name;
    if (fs::exists(dest)) throw common::Error(fmt::format("{} already exists; nothing was extracted", dest.string()));
    fs::path staging = dest.parent_path() / fmt::format(".{}.extract.{}", a.package_name, ::getpid());
    std::error_code ec;
    fs::create_directories(dest.parent_path(), ec);
    try {
      read_payload(src, staging);
    } catch (...) {
      fs::remove_all(staging, ec);
      throw;
    }
    fs::rename(staging, dest);
    diag.note(fmt::format("extracted {} into {}", a.package_name, dest.string()));
    return kExitOk;
  }
  if (!policy) diag.warning(fmt::format("{} is {}", a.package_name, signed_by));
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
  if (const char* t = std::getenv("SKB_LOCK_TIMEOUT"); t && *t) a.lock_timeout = std::atof(t);
  CLI::App app;
  app.allow_windows_style_options(false);
  // The stub's own arguments, then `--`, then the user's.
  app.add_option("--run-file", a.run_file)->group("");
  app.add_option("--package-name", a.package_name)->group("");
  app.add_option("--payload-offset", a.payload_offset)->group("");
  app.add_option("--payload-size", a.payload_size)->group("");
  app.add_option("--payload-sha256", a.payload_sha256)->group("");
  app.add_option("--package", a.package)->group("");
  app.add_option("--library", a.library)->group("");  // uninstall.sh: the ai_core folder it is in
  app.add_option("--work-file", a.work_file)->group("");
  app.add_option("--header-len", a.header_len)->group("");
  app.add_option("--signature-size", a.signature_size)->group("");
  std::vector<std::string> user;
  app.add_option("user", user)->group("");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  if (!a.work_file.empty()) remove_work_file(a.work_file);

  std::string name = a.package_name.empty() ? "skb-install" : a.package_name + ".run";
  CLI::App opts(name +
                ": installs prebuilt static-shape kernels into an operator library, after verifying\n"
                "every byte of the package with SHA-256.");
  opts.name(name);
  opts.set_version_flag("--version", fmt::format("{} (skb {})", name, common::kVersion));
  opts.footer(kHelpFooter);
  opts.add_flag("--info", a.info, "Print what the package holds and exit");
  opts.add_flag("--list", a.list, "List the kernels (op, variant, name, file) and exit");
  opts.add_flag("--check", a.check, "Verify the whole package and exit");
  opts.add_option("--extract", a.extract, "Verify and unpack into DIR/<package>, without installing")->type_name("DIR");
  opts.add_flag("--install", a.install, "Install (the default)");
  opts.add_option("--install-path", a.install_path, "Where the operator library is (see below)")->type_name("DIR");
  opts.add_flag("--uninstall", a.uninstall, "Remove this package; kernels other packages also ship stay");
  opts.add_flag("--uninstall-all", a.uninstall_all, "Remove every package of the library")
      ->group(a.package_name.empty() ? "Options" : "");
  opts.add_flag("--upgrade", a.upgrade, "Replace an installed package of the same name and other contents");
  opts.add_flag("--force", a.force, "Reinstall even when the same package is installed");
  opts.add_option("--trusted-keys", a.trusted_keys, "Trust policy: install only what one of these keys signed")
      ->type_name("FILE");
  opts.add_flag("-q,--quiet", a.quiet, "Print errors only");
  opts.add_option("--lock-timeout", a.lock_timeout, "Seconds to wait for the library's lock")->capture_default_str();
  if (!a.package.empty()) a.uninstall = true;
  std::vector<std::string> rev(user.rbegin(), user.rend());
  try {
    opts.parse(rev);
  } catch (const CLI::ParseError& e) {
    return opts.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  int actions = a.info + a.list + a.check + !a.extract.empty() + a.install + a.uninstall + a.uninstall_all;
  if (actions > 1 && !(a.info && a.list && actions == 2)) {
    diag.error("give one of --install, --uninstall, --check, --extract, --info/--list");
    return kExitUsage;
  }
  common::Diag out(name, a.quiet);
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
  }
}

}  // namespace skb::installer

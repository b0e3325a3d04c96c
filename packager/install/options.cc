#include "packager/install/options.h"

#include <getopt.h>

#include <fmt/format.h>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "common/version.h"
#include "packager/install/cli.h"

// The installer reads its options with libc's getopt_long rather than CLI11, which the other
// programs use: CLI11 is built on iostreams, and a static program with iostreams carries
// libstdc++'s locale tables: 0.8 MB of the installer.
namespace skb::installer {

namespace {

constexpr const char* kAbout =
    ": installs prebuilt static-shape kernels into an operator library, after verifying\n"
    "every byte of the package with SHA-256.\n";

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
its own: uninstalling OLD later leaves it intact. --info names its base. When OLD has the same
installer, the delta carries none and runs the copy OLD left in the library (bin/skb-install):
where no library has it, it stops with exit status 5 (use `skb verify` to check it anywhere).

Exit status: 0 done, 1 error (the library is left as it was), 2 bad option,
3 the package failed verification (nothing was written), 4 the trust policy refused the
package (nothing was written), 5 a delta package whose base's files, or whose base's installer
when it carries none, the library lacks (nothing was written).
)";

enum StubId : int {
  kRunFile = 256,
  kPackageName,
  kInstallerOffset,
  kInstallerSize,
  kInstallerSha256,
  kPayloadOffset,
  kPayloadSize,
  kPayloadSha256,
  kPackage,
  kLibrary,
  kWorkFile,
  kNodeLock,
  kHeaderLen,
  kSignatureSize
};

constexpr option kStubOptions[] = {{"run-file", required_argument, nullptr, kRunFile},
                                   {"package-name", required_argument, nullptr, kPackageName},
                                   {"installer-offset", required_argument, nullptr, kInstallerOffset},
                                   {"installer-size", required_argument, nullptr, kInstallerSize},
                                   {"installer-sha256", required_argument, nullptr, kInstallerSha256},
                                   {"payload-offset", required_argument, nullptr, kPayloadOffset},
                                   {"payload-size", required_argument, nullptr, kPayloadSize},
                                   {"payload-sha256", required_argument, nullptr, kPayloadSha256},
                                   {"package", required_argument, nullptr, kPackage},
                                   {"library", required_argument, nullptr, kLibrary},
                                   {"work-file", required_argument, nullptr, kWorkFile},
                                   {"node-lock", required_argument, nullptr, kNodeLock},
                                   {"header-len", required_argument, nullptr, kHeaderLen},
                                   {"signature-size", required_argument, nullptr, kSignatureSize},
                                   {nullptr, 0, nullptr, 0}};

enum UserId : int {
  kHelp = 'h',
  kQuiet = 'q',
  kVersion = 256,
  kInfo,
  kList,
  kCheck,
  kExtract,
  kInstall,
  kInstallPath,
  kUninstall,
  kUninstallAll,
  kUpgrade,
  kForce,
  kTrustedKeys,
  kLockTimeout
};

struct UserOption {
  const char* name;
  char short_name;  // 0: none
  int id;
  const char* value;  // the value's name in --help; nullptr: a flag
  const char* help;
};

constexpr UserOption kUserOptions[] = {
    {"help", 'h', kHelp, nullptr, "Print this help message and exit"},
    {"version", 0, kVersion, nullptr, "Print the version and exit"},
    {"info", 0, kInfo, nullptr, "Print what the package holds and exit"},
    {"list", 0, kList, nullptr, "List the kernels (op, variant, name, file) and exit"},
    {"check", 0, kCheck, nullptr, "Verify the whole package and exit"},
    {"extract", 0, kExtract, "DIR", "Verify and unpack into DIR/<package>, without installing"},
    {"install", 0, kInstall, nullptr, "Install (the default)"},
    {"install-path", 0, kInstallPath, "DIR", "Where the operator library is (see below)"},
    {"uninstall", 0, kUninstall, nullptr, "Remove this package; kernels other packages also ship stay"},
    {"uninstall-all", 0, kUninstallAll, nullptr, "Remove every package of the library"},
    {"upgrade", 0, kUpgrade, nullptr, "Replace an installed package of the same name and other contents"},
    {"force", 0, kForce, nullptr, "Reinstall even when the same package is installed"},
    {"trusted-keys", 0, kTrustedKeys, "FILE", "Trust policy: install only what one of these keys signed"},
    {"quiet", 'q', kQuiet, nullptr, "Print errors only"},
    {"lock-timeout", 0, kLockTimeout, "SECONDS", "Seconds to wait for the library's lock"},
};

bool parse_number(const char* text, std::uint64_t& out) {
  const char* end = text + std::strlen(text);
  auto [p, ec] = std::from_chars(text, end, out);
  return ec == std::errc() && p == end && p != text;
}

constexpr const char* kSecondsExpected = "expected a number of seconds from 0 to 1000000000";

bool parse_seconds(const char* text, double& out) {
  char* end = nullptr;
  double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(v >= 0) || v > 1e9) return false;
  out = v;
  return true;
}

// getopt_long takes any unambiguous prefix of a long option; an installer takes names in full, so
// that a shortened --uninstall never means something the user did not write.
bool written_in_full(const char* arg, const char* name) {
  std::string_view given(arg);
  if (given.substr(0, 2) != "--") return true;  // a short option
  given.remove_prefix(2);
  given = given.substr(0, given.find('='));
  return given == name;
}

// The argument that named the option getopt_long just returned: the one before its value when
// the value was a separate argument.
const char* option_token(char** args) {
  return optarg && optarg == args[optind - 1] && optind >= 2 ? args[optind - 2] : args[optind - 1];
}

// The default shown for --lock-timeout is the one in force: SKB_LOCK_TIMEOUT when it is set.
void print_help(const std::string& name, bool from_package, double lock_timeout) {
  std::string text = name + kAbout + fmt::format("Usage: {} [OPTIONS]\n\nOptions:\n", name);
  for (const UserOption& o : kUserOptions) {
    if (o.id == kUninstallAll && from_package) continue;  // a package removes itself, not the library
    std::string flag = o.short_name ? fmt::format("-{},--{}", o.short_name, o.name) : fmt::format("--{}", o.name);
    if (o.value) flag += fmt::format(" {}", o.value);
    std::string help = o.help;
    if (o.id == kLockTimeout) help += fmt::format(" [{:g}]", lock_timeout);
    text += fmt::format("  {:<28} {}\n", flag, help);
  }
  text += kHelpFooter;
  std::fputs(text.c_str(), stdout);
}

}  // namespace

std::string program_name(const Args& a) { return a.package_name.empty() ? "skb-install" : a.package_name + ".run"; }

std::optional<int> parse_stub_options(int argc, char** argv, Args& a) {
  int end = 1;
  while (end < argc && std::strcmp(argv[end], "--") != 0) ++end;
  if (end == argc) return 1;  // no `--`: every argument is the user's
  std::vector<char*> args(argv, argv + end);
  args.push_back(nullptr);
  opterr = 0;
  optind = 0;  // glibc: start afresh
  int n = static_cast<int>(args.size()) - 1, id, at = 0;
  bool installer_given = false;
  while ((id = getopt_long(n, args.data(), "+:", kStubOptions, &at)) != -1) {
    if (id == '?' || id == ':' || !written_in_full(option_token(args.data()), kStubOptions[at].name))
      return std::nullopt;
    bool ok = true;
    switch (id) {
      case kRunFile:
        a.run_file = optarg;
        break;
      case kPackageName:
        a.package_name = optarg;
        break;
      case kInstallerOffset:
        ok = parse_number(optarg, a.installer_offset);
        break;
      case kInstallerSize:
        ok = parse_number(optarg, a.installer_size);
        break;
      case kInstallerSha256:
        a.installer_sha256 = optarg;
        installer_given = true;
        break;
      case kPayloadOffset:
        ok = parse_number(optarg, a.payload_offset);
        break;
      case kPayloadSize:
        ok = parse_number(optarg, a.payload_size);
        break;
      case kPayloadSha256:
        a.payload_sha256 = optarg;
        break;
      case kPackage:
        a.package = optarg;
        break;
      case kLibrary:
        a.library = optarg;
        break;
      case kWorkFile:
        a.work_file = optarg;
        break;
      case kNodeLock:
        a.node_lock = optarg;
        break;
      case kHeaderLen:
        ok = parse_number(optarg, a.header_len);
        break;
      case kSignatureSize:
        ok = parse_number(optarg, a.signature_size);
        break;
      default:
        ok = false;
    }
    if (!ok) return std::nullopt;
  }
  if (optind != n) return std::nullopt;
  if (!a.run_file.empty() && !installer_given) return std::nullopt;  // a package's stub says where its installer is
  return end + 1;
}

std::optional<int> parse_user_options(int argc, char** argv, int first, Args& a, const common::Diag& diag) {
  std::string name = program_name(a);
  std::vector<option> longs;
  std::string shorts = "+:";
  const bool from_package = !a.package_name.empty();
  for (const UserOption& o : kUserOptions) {
    if (o.id == kUninstallAll && from_package) continue;  // the bare installer's only: see print_help
    longs.push_back({o.name, o.value ? required_argument : no_argument, nullptr, o.id});
    if (o.short_name) shorts += o.short_name;
  }
  longs.push_back({nullptr, 0, nullptr, 0});
  std::vector<char*> args{argv[0]};
  args.insert(args.end(), argv + first, argv + argc);
  args.push_back(nullptr);
  int n = static_cast<int>(args.size()) - 1, id, at = -1;
  auto usage = [&](const std::string& what) {
    diag.error(fmt::format("{}; `{} --help` lists the options", what, name));
    return kExitUsage;
  };
  // SKB_LOCK_TIMEOUT sets the default; a value that is not one is an error unless --lock-timeout
  // replaces it (--help still answers).
  const char* bad_timeout = std::getenv("SKB_LOCK_TIMEOUT");
  if (bad_timeout && (!*bad_timeout || parse_seconds(bad_timeout, a.lock_timeout))) bad_timeout = nullptr;
  opterr = 0;
  optind = 0;
  while ((id = getopt_long(n, args.data(), shorts.c_str(), longs.data(), &at)) != -1) {
    const char* arg = id == '?' || id == ':' ? args[optind - 1] : option_token(args.data());
    if (id == '?')
      return usage(optopt ? fmt::format("unknown option -{}", char(optopt)) : fmt::format("unknown option {}", arg));
    if (id == ':') return usage(fmt::format("{} needs a value", arg));
    if (at >= 0 && !written_in_full(arg, longs[at].name))
      return usage(fmt::format("{} is not an option: write --{} in full", arg, longs[at].name));
    at = -1;
    switch (id) {
      case kHelp:
        print_help(name, from_package, a.lock_timeout);
        return kExitOk;
      case kVersion:
        std::printf("%s (skb %s)\n", name.c_str(), common::kVersion);
        return kExitOk;
      case kInfo:
        a.info = true;
        break;
      case kList:
        a.list = true;
        break;
      case kCheck:
        a.check = true;
        break;
      case kExtract:  // an empty value (an unset variable) never means the default library
        if (!*optarg) return usage("--extract needs a folder, and was given an empty value");
        a.extract = optarg;
        break;
      case kInstall:
        a.install = true;
        break;
      case kInstallPath:
        if (!*optarg) return usage("--install-path needs a folder, and was given an empty value");
        a.install_path = optarg;
        break;
      case kUninstall:
        a.uninstall = true;
        break;
      case kUninstallAll:
        a.uninstall_all = true;
        break;
      case kUpgrade:
        a.upgrade = true;
        break;
      case kForce:
        a.force = true;
        break;
      case kTrustedKeys:
        a.trusted_keys = optarg;
        break;
      case kQuiet:
        a.quiet = true;
        break;
      case kLockTimeout:
        if (!parse_seconds(optarg, a.lock_timeout))
          return usage(fmt::format("--lock-timeout {}: {}", optarg, kSecondsExpected));
        bad_timeout = nullptr;
        break;
      default:
        return usage(fmt::format("unknown option {}", arg));
    }
  }
  if (optind < n) return usage(fmt::format("unexpected argument '{}'", args[optind]));
  if (bad_timeout) return usage(fmt::format("SKB_LOCK_TIMEOUT={}: {}", bad_timeout, kSecondsExpected));
  return std::nullopt;
}

}  // namespace skb::installer

#pragma once
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/diag.h"
#include "common/json_input.h"
#include "store/entry.h"

namespace skb::generator {

/// What one edge of build.ninja compiles, and how the result is recorded.
struct CompileStep {
  std::filesystem::path dir;  // kernel_meta
  std::string name;           // kernel name
  std::string op_type;
  std::string variant;  // static | dynamic
  std::string suffix;   // binary suffix, e.g. .so
  std::string entry;    // entry symbol
  std::string toolchain_id;
  /// The compile command; the word part "@OUT@" is the output. With a link step: the compile
  /// command writes "@OBJ@", then the word "@LINK@", then the link command from "@OBJ@" to "@OUT@".
  /// The word "@DEFINES@" stands for the static kernel's -D macros, made from <dir>/<name>.info
  /// (so that build.ninja need not hold them).
  std::vector<std::string> command;
  std::string list_separator = ",";  // of list values in -D macros (the toolchain's)
  bool sidecar = false;              // the command writes the compiler's JSON of the kernel to @SIDECAR@
  std::filesystem::path cache_dir;   // the build's cache/ folder: a kernel store when it has a config.json
};

/// Placeholders of CompileStep::command.
inline constexpr const char* kOutPlaceholder = "@OUT@";
inline constexpr const char* kObjPlaceholder = "@OBJ@";
inline constexpr const char* kLinkSeparator = "@LINK@";
inline constexpr const char* kDefinesPlaceholder = "@DEFINES@";
inline constexpr const char* kSidecarPlaceholder = "@SIDECAR@";

/// Each compiled kernel's log, in OUT/logs/: what the compiler said, as <name>.log, or as
/// <name>.error.log when it failed.
inline constexpr const char* kLogDir = "logs";
inline constexpr const char* kLogSuffix = ".log";
inline constexpr const char* kErrorLogSuffix = ".error.log";

/// The compiler's sidecar of a kernel in kernel_meta: <name>.sidecar.json.
inline constexpr const char* kSidecarSuffix = ".sidecar.json";

/// The op type of a kernel name `<OpType>_<32 hex>`.
std::string op_type_of(const std::string& kernel_name);

/// Does nothing when the kernel is already built (complete, by this toolchain: the build's
/// kernel store lookup put it there); else runs the compiler (and the linker) into a temp file,
/// publishes the kernel (publish_kernel) and stores it in the build's kernel store, when it has
/// one. Returns the compiler's exit code; on failure nothing of this kernel is left. A store that
/// fails costs a warning through diag, never the kernel.
int run_compile_step(const CompileStep& step, const common::Diag& diag);

/// The build's kernel store lookup, one process for every kernel of the build (so that what a
/// lookup costs once, opening the store and the trust set, is paid once): each kernel of steps
/// that is not built yet is taken from the store when it holds an entry signed by a trusted key
/// and proven to be this kernel, and published as the compile step would. Then writes `stamp`.
/// A store that fails costs a warning, never the build: what is not fetched is compiled.
/// Returns the names of the kernels it took from the store.
std::set<std::string> prefetch_kernels(const std::vector<CompileStep>& steps, const std::filesystem::path& cache_dir,
                                       const std::filesystem::path& stamp, const common::Diag& diag);

/// The compile steps of a build folder's plan.json, for prefetch_kernels.
std::vector<CompileStep> planned_steps(const std::filesystem::path& build_dir);
/// The same of plan.json's next text, before it is written.
std::vector<CompileStep> planned_steps(const std::filesystem::path& build_dir, std::string_view plan_text);

/// Why a kernel store's entry cannot stand for this step's kernel, or "" when it can: its build
/// record must be exactly the one this step would write for the entry's binary and sidecar,
/// which proves the binary's sha256 and size, the toolchain identity, the variant, the entry
/// symbol and the sidecar. The entry is untrusted: any bytes give an answer, never an exception.
std::string entry_mismatch(const CompileStep& step, const store::EntryFiles& entry);

/// The build result recorded in <dir>/<name>.json for a binary, as written by the step (the
/// sidecar's fields, when there is one, are added to it).
common::Json build_result(const CompileStep& s, const std::string& sha256, std::uintmax_t size);

/// True when <dir>/<name>.json exists and describes the binary beside it (size, and sha256
/// when the binary is newer than the record). A record that does not is removed with its
/// binary, so the next build compiles the kernel again. Returns false in that case.
bool keep_if_complete(const std::filesystem::path& dir, const std::string& name, const std::string& suffix);

}  // namespace skb::generator

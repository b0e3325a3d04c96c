#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "opmodel/op_record.h"
#include "runtime/call_counts.h"
#include "skb/runtime.h"

namespace skb::runtime {

/// The calls that found no static kernel, written as op records where skb-generate and
/// skb-package -p read them, as the frameworks write theirs:
///   DIR/ts<YYYYmmddHHMMSSffffff>_pid<pid>_outputs/<pid>_opcompile/<op>_<dtype>_<format>_<dims>_<N>.json
/// Each distinct call (by canonical signature) once per process, each file written atomically,
/// at flush, at stop, at exit and every interval (a thread of its own), so that a process killed
/// with -9 loses at most the last interval's. Memory is bounded: at most `cap` distinct calls
/// are kept, the rest counted. A folder that cannot be written costs one warning on stderr and
/// the run goes on (the records are tried again at the next flush). Thread-safe; a process
/// forked from a recording one records nothing, and exits as any other.
class MissRecorder {
 public:
  static constexpr std::size_t kDefaultCap = 4096;
  static constexpr std::chrono::milliseconds kDefaultInterval{5000};

  MissRecorder();
  MissRecorder(const MissRecorder&) = delete;
  MissRecorder& operator=(const MissRecorder&) = delete;
  ~MissRecorder();  // stop()

  /// Records into dir from now on (a new process folder), flushing what was pending elsewhere;
  /// nothing changes when it records into dir already.
  void start(const std::filesystem::path& dir, std::size_t cap = kDefaultCap,
             std::chrono::milliseconds interval = kDefaultInterval);
  /// Writes what is pending and records nothing more until start.
  void stop();
  /// Writes what is pending now. Returns the number of records written.
  std::size_t flush();
  bool recording() const;
  /// Prints flush_line on stderr, unless it is the line printed last.
  void report();

  /// A call that found no static kernel, as the caller gave it (already validated). Returns its
  /// op type ("" when the text is not a valid record). Calls seen before cost one hash lookup.
  std::string note(std::string_view call_json);

  /// Records written, distinct calls past the cap (not recorded), and the process folder.
  std::uint64_t written() const;
  std::uint64_t past_cap() const;
  std::filesystem::path folder() const;

  /// The process's recorder; the first use starts it when $SKB_RECORD_MISSES names a folder
  /// ($SKB_RECORD_MISSES_MAX: the cap; $SKB_RECORD_MISSES_INTERVAL: seconds between writes).
  static MissRecorder& process();

 private:
  struct Pending {
    std::string name, text;
  };
  void loop();
  void stop_thread(std::unique_lock<std::mutex>& lock);
  // fork() handlers (pthread_atfork), for every live recorder: no fork happens while one holds
  // its locks, and in the child, where its thread is not, nothing waits for that thread.
  static void before_fork();
  static void after_fork_in_parent();
  static void after_fork_in_child();

  mutable std::mutex mu_;
  bool active_ = false;
  long pid_ = 0;
  std::filesystem::path root_, folder_;
  std::size_t cap_ = kDefaultCap;
  std::chrono::milliseconds interval_ = kDefaultInterval;
  std::unordered_map<std::uint64_t, std::string> seen_;  // hash of a call's text → op type
  std::unordered_set<std::string> keys_;                 // canonical signatures' SHA-256 recorded
  std::vector<Pending> pending_;
  std::uint64_t counter_ = 0, written_ = 0, past_cap_ = 0;
  bool warned_ = false;
  std::string reported_;

  std::mutex flush_mu_;  // one flush at a time
  std::condition_variable wake_;
  bool quit_ = false;
  std::unique_ptr<std::thread> thread_;
};

/// The file name frameworks give a record: <op>_<dtype>_<format>_<dims>_<n>.json from its first
/// input (the first tensor of a list), <op>_<n>.json without one.
std::string record_file_name(const opmodel::OpRecord& record, std::uint64_t n);

/// The text written for a call: its document as given, without what only _debug records carry
/// (bin_type, bin_info), 2-space indented with sorted keys.
std::string record_text(const common::Json& call);

/// What skb_runtime_find gave a call (status, and for SKB_OK its kind and kernel name): counted
/// (call_counts), and recorded when it found no static kernel and the process records. A call
/// whose static kernel was withheld is counted, not recorded.
void note_find(const char* call_json, int status, int kind, const std::string* kernel_name, bool withheld);

/// The line a flush prints: the counts, and where the misses went.
std::string flush_line(const MissRecorder& recorder);

/// The C API's parts: start recording into dir (NULL: $SKB_RECORD_MISSES; throws RuntimeError
/// SKB_ERR_INVALID when neither names a folder); flush and print flush_line on stderr; the
/// totals; text copied into a caller's buffer as skb_runtime_explain does.
void record_start(const char* dir);
void record_flush();
void fill_counts(skb_call_counts& out);
void copy_text(const std::string& text, char* buf, std::size_t size, std::size_t* needed);

}  // namespace skb::runtime

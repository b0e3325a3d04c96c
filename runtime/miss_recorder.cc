#include "runtime/miss_recorder.h"

#include <fmt/format.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <new>

#include "common/fs.h"
#include "common/json_input.h"
#include "common/sha256.h"
#include "runtime/call_counts.h"
#include "runtime/kernel_module.h"
#include "skb/runtime.h"

namespace skb::runtime {
namespace fs = std::filesystem;

namespace {

// What a bounded memory of calls seen holds at most (a hash and an op type each).
constexpr std::size_t kMaxSeen = 1 << 16;

// ts<YYYYmmddHHMMSSffffff>, as the frameworks name a process folder.
std::string timestamp() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  std::tm utc{};
  gmtime_r(&now.tv_sec, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%d%H%M%S", &utc);
  return fmt::format("{}{:06d}", text, now.tv_nsec / 1000);
}

// Every live recorder, for the fork handlers.
std::mutex& live_mu() {
  static std::mutex mu;
  return mu;
}
std::vector<MissRecorder*>& live() {
  static std::vector<MissRecorder*> recorders;
  return recorders;
}

}  // namespace

void MissRecorder::before_fork() {
  live_mu().lock();
  for (MissRecorder* r : live()) {
    r->flush_mu_.lock();
    r->mu_.lock();
  }
}

void MissRecorder::after_fork_in_parent() {
  for (MissRecorder* r : live()) {
    r->mu_.unlock();
    r->flush_mu_.unlock();
  }
  live_mu().unlock();
}

void MissRecorder::after_fork_in_child() {
  for (MissRecorder* r : live()) {
    // The child is the forking thread alone: the recorder's thread is the parent's, its handle
    // let go (never joined), and the condition it waited on counts a waiter that is not here,
    // whose wake-up its destruction would wait for forever: it is made anew.
    (void)r->thread_.release();
    new (&r->wake_) std::condition_variable();
    r->mu_.unlock();
    r->flush_mu_.unlock();
  }
  live_mu().unlock();
}

MissRecorder::MissRecorder() {
  static const bool handlers = pthread_atfork(&before_fork, &after_fork_in_parent, &after_fork_in_child) == 0;
  (void)handlers;
  std::lock_guard<std::mutex> lock(live_mu());
  live().push_back(this);
}

std::string record_file_name(const opmodel::OpRecord& record, std::uint64_t n) {
  const opmodel::Tensor* first = nullptr;
  if (!record.inputs.empty() && !record.inputs[0].tensors.empty()) first = &record.inputs[0].tensors[0];
  if (!first) return fmt::format("{}_{}.json", record.op_type, n);
  return fmt::format("{}_{}_{}_{}_{}.json", record.op_type, first->dtype, first->format, fmt::join(first->shape, "_"),
                     n);
}

std::string record_text(const common::Json& call) {
  common::Json doc = call;
  doc.erase("bin_type");
  doc.erase("bin_info");
  return doc.dump(2) + "\n";
}

MissRecorder::~MissRecorder() {
  {
    std::lock_guard<std::mutex> lock(live_mu());
    live().erase(std::find(live().begin(), live().end(), this));
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (pid_ != 0 && pid_ != static_cast<long>(getpid())) {
    // A forked child: the thread is its parent's; leave it, write nothing.
    (void)thread_.release();
    return;
  }
  const bool recorded = !folder_.empty();
  lock.unlock();
  stop();
  if (recorded) report();
}

void MissRecorder::report() {
  std::string line = flush_line(*this);
  std::lock_guard<std::mutex> lock(mu_);
  if (line == reported_) return;  // said already, by a flush nothing has happened since
  reported_ = line;
  std::fprintf(stderr, "%s\n", line.c_str());
}

void MissRecorder::start(const fs::path& dir, std::size_t cap, std::chrono::milliseconds interval) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (active_ && root_ == dir && pid_ == static_cast<long>(getpid())) return;  // already there
  }
  if (recording()) flush();
  std::unique_lock<std::mutex> lock(mu_);
  root_ = dir;
  stop_thread(lock);
  const long pid = static_cast<long>(getpid());
  folder_ = dir / fmt::format("ts{}_pid{}_outputs", timestamp(), pid) / fmt::format("{}_opcompile", pid);
  pid_ = pid;
  cap_ = cap;
  interval_ = interval.count() > 0 ? interval : kDefaultInterval;
  active_ = true;
  warned_ = false;
  seen_.clear();  // calls seen while not recording are recorded from now on
  quit_ = false;
  thread_ = std::make_unique<std::thread>([this] { loop(); });
}

void MissRecorder::stop() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    stop_thread(lock);
  }
  flush();
  std::lock_guard<std::mutex> lock(mu_);
  active_ = false;
}

void MissRecorder::stop_thread(std::unique_lock<std::mutex>& lock) {
  if (!thread_) return;
  quit_ = true;
  wake_.notify_all();
  std::unique_ptr<std::thread> t = std::move(thread_);
  lock.unlock();
  t->join();
  lock.lock();
}

void MissRecorder::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!quit_) {
    wake_.wait_for(lock, interval_, [this] { return quit_; });
    if (quit_) break;
    lock.unlock();
    flush();
    lock.lock();
  }
}

bool MissRecorder::recording() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_;
}

std::uint64_t MissRecorder::written() const {
  std::lock_guard<std::mutex> lock(mu_);
  return written_;
}

std::uint64_t MissRecorder::past_cap() const {
  std::lock_guard<std::mutex> lock(mu_);
  return past_cap_;
}

fs::path MissRecorder::folder() const {
  std::lock_guard<std::mutex> lock(mu_);
  return folder_;
}

std::string MissRecorder::note(std::string_view call_json) {
  const std::uint64_t hash = std::hash<std::string_view>{}(call_json);
  bool record;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = seen_.find(hash); it != seen_.end()) return it->second;
    record = active_ && pid_ == static_cast<long>(getpid());
  }
  common::Json doc;
  opmodel::OpRecord call;
  try {
    doc = common::parse_json(call_json);
    call = opmodel::parse_op_record(doc);
  } catch (const std::exception&) {
    return "";  // not a record: skb_runtime_find refused it, nothing to count or record
  }
  std::string key = record ? common::sha256_hex(opmodel::canonical_signature(call)) : std::string();
  std::lock_guard<std::mutex> lock(mu_);
  // Recording started or stopped meanwhile: what this call is remains unsaid (seen again, it is
  // recorded as the recorder is then).
  if (record != (active_ && pid_ == static_cast<long>(getpid()))) return call.op_type;
  if (seen_.size() < kMaxSeen) seen_.emplace(hash, call.op_type);
  if (!record || keys_.count(key)) return call.op_type;
  if (keys_.size() >= cap_) {
    ++past_cap_;
    return call.op_type;
  }
  keys_.insert(key);
  pending_.push_back({record_file_name(call, counter_++), record_text(doc)});
  return call.op_type;
}

std::size_t MissRecorder::flush() {
  std::lock_guard<std::mutex> serial(flush_mu_);
  std::vector<Pending> batch;
  fs::path folder;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (pid_ != static_cast<long>(getpid())) return 0;
    batch.swap(pending_);
    folder = folder_;
  }
  std::size_t done = 0;
  try {
    if (!batch.empty()) fs::create_directories(folder);
    for (; done < batch.size(); ++done)
      common::write_atomic(folder / batch[done].name, batch[done].text, 0644, common::Sync::kAtomic);
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(mu_);
    // Tried again at the next flush: a full disk may have room by then.
    pending_.insert(pending_.begin(), batch.begin() + static_cast<std::ptrdiff_t>(done), batch.end());
    if (!warned_) {
      warned_ = true;
      std::fprintf(stderr, "skb runtime: warning: cannot record missed calls in %s: %s; the run goes on\n",
                   folder.c_str(), e.what());
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  written_ += done;
  return done;
}

MissRecorder& MissRecorder::process() {
  static MissRecorder recorder;
  static const bool from_env = [] {
    std::string dir = common::env_or_empty("SKB_RECORD_MISSES");
    if (dir.empty()) return false;
    std::size_t cap = kDefaultCap;
    std::chrono::milliseconds interval = kDefaultInterval;
    try {
      if (auto max = common::env_or_empty("SKB_RECORD_MISSES_MAX"); !max.empty()) cap = std::stoull(max);
      if (auto s = common::env_or_empty("SKB_RECORD_MISSES_INTERVAL"); !s.empty())
        interval = std::chrono::milliseconds(static_cast<long long>(std::stod(s) * 1000));
    } catch (const std::exception&) {
      std::fprintf(stderr,
                   "skb runtime: warning: SKB_RECORD_MISSES_MAX or SKB_RECORD_MISSES_INTERVAL is not a "
                   "number: the defaults apply\n");
    }
    recorder.start(dir, cap, interval);
    return true;
  }();
  (void)from_env;
  return recorder;
}

void note_find(const char* call_json, int status, int kind, const std::string* kernel_name, bool withheld) {
  try {
    if (status == SKB_OK && kind == SKB_KERNEL_STATIC) {
      call_counts().add_static(*kernel_name);
      return;
    }
    if (status != SKB_OK && status != SKB_ERR_NOT_FOUND && status != SKB_ERR_UNSUPPORTED) return;
    MissRecorder& recorder = MissRecorder::process();
    // A call refused as unsupported is counted, never recorded: no build would make its kernel.
    std::string op = status == SKB_ERR_UNSUPPORTED || withheld ? std::string() : recorder.note(call_json);
    if (status == SKB_OK) {
      call_counts().add(op.empty() ? op_of_kernel(*kernel_name) : op, *kernel_name, Outcome::kDynamic);
      return;
    }
    if (op.empty()) {
      try {
        op = common::parse_json(call_json).at("op_type").get<std::string>();
      } catch (const std::exception&) {
        return;
      }
    }
    call_counts().add(op, "", Outcome::kNone);
  } catch (const std::exception&) {
    // Counting and recording never fail a call.
  }
}

std::string flush_line(const MissRecorder& r) {
  std::string line = "skb runtime: " + call_counts().summary();
  if (!r.folder().empty()) {
    line += fmt::format("; {} missed call{} recorded in {}", r.written(), r.written() == 1 ? "" : "s",
                        r.folder().parent_path().string());
    if (r.past_cap()) line += fmt::format(" ({} more past the cap, not recorded)", r.past_cap());
  }
  return line;
}

void record_start(const char* dir) {
  std::string where = dir ? dir : common::env_or_empty("SKB_RECORD_MISSES");
  if (where.empty())
    throw RuntimeError(SKB_ERR_INVALID, "skb_runtime_record_start: no folder given and SKB_RECORD_MISSES is not set");
  MissRecorder& recorder = MissRecorder::process();
  recorder.start(where);
}

void record_flush() {
  MissRecorder& recorder = MissRecorder::process();
  recorder.flush();
  recorder.report();
}

void fill_counts(skb_call_counts& out) {
  CallCount sum = call_counts().totals();
  MissRecorder& recorder = MissRecorder::process();
  out.static_hits = sum.static_hits;
  out.dynamic_fallbacks = sum.dynamic_fallbacks;
  out.no_kernel = sum.no_kernel;
  out.recorded = recorder.written();
  out.past_cap = recorder.past_cap();
}

void copy_text(const std::string& text, char* buf, std::size_t size, std::size_t* needed) {
  if (needed) *needed = text.size();
  if (size == 0) return;
  std::size_t n = std::min(size - 1, text.size());
  std::memcpy(buf, text.data(), n);
  buf[n] = '\0';
}

}  // namespace skb::runtime

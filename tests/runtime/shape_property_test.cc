// Property test of the shape rules, end to end: random records of every host op, drawn consistent
// by construction, must run (static or dynamic kernel) and match the reference ops; the same
// records with one contradiction made by construction must be refused by skb-package (listed in
// summary.json's files_rejected) and by skb_runtime_find (SKB_ERR_INVALID), and a dynamic kernel
// called directly with them must return SKB_KERNEL_BAD_CALL without touching a buffer. Every
// buffer ends at a guard page, sized exactly as its record says: a kernel that writes or reads
// one byte past it dies here. Trials per op: SKB_PROPERTY_TRIALS (default 12).
#include <dlfcn.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>

#include "common/fs.h"
#include "common/process.h"
#include "runtime/reference/tensors.h"
#include "skb/runtime.h"
#include "skb_kernel_abi.h"
#include "tests/support/records.h"

namespace skb::test {
namespace {
namespace fs = std::filesystem;
using common::Json;
using Dims = std::vector<std::int64_t>;
using Rng = std::mt19937;

int trials() {
  const char* v = std::getenv("SKB_PROPERTY_TRIALS");
  return v ? std::max(1, std::atoi(v)) : 12;
}

std::int64_t pick(Rng& rng, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}
bool coin(Rng& rng) { return pick(rng, 0, 1) == 1; }

Dims random_shape(Rng& rng, int min_rank, int max_rank) {
  Dims d(static_cast<std::size_t>(pick(rng, min_rank, max_rank)));
  for (auto& e : d) e = pick(rng, 1, 7);
  return d;
}

// Two operands that broadcast to exactly `out`: on every axis one of them has out's extent.
std::pair<Dims, Dims> broadcast_pair(Rng& rng, const Dims& out) {
  Dims a = out, b = out;
  for (std::size_t i = 0; i < out.size(); ++i)
    if (pick(rng, 0, 2) == 0) (coin(rng) ? a : b)[i] = 1;
  // Leading axes may be left out of whichever operand is 1 there.
  std::size_t drop = 0;
  while (drop < out.size() && (b[drop] == 1 || out[drop] == 1) && coin(rng)) ++drop;
  b.erase(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(drop));
  return {a, b};
}

// One op's random consistent records and a contradiction of each, both by construction;
// contradict returns whether a kernel can see it in the shapes and attrs of a call (a dtype
// contradiction it cannot: its dtypes are compiled in).
struct OpGen {
  std::string name;  // the op, and a variant
  std::function<Json(Rng&)> consistent;
  std::function<bool(Json&, Rng&)> contradict;
};

// y's first axis one longer (or a rank-0 y made [2]): contradicts every op.
bool longer_output(Json& r, Rng&) {
  Json& s = r["outputs"][0]["shape"];
  if (s.empty())
    s = Json::array({2});
  else
    s[0] = s[0].get<std::int64_t>() + 1;
  r["outputs"][0]["origin_shape"] = s;
  return true;
}

void set_shape(Json& t, const Json& shape) {
  t["shape"] = shape;
  t["origin_shape"] = shape;
}

std::vector<OpGen> generators() {
  std::vector<OpGen> g;
  for (const char* op : {"Square", "Relu", "Gelu", "FastGelu"})
    g.push_back({op,
                 [op](Rng& rng) {
                   Dims x = random_shape(rng, 0, 4);
                   return record(op, {tensor("float", x, 0)}, {tensor("float", x, 0)});
                 },
                 longer_output});
  g.push_back({"Cast",
               [](Rng& rng) {
                 Dims x = random_shape(rng, 0, 4);
                 return record("Cast", {tensor("float", x, 0)}, {tensor("float16", x, 0)},
                               {attr("dst_type", 0, "int", 1)});
               },
               [](Json& r, Rng& rng) {
                 if (coin(rng)) return longer_output(r, rng);
                 r["attrs"][0]["value"] = 27;  // bfloat16, but y is float16
                 return false;
               }});
  for (const char* op : {"Add", "Sub", "Mul", "RealDiv"})
    g.push_back({op,
                 [op](Rng& rng) {
                   Dims y = random_shape(rng, 1, 4);
                   auto [x1, x2] = broadcast_pair(rng, y);
                   return record(op, {tensor("float", x1, 0), tensor("float", x2, 1)}, {tensor("float", y, 0)});
                 },
                 [](Json& r, Rng& rng) {
                   if (coin(rng)) return longer_output(r, rng);
                   // x2's last axis one longer than y's: it cannot broadcast to y.
                   Json shape = r["inputs"][1]["shape"];
                   std::int64_t last = r["outputs"][0]["shape"].back().get<std::int64_t>() + 1;
                   if (shape.empty())
                     shape.push_back(last);
                   else
                     shape.back() = last;
                   set_shape(r["inputs"][1], shape);
                   return true;
                 }});
  for (bool bias : {false, true})
    g.push_back({bias ? "MatMulV2+bias" : "MatMulV2",
                 [bias](Rng& rng) {
                   std::int64_t m = pick(rng, 1, 19), k = pick(rng, 1, 19), n = pick(rng, 1, 19);
                   bool ta = coin(rng), tb = coin(rng);
                   return record("MatMulV2",
                                 {tensor("float", ta ? Dims{k, m} : Dims{m, k}, 0),
                                  tensor("float", tb ? Dims{n, k} : Dims{k, n}, 1),
                                  bias ? tensor("float", {n}, 2) : Json(nullptr), nullptr},
                                 {tensor("float", {m, n}, 0)},
                                 {attr("transpose_x1", 0, "bool", ta), attr("transpose_x2", 1, "bool", tb)});
                 },
                 [](Json& r, Rng& rng) {
                   if (coin(rng)) return longer_output(r, rng);
                   // x2's k one longer.
                   bool tb = r["attrs"][1]["value"].get<bool>();
                   Json shape = r["inputs"][1]["shape"];
                   shape[tb ? 1 : 0] = shape[tb ? 1 : 0].get<std::int64_t>() + 1;
                   set_shape(r["inputs"][1], shape);
                   return true;
                 }});
  g.push_back(
      {"BatchMatMulV2",
       [](Rng& rng) {
         Dims batch = random_shape(rng, 0, 2);
         std::int64_t m = pick(rng, 1, 12), k = pick(rng, 1, 12), n = pick(rng, 1, 12);
         bool ta = coin(rng), tb = coin(rng);
         auto [a, b] = broadcast_pair(rng, batch);
         Dims y = batch;
         a.insert(a.end(), ta ? std::initializer_list<std::int64_t>{k, m} : std::initializer_list<std::int64_t>{m, k});
         b.insert(b.end(), tb ? std::initializer_list<std::int64_t>{n, k} : std::initializer_list<std::int64_t>{k, n});
         y.insert(y.end(), {m, n});
         return record("BatchMatMulV2", {tensor("float", a, 0), tensor("float", b, 1), nullptr, nullptr},
                       {tensor("float", y, 0)}, {attr("adj_x1", 0, "bool", ta), attr("adj_x2", 1, "bool", tb)});
       },
       [](Json& r, Rng& rng) {
         if (coin(rng)) return longer_output(r, rng);
         // The case: adj_x2 flipped, x2 laid out as before (contradicts unless k == n).
         bool tb = r["attrs"][1]["value"].get<bool>();
         Json shape = r["inputs"][1]["shape"];
         std::size_t kd = shape.size() - (tb ? 1 : 2);
         shape[kd] = shape[kd].get<std::int64_t>() + 1;
         set_shape(r["inputs"][1], shape);
         return true;
       }});
  g.push_back({"SoftmaxV2",
               [](Rng& rng) {
                 Dims x = random_shape(rng, 1, 4);
                 auto r = static_cast<std::int64_t>(x.size());
                 return record("SoftmaxV2", {tensor("float", x, 0)}, {tensor("float", x, 0)},
                               {attr("axes", 0, "list_int", {pick(rng, -r, r - 1)})});
               },
               [](Json& r, Rng& rng) {
                 if (coin(rng)) return longer_output(r, rng);
                 r["attrs"][0]["value"] = {r["inputs"][0]["shape"].size()};  // one past the last axis
                 return true;
               }});
  g.push_back({"LayerNorm",
               [](Rng& rng) {
                 Dims x = random_shape(rng, 1, 4);
                 auto rank = static_cast<std::int64_t>(x.size());
                 std::int64_t axis = pick(rng, 0, rank - 1);
                 Dims gamma(x.begin() + axis, x.end()), stats(x.begin(), x.begin() + axis);
                 stats.resize(x.size(), 1);
                 std::int64_t given = coin(rng) ? axis : axis - rank;
                 return record("LayerNorm",
                               {tensor("float", x, 0), tensor("float", gamma, 1), tensor("float", gamma, 2)},
                               {tensor("float", x, 0), tensor("float", stats, 1), tensor("float", stats, 2)},
                               {attr("begin_norm_axis", 0, "int", given), attr("begin_params_axis", 1, "int", given),
                                attr("epsilon", 2, "float", 1e-5)});
               },
               [](Json& r, Rng& rng) {
                 if (coin(rng)) return longer_output(r, rng);
                 Json shape = r["inputs"][1]["shape"];
                 shape.back() = shape.back().get<std::int64_t>() + 1;
                 set_shape(r["inputs"][1], shape);
                 return true;
               }});
  g.push_back({"RmsNorm",
               [](Rng& rng) {
                 Dims x = random_shape(rng, 1, 4);
                 auto g_rank = pick(rng, 1, static_cast<std::int64_t>(x.size()));
                 Dims gamma(x.end() - g_rank, x.end()), rstd(x.begin(), x.end() - g_rank);
                 rstd.resize(x.size(), 1);
                 return record("RmsNorm", {tensor("float", x, 0), tensor("float", gamma, 1)},
                               {tensor("float", x, 0), tensor("float", rstd, 1)}, {attr("epsilon", 0, "float", 1e-6)});
               },
               [](Json& r, Rng& rng) {
                 if (coin(rng)) return longer_output(r, rng);
                 Json shape = r["inputs"][1]["shape"];
                 shape[0] = shape[0].get<std::int64_t>() + 1;
                 set_shape(r["inputs"][1], shape);
                 return true;
               }});
  g.push_back(
      {"Transpose",
       [](Rng& rng) {
         Dims x = random_shape(rng, 1, 4), perm(x.size()), y;
         for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<std::int64_t>(i);
         std::shuffle(perm.begin(), perm.end(), rng);
         for (auto p : perm) y.push_back(x[p]);
         return record("Transpose", {tensor("float", x, 0), value_tensor("int64", perm, 1)}, {tensor("float", y, 0)});
       },
       [](Json& r, Rng& rng) {
         Json& perm = r["inputs"][1]["const_data"];
         if (coin(rng) || perm.size() < 2) return longer_output(r, rng);
         perm[0] = perm[1];  // not a permutation
         return true;
       }});
  g.push_back(
      {"Tile",
       [](Rng& rng) {
         Dims x = random_shape(rng, 0, 3), multiples, y;
         // as many multiples as x's axes or one more (x padded with a leading one)
         multiples.resize(std::max<std::size_t>(1, x.size() + static_cast<std::size_t>(coin(rng))));
         for (std::size_t i = 0; i < multiples.size(); ++i) {
           multiples[i] = pick(rng, 1, 3);
           const std::size_t pad = multiples.size() - x.size();
           y.push_back((i < pad ? 1 : x[i - pad]) * multiples[i]);
         }
         return record("Tile", {tensor("float", x, 0), value_tensor("int64", multiples, 1)}, {tensor("float", y, 0)});
       },
       [](Json& r, Rng& rng) {
         if (coin(rng)) return longer_output(r, rng);
         Json& multiples = r["inputs"][1]["const_data"];
         multiples[0] = multiples[0].get<std::int64_t>() + 1;  // y no longer follows them
         return true;
       }});
  g.push_back({"ConcatD",
               [](Rng& rng) {
                 // Three tensors always: the dynamic kernel is made for a list of that length.
                 Dims shape = random_shape(rng, 1, 4), y = shape;
                 const auto axis = static_cast<std::size_t>(pick(rng, 0, static_cast<std::int64_t>(shape.size()) - 1));
                 Json xs = Json::array();
                 y[axis] = 0;
                 for (int j = 0; j < 3; ++j) {
                   Dims x = shape;
                   x[axis] = pick(rng, 1, 5);
                   y[axis] += x[axis];
                   xs.push_back(tensor("float", x, 0));
                 }
                 const auto given =
                     static_cast<std::int64_t>(axis) - (coin(rng) ? static_cast<std::int64_t>(shape.size()) : 0);
                 return record("ConcatD", {xs}, {tensor("float", y, 0)},
                               {attr("concat_dim", 0, "int", given), attr("N", 1, "int", 3)});
               },
               [](Json& r, Rng& rng) {
                 if (coin(rng)) return longer_output(r, rng);
                 // the second tensor one longer on an axis it must share with the others
                 Json& x = r["inputs"][0][1];
                 const std::int64_t rank = static_cast<std::int64_t>(x["shape"].size());
                 const std::int64_t axis = (r["attrs"][0]["value"].get<std::int64_t>() + rank) % rank;
                 if (rank < 2) return longer_output(r, rng);
                 Json shape = x["shape"];
                 const std::size_t other = static_cast<std::size_t>((axis + 1) % rank);
                 shape[other] = shape[other].get<std::int64_t>() + 1;
                 set_shape(x, shape);
                 return true;
               }});
  return g;
}

fs::path root() { return fs::path(SKB_TEST_SCRATCH) / "shape_property"; }

// Memory for one tensor, exactly `bytes` long and ending at a page that may not be touched.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(std::size_t bytes) : bytes_(bytes) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    span_ = (bytes + page - 1) / page * page + page;
    base_ =
        static_cast<unsigned char*>(mmap(nullptr, span_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base_ == MAP_FAILED) throw std::runtime_error("mmap failed");
    mprotect(base_ + span_ - page, page, PROT_NONE);
    data_ = base_ + span_ - page - bytes;
  }
  ~GuardedBuffer() { munmap(base_, span_); }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  unsigned char* data() { return data_; }
  std::size_t size() const { return bytes_; }

 private:
  std::size_t bytes_, span_;
  unsigned char *base_, *data_;
};

// Runs the call on random inputs in guarded buffers and compares with the reference; returns
// the first difference or error.
std::string run_guarded(skb_op* op, const Json& rec, Rng& rng) {
  auto r = opmodel::parse_op_record(rec);
  auto in = reference::make_inputs(r, rng);
  auto out = reference::make_outputs(r);
  std::vector<std::unique_ptr<GuardedBuffer>> keep;
  std::vector<std::unique_ptr<std::vector<const void*>>> lists;  // a tensor list's pointers, guarded too
  std::vector<const void*> ip;
  std::vector<void*> op_out;
  auto guarded = [&keep](const reference::Buffer& b) {
    keep.push_back(std::make_unique<GuardedBuffer>(b.bytes.size()));
    std::copy(b.bytes.begin(), b.bytes.end(), keep.back()->data());
    return keep.back()->data();
  };
  for (auto& b : in) {
    if (b.list) {
      lists.push_back(std::make_unique<std::vector<const void*>>());
      for (const auto& item : b.items) lists.back()->push_back(guarded(item));
      ip.push_back(lists.back()->data());
      continue;
    }
    if (b.bytes.empty() && b.ref.shape.empty()) {
      ip.push_back(nullptr);
      continue;
    }
    ip.push_back(guarded(b));
  }
  std::vector<GuardedBuffer*> outs;
  for (auto& b : out) {
    keep.push_back(std::make_unique<GuardedBuffer>(b.bytes.size()));
    outs.push_back(keep.back().get());
    op_out.push_back(keep.back()->data());
  }
  if (skb_op_run(op, ip.data(), op_out.data()) != SKB_OK) return skb_last_error();
  for (std::size_t i = 0; i < out.size(); ++i)
    std::copy(outs[i]->data(), outs[i]->data() + outs[i]->size(), out[i].bytes.begin());
  return reference::compare_outputs(r, out, reference::expected_outputs(r, in));
}

// The skb_call a dynamic kernel is given for a record, owning its arrays.
struct RawCall {
  std::vector<skb_shape> in, out;
  std::vector<std::string> names;
  std::vector<std::vector<double>> values;
  std::vector<skb_attr> attrs;
  skb_call call{};
  explicit RawCall(const Json& rec) {
    // One shape per slot, rank -1 for an absent one; a tensor list's tensors each in its place.
    auto shapes = [](const Json& slots) {
      std::vector<skb_shape> v;
      for (const Json& slot : slots) {
        for (const Json& t : slot.is_array() ? slot : Json::array({slot})) {
          skb_shape s{-1, {}};
          if (t.is_object()) {
            s.rank = static_cast<std::int32_t>(t["shape"].size());
            for (std::size_t d = 0; d < t["shape"].size() && d < SKB_MAX_RANK; ++d) s.dims[d] = t["shape"][d];
          }
          v.push_back(s);
        }
      }
      return v;
    };
    in = shapes(rec["inputs"]);
    out = shapes(rec["outputs"]);
    for (const Json& a : rec["attrs"]) {
      names.push_back(a["name"]);
      std::vector<double> v;
      for (const Json& e : a["value"].is_array() ? a["value"] : Json::array({a["value"]}))
        v.push_back(e.is_boolean() ? e.get<bool>() : e.get<double>());
      values.push_back(v);
    }
    for (std::size_t i = 0; i < names.size(); ++i)
      attrs.push_back({names[i].c_str(), static_cast<std::int32_t>(values[i].size()), values[i].data()});
    call = {static_cast<std::int32_t>(in.size()),
            static_cast<std::int32_t>(out.size()),
            in.data(),
            out.data(),
            static_cast<std::int32_t>(attrs.size()),
            attrs.data()};
  }
};

fs::path find_file(const fs::path& dir, const std::string& name) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename() == name) return e.path();
  return {};
}

TEST(ShapeProperty, ConsistentRecordsMatchTheReferenceAndContradictionsAreRefusedEverywhere) {
  fs::remove_all(root());
  fs::path dump = root() / "dump";
  fs::create_directories(dump);
  Rng rng(20261123);
  auto gens = generators();
  // One record per op goes into the package (its static kernel and its dynamic twin), with one
  // contradiction of each beside it.
  std::vector<std::string> bad_files;
  for (std::size_t i = 0; i < gens.size(); ++i) {
    Json good = gens[i].consistent(rng);
    common::write_atomic(dump / fmt::format("good_{}.json", i), good.dump(1));
    Json bad = good;
    gens[i].contradict(bad, rng);
    bad_files.push_back((dump / fmt::format("bad_{}.json", i)).string());
    common::write_atomic(bad_files.back(), bad.dump(1));
  }
  std::sort(bad_files.begin(), bad_files.end());
  fs::path out = root() / "out";
  auto built =
      common::run_process({SKB_PACKAGE_EXE, "-p", dump.string(), "-o", out.string(), "--dynamic", "--quiet"}, true);
  ASSERT_EQ(built.exit_code, 0) << built.output;
  Json summary = common::parse_json(common::read_file(out / ".skb" / "summary.json", 1 << 24));
  std::vector<std::string> rejected;
  for (const Json& r : summary["files_rejected"]) {
    rejected.push_back(r["file"]);
    EXPECT_NE(r["error"].get<std::string>().find("expected"), std::string::npos) << r["error"];
  }
  EXPECT_EQ(rejected, bad_files);
  EXPECT_EQ(summary["planned_total"], gens.size());
  std::string run;  // the line that names the package (the rejected files are reported before it)
  for (std::size_t at = 0, end; at < built.output.size(); at = end + 1) {
    end = std::min(built.output.find('\n', at), built.output.size());
    std::string line = built.output.substr(at, end - at);
    if (line.size() > 4 && line.compare(line.size() - 4, 4, ".run") == 0) run = line;
  }
  fs::path lib = root() / "lib";
  ASSERT_EQ(common::run_process({"sh", run, "--quiet", "--install-path=" + lib.string()}, true).exit_code, 0);

  skb_runtime* rt = nullptr;
  ASSERT_EQ(skb_runtime_open(lib.c_str(), nullptr, &rt), SKB_OK) << skb_last_error();
  int ran = 0, refused = 0, dynamic_refused = 0;
  for (const OpGen& gen : gens) {
    for (int t = 0; t < trials(); ++t) {
      Json good = gen.consistent(rng);
      skb_op* op = nullptr;
      ASSERT_EQ(skb_runtime_find(rt, good.dump().c_str(), &op), SKB_OK) << gen.name << ": " << skb_last_error();
      EXPECT_EQ(run_guarded(op, good, rng), "") << gen.name << ": " << good.dump();
      ++ran;
      std::string dynamic_name = skb_op_kind(op) == SKB_KERNEL_DYNAMIC ? skb_op_kernel_name(op) : "";
      skb_op_free(op);

      Json bad = good;
      const bool kernel_sees = gen.contradict(bad, rng);
      op = nullptr;
      EXPECT_EQ(skb_runtime_find(rt, bad.dump().c_str(), &op), SKB_ERR_INVALID) << gen.name << ": " << bad.dump();
      EXPECT_EQ(op, nullptr);
      EXPECT_NE(std::string(skb_last_error()).find("expected"), std::string::npos) << skb_last_error();
      ++refused;
      if (dynamic_name.empty() || !kernel_sees) continue;
      // The dynamic kernel itself, as a library built by hand would call it: no buffer at all, so
      // touching one would crash.
      fs::path so = find_file(lib, dynamic_name + ".so");
      ASSERT_FALSE(so.empty()) << dynamic_name;
      void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
      ASSERT_NE(h, nullptr) << dlerror();
      auto fn = reinterpret_cast<skb_kernel_dynamic_fn>(dlsym(h, "skb_kernel_dynamic"));
      ASSERT_NE(fn, nullptr);
      RawCall call(bad);
      const void* no_inputs[8] = {};
      void* no_outputs[8] = {};
      // Transpose and Tile read their perm or multiples to check them (and no more of them than
      // x's or y's rank).
      std::vector<std::int64_t> perm;
      if (bad["op_type"] == "Transpose" || bad["op_type"] == "Tile") {
        perm = bad["inputs"][1]["const_data"].get<std::vector<std::int64_t>>();
        no_inputs[1] = perm.data();
      }
      EXPECT_EQ(fn(&call.call, no_inputs, no_outputs), SKB_KERNEL_BAD_CALL) << gen.name << ": " << bad.dump();
      ++dynamic_refused;
      dlclose(h);
    }
  }
  skb_runtime_close(rt);
  std::printf(
      "%d consistent calls matched the reference, %d contradictions refused by find, %d by the dynamic "
      "kernel itself\n",
      ran, refused, dynamic_refused);
}

}  // namespace
}  // namespace skb::test

#include "explain/paired_timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>

#include "runtime/payoff.h"

namespace skb::explain {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The time this thread ran: a moment it waited (another process on the core, the process stopped)
// counts for neither side. Host kernels run on the calling thread.
double thread_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double time_calls(const std::function<void()>& f, long n) {
  const double t = thread_seconds();
  for (long i = 0; i < n; ++i) f();
  return thread_seconds() - t;
}

// P(X <= k) for X ~ Binomial(n, 1/2).
double binomial_half_cdf(int n, int k) {
  double p = 0, term = std::pow(0.5, n);  // C(n, 0) / 2^n
  for (int i = 0; i <= k; ++i) {
    p += term;
    term = term * (n - i) / (i + 1);
  }
  return p;
}

}  // namespace

RatioInterval median_ratio_interval(std::vector<double> logs) {
  std::sort(logs.begin(), logs.end());
  const int n = static_cast<int>(logs.size());
  const double median = n % 2 ? logs[n / 2] : (logs[n / 2 - 1] + logs[n / 2]) / 2;
  // The order statistics x(k) and x(n+1-k) bound the median with at least 95% confidence when
  // P(X <= k-1) <= 0.025 (the sign test); k = 1, the whole range, when n is too small for that.
  int k = 1;
  while (k + 1 <= n / 2 && binomial_half_cdf(n, k) <= 0.025) ++k;
  return {std::exp(median), std::exp(logs[k - 1]), std::exp(logs[n - k])};
}

Timing time_paired(const std::function<void()>& a, const std::function<void()>& b, const TimingOptions& o) {
  return time_paired_samples([&](long n) { return time_calls(a, n); }, [&](long n) { return time_calls(b, n); }, o);
}

Timing time_paired_samples(const Sample& a, const Sample& b, const TimingOptions& o) {
  const auto start = Clock::now();
  // Warm-up: both run until each has had a few calls and a few milliseconds (caches, page
  // faults, lazy binding), which also tells how long one call takes.
  long warm = 0;
  double ta = 0, tb = 0;
  while (warm < 3 || ta + tb < 4 * o.min_sample_seconds) {
    ta += a(1);
    tb += b(1);
    ++warm;
    if (seconds_since(start) > o.budget_seconds / 4 && warm >= 3) break;
  }
  const double once = std::max(std::min(ta, tb) / static_cast<double>(warm), 1e-9);
  const long calls = std::max(1L, static_cast<long>(std::ceil(o.min_sample_seconds / once)));

  std::vector<double> logs;
  double sum_a = 0, sum_b = 0;
  const double m = o.margin, lo_bound = 1 / (1 + m), hi_bound = 1 + m;
  RatioInterval ci{1, 1, 1};
  for (int pair = 0; pair < o.max_pairs; ++pair) {
    double sa, sb;
    if (pair % 2 == 0) {
      sa = a(calls);
      sb = b(calls);
    } else {
      sb = b(calls);
      sa = a(calls);
    }
    sum_a += sa;
    sum_b += sb;
    logs.push_back(std::log(std::max(sa, 1e-12) / std::max(sb, 1e-12)));
    if (logs.size() < 2) continue;
    ci = median_ratio_interval(logs);
    if (static_cast<int>(logs.size()) < o.min_pairs) {
      if (seconds_since(start) < o.budget_seconds) continue;
      break;
    }
    const bool decided = ci.low > hi_bound || ci.high < lo_bound || (ci.low >= lo_bound && ci.high <= hi_bound);
    if (decided || seconds_since(start) >= o.budget_seconds) break;
  }
  Timing t;
  t.pairs = static_cast<int>(logs.size());
  t.ratio = ci.ratio;
  t.low = ci.low;
  t.high = ci.high;
  const double n_calls = static_cast<double>(calls) * static_cast<double>(t.pairs);
  t.a_ns = sum_a / n_calls * 1e9;
  t.b_ns = sum_b / n_calls * 1e9;
  // Fewer pairs than min_pairs (the budget ran out) decide nothing.
  t.verdict = t.pairs >= o.min_pairs ? runtime::verdict_of(t.low, t.high, m) : runtime::kNoDifference;
  return t;
}

}  // namespace skb::explain

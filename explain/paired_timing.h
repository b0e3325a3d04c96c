#pragma once
// Two functions timed against each other, as `skb bench` times a static kernel against its
// dynamic twin: warm-up, samples of many calls each (at least a minimum time of the calling
// thread's CPU time, so that a moment the thread waits counts for neither), taken in pairs whose
// order alternates so that both see the same machine, and a 95% confidence interval of the
// median ratio of their times (the sign test's order statistics: a few disturbed pairs move
// neither the estimate nor the interval).
#include <functional>
#include <string>
#include <vector>

namespace skb::explain {

struct TimingOptions {
  double min_sample_seconds = 1e-3;  // each sample repeats calls until it lasts at least this
  int min_pairs = 12;                // before any verdict: fewer decide nothing
  int max_pairs = 200;
  double budget_seconds = 1;  // stops after this, with the interval it has
  double margin = 0.05;       // slower: the whole interval above 1 + margin; faster: below 1/(1 + margin)
};

struct Timing {
  double ratio = 1, low = 1, high = 1;  // time of a / time of b, and its 95% interval
  double a_ns = 0, b_ns = 0;            // per call, over all samples
  int pairs = 0;
  std::string verdict;  // runtime/payoff.h's kFaster, kSlower or kNoDifference
};

/// The median of paired ratios given as logs, and its 95% interval from order statistics (the
/// whole range when there are too few for that): {estimate, low, high}. At least one.
struct RatioInterval {
  double ratio, low, high;
};
RatioInterval median_ratio_interval(std::vector<double> log_ratios);

/// Times a against b. It stops once the interval is decided (wholly beyond the margin on either
/// side, or wholly within it) after min_pairs, or at max_pairs, or when the budget is spent.
Timing time_paired(const std::function<void()>& a, const std::function<void()>& b, const TimingOptions& o);

/// The same for work that times itself: a sample runs `calls` calls and returns the seconds they
/// took by its own clock (a GPU's events: the time the device spent, not the thread's).
using Sample = std::function<double(long calls)>;
Timing time_paired_samples(const Sample& a, const Sample& b, const TimingOptions& o);

}  // namespace skb::explain

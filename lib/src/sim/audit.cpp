#include "dpkit/sim/audit.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <string>

#include "dpkit/core/check.hpp"
#include "dpkit/sim/statistics.hpp"

namespace dpkit::sim {
namespace {

std::vector<double> sorted_samples(const char* function,
                                   const char* name,
                                   std::span<const double> x) {
  if (x.empty()) throw_domain_error(function, "size of " + std::string(name), "0", ">= 1");
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::isnan(x[i]))
      check_not_nan(function, std::string(name) + "[" + std::to_string(i) + "]", x[i]);
  std::vector<double> s(x.begin(), x.end());
  std::sort(s.begin(), s.end());
  return s;
}

// Pooled-sample quantiles at j/(m + 1), j = 1..m: the ⌈p·N⌉-th order statistic (Hyndman & Fan
// type 1), from the two sorted samples without materialising the pooled one twice.
std::vector<double> pooled_quantiles(const std::vector<double>& a,
                                     const std::vector<double>& b,
                                     std::size_t m) {
  std::vector<double> pooled;
  pooled.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(pooled));
  const double n = static_cast<double>(pooled.size());
  std::vector<double> q;
  q.reserve(m);
  for (std::size_t j = 1; j <= m; ++j) {
    const double p = static_cast<double>(j) / static_cast<double>(m + 1);
    const auto rank = static_cast<std::size_t>(std::ceil(p * n));  // in [1, N]
    q.push_back(pooled[std::clamp<std::size_t>(rank, 1, pooled.size()) - 1]);
  }
  return q;
}

}  // namespace

std::string_view to_string(verdict v) noexcept {
  switch (v) {
    case verdict::holds:
      return "holds";
    case verdict::violated:
      return "violated";
    case verdict::inconclusive:
      return "inconclusive";
    case verdict::refuted:
      return "refuted";
  }
  return "unknown";
}

std::string_view to_string(test_direction d) noexcept {
  switch (d) {
    case test_direction::reject_above:
      return "reject-above";
    case test_direction::reject_below:
      return "reject-below";
    case test_direction::both:
      return "both";
  }
  return "unknown";
}

empirical_tradeoff estimate_tradeoff(std::span<const double> samples_d,
                                     std::span<const double> samples_dprime,
                                     const tradeoff_options& options) {
  constexpr const char* kFunction = "estimate_tradeoff";
  const bool pilot = options.thresholds.empty() && options.pilot_fraction != 0;
  std::size_t pilot_d = 0, pilot_dp = 0;
  if (pilot) {
    if (!(options.pilot_fraction > 0 && options.pilot_fraction < 1))
      throw_domain_error(kFunction, "options.pilot_fraction", format_value(options.pilot_fraction),
                         "in [0, 1)");
    pilot_d =
        static_cast<std::size_t>(options.pilot_fraction * static_cast<double>(samples_d.size()));
    pilot_dp = static_cast<std::size_t>(options.pilot_fraction *
                                        static_cast<double>(samples_dprime.size()));
    if (pilot_d < 1 || pilot_dp < 1 || pilot_d >= samples_d.size() ||
        pilot_dp >= samples_dprime.size())
      throw_domain_error(kFunction, "options.pilot_fraction", format_value(options.pilot_fraction),
                         "such that the pilot and the rest of each sample are non-empty");
  }
  const std::vector<double> d = sorted_samples(kFunction, "samples_d", samples_d.subspan(pilot_d));
  const std::vector<double> dp =
      sorted_samples(kFunction, "samples_dprime", samples_dprime.subspan(pilot_dp));
  check_open_probability(kFunction, "options.confidence", options.confidence);
  const bool from_data = options.thresholds.empty() && !pilot;
  if (options.thresholds.empty())
    check_at_least(kFunction, "options.threshold_count",
                   static_cast<long long>(options.threshold_count), 1);
  for (std::size_t i = 0; i < options.thresholds.size(); ++i)
    check_not_nan(kFunction, "options.thresholds[" + std::to_string(i) + "]",
                  options.thresholds[i]);
  if (options.direction != test_direction::reject_above &&
      options.direction != test_direction::reject_below &&
      options.direction != test_direction::both)
    throw_domain_error(kFunction, "options.direction",
                       std::to_string(static_cast<int>(options.direction)),
                       "reject_above, reject_below or both");

  std::vector<double> thresholds = options.thresholds;
  if (from_data) {
    thresholds = pooled_quantiles(d, dp, options.threshold_count);
  } else if (pilot) {
    thresholds = pooled_quantiles(
        sorted_samples(kFunction, "samples_d", samples_d.first(pilot_d)),
        sorted_samples(kFunction, "samples_dprime", samples_dprime.first(pilot_dp)),
        options.threshold_count);
  }
  std::sort(thresholds.begin(), thresholds.end());
  thresholds.erase(std::unique(thresholds.begin(), thresholds.end()), thresholds.end());

  std::vector<test_direction> directions;
  if (options.direction != test_direction::reject_below)
    directions.push_back(test_direction::reject_above);
  if (options.direction != test_direction::reject_above)
    directions.push_back(test_direction::reject_below);

  empirical_tradeoff out;
  out.n_d = d.size();
  out.n_dprime = dp.size();
  out.confidence = options.confidence;
  out.thresholds_from_data = from_data;
  out.pilot_d = pilot_d;
  out.pilot_dprime = pilot_dp;
  out.intervals = 2 * thresholds.size() * directions.size();
  // Bonferroni: K intervals, each failing with probability ≤ (1 − confidence)/K.
  out.interval_confidence = 1 - (1 - options.confidence) / static_cast<double>(out.intervals);

  out.points.reserve(thresholds.size() * directions.size());
  for (const test_direction dir : directions) {
    for (const double theta : thresholds) {
      // Counts of D samples on the rejecting side and D′ samples on the accepting side.
      std::size_t reject_d = 0, accept_dprime = 0;
      if (dir == test_direction::reject_above) {
        reject_d = static_cast<std::size_t>(d.end() - std::upper_bound(d.begin(), d.end(), theta));
        accept_dprime =
            static_cast<std::size_t>(std::upper_bound(dp.begin(), dp.end(), theta) - dp.begin());
      } else {
        reject_d =
            static_cast<std::size_t>(std::lower_bound(d.begin(), d.end(), theta) - d.begin());
        accept_dprime =
            static_cast<std::size_t>(dp.end() - std::lower_bound(dp.begin(), dp.end(), theta));
      }
      const confidence_interval a = clopper_pearson(reject_d, d.size(), out.interval_confidence);
      const confidence_interval b =
          clopper_pearson(accept_dprime, dp.size(), out.interval_confidence);
      out.points.push_back({.threshold = theta,
                            .alpha = a.estimate,
                            .alpha_lo = a.lower,
                            .alpha_hi = a.upper,
                            .beta = b.estimate,
                            .beta_lo = b.lower,
                            .beta_hi = b.upper,
                            .direction = dir});
    }
  }
  return out;
}

tradeoff_audit audit_tradeoff(const empirical_tradeoff& empirical,
                              const std::function<double(double)>& f) {
  constexpr const char* kFunction = "audit_tradeoff";
  if (empirical.points.empty())
    throw_domain_error(kFunction, "number of empirical points", "0", ">= 1");
  if (!f) throw_domain_error(kFunction, "f", "empty", "a callable tradeoff function");
  auto claim = [&](double alpha) {
    const double value = f(alpha);
    if (std::isnan(value)) check_not_nan(kFunction, "f(" + format_value(alpha) + ")", value);
    return value;
  };

  constexpr double kInf = std::numeric_limits<double>::infinity();
  tradeoff_audit r;
  r.confidence = empirical.confidence;
  r.violation_margin = -kInf;
  r.hold_margin = kInf;
  r.min_gap = kInf;
  r.max_gap = -kInf;
  for (std::size_t i = 0; i < empirical.points.size(); ++i) {
    const tradeoff_point& p = empirical.points[i];
    // f is non-increasing: on the box its largest value is f(alpha_lo), its smallest f(alpha_hi).
    const double violation = claim(p.alpha_hi) - p.beta_hi;
    const double hold = p.beta_lo - claim(p.alpha_lo);
    const double gap = p.beta - claim(p.alpha);
    if (violation > r.violation_margin) {
      r.violation_margin = violation;
      r.violation_index = i;
    }
    if (hold < r.hold_margin) {
      r.hold_margin = hold;
      r.hold_index = i;
    }
    if (gap < r.min_gap) {
      r.min_gap = gap;
      r.closest_index = i;
    }
    if (gap > r.max_gap) {
      r.max_gap = gap;
      r.loosest_index = i;
    }
  }
  // The two conditions exclude each other for non-increasing f: beta_hi < f(alpha_hi) ≤
  // f(alpha_lo) ≤ beta_lo ≤ beta_hi is impossible.
  r.verdict = r.violation_margin > 0 ? verdict::violated
              : r.hold_margin >= 0   ? verdict::holds
                                     : verdict::inconclusive;
  return r;
}

epsilon_audit epsilon_lower_bound(const empirical_tradeoff& empirical, double delta) {
  constexpr const char* kFunction = "epsilon_lower_bound";
  if (empirical.points.empty())
    throw_domain_error(kFunction, "number of empirical points", "0", ">= 1");
  if (!(delta >= 0 && delta < 1)) throw_domain_error(kFunction, "delta", delta, "in [0, 1)");

  epsilon_audit r;
  r.delta = delta;
  r.confidence = empirical.confidence;
  r.index = empirical.points.size();
  // Kairouz, Oh & Viswanath 2015 Thm 2.1 with the upper confidence limits (true α ≤ alpha_hi,
  // β ≤ beta_hi on the simultaneous event): e^ε ≥ (1 − δ − α)/β ≥ (1 − δ − alpha_hi)/beta_hi.
  auto consider = [&](double numerator, double denominator, std::size_t i) {
    if (!(numerator > 0 && denominator > 0)) return;
    const double epsilon = std::log(numerator) - std::log(denominator);
    if (epsilon > r.epsilon) {
      r.epsilon = epsilon;
      r.index = i;
      r.threshold = empirical.points[i].threshold;
      r.direction = empirical.points[i].direction;
    }
  };
  for (std::size_t i = 0; i < empirical.points.size(); ++i) {
    const tradeoff_point& p = empirical.points[i];
    consider(1 - delta - p.alpha_hi, p.beta_hi, i);
    consider(1 - delta - p.beta_hi, p.alpha_hi, i);
  }
  return r;
}

}  // namespace dpkit::sim

#include "dpkit/sim/claim_audit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "dpkit/core/check.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/sim/statistics.hpp"

namespace dpkit::sim {

privacy_claim privacy_claim::gdp(double mu) {
  if (!(mu >= 0 && std::isfinite(mu)))
    throw_domain_error("privacy_claim::gdp", "mu", mu, "finite and >= 0");
  privacy_claim c;
  c.kind_ = claim_kind::gdp;
  c.mu_ = mu;
  return c;
}

privacy_claim privacy_claim::epsilon_delta(double epsilon, double delta) {
  constexpr const char* kFn = "privacy_claim::epsilon_delta";
  if (!(epsilon >= 0 && std::isfinite(epsilon)))
    throw_domain_error(kFn, "epsilon", epsilon, "finite and >= 0");
  if (!(delta >= 0 && delta < 1)) throw_domain_error(kFn, "delta", delta, "in [0, 1)");
  privacy_claim c;
  c.kind_ = claim_kind::epsilon_delta;
  c.epsilon_ = epsilon;
  c.delta_ = delta;
  return c;
}

privacy_claim privacy_claim::tradeoff_curve(std::vector<double> alpha, std::vector<double> beta) {
  constexpr const char* kFn = "privacy_claim::tradeoff_curve";
  if (alpha.size() != beta.size())
    throw_domain_error(
        kFn, "beta", format_value(static_cast<long long>(beta.size())) + " values",
        "as many as alpha (" + format_value(static_cast<long long>(alpha.size())) + ")");
  if (alpha.size() < 2)
    throw_domain_error(kFn, "alpha", format_value(static_cast<long long>(alpha.size())) + " points",
                       "at least 2 points");
  for (std::size_t i = 0; i < alpha.size(); ++i) {
    const std::string at = "point " + std::to_string(i + 1);
    if (!(alpha[i] >= 0 && alpha[i] <= 1))
      throw_domain_error(kFn, "alpha at " + at, alpha[i], "in [0, 1]");
    if (!(beta[i] >= 0 && beta[i] <= 1))
      throw_domain_error(kFn, "beta at " + at, beta[i], "in [0, 1]");
    if (i > 0 && !(alpha[i] > alpha[i - 1]))
      throw_domain_error(
          kFn, "alpha at " + at, alpha[i],
          "above the previous point's (" + format_value(alpha[i - 1]) + "): alpha increasing");
    if (i > 0 && !(beta[i] <= beta[i - 1]))
      throw_domain_error(kFn, "beta at " + at, beta[i],
                         "at most the previous point's (" + format_value(beta[i - 1]) +
                             "): a tradeoff curve is non-increasing");
  }
  privacy_claim c;
  c.kind_ = claim_kind::tradeoff_curve;
  c.alpha_ = std::move(alpha);
  c.beta_ = std::move(beta);
  return c;
}

privacy_claim privacy_claim::renyi(std::vector<double> orders, std::vector<double> epsilons) {
  constexpr const char* kFn = "privacy_claim::renyi";
  if (orders.size() != epsilons.size())
    throw_domain_error(
        kFn, "epsilons", format_value(static_cast<long long>(epsilons.size())) + " values",
        "as many as orders (" + format_value(static_cast<long long>(orders.size())) + ")");
  if (orders.empty()) throw_domain_error(kFn, "orders", "none", "at least one order");
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const std::string at = "point " + std::to_string(i + 1);
    if (!(orders[i] > 1 && std::isfinite(orders[i])))
      throw_domain_error(kFn, "order at " + at, orders[i], "finite and > 1");
    if (i > 0 && !(orders[i] > orders[i - 1]))
      throw_domain_error(kFn, "order at " + at, orders[i],
                         "above the previous point's (" + format_value(orders[i - 1]) + ")");
    if (!(epsilons[i] >= 0 && std::isfinite(epsilons[i])))
      throw_domain_error(kFn, "epsilon at " + at, epsilons[i], "finite and >= 0");
  }
  privacy_claim c;
  c.kind_ = claim_kind::renyi;
  c.alpha_ = std::move(orders);   // the orders
  c.beta_ = std::move(epsilons);  // their ε
  return c;
}

namespace {

// The smallest β ∈ [0, 1 − x] with log g(β) ≤ bound, g convex in β with g(1 − x) = 1 ≤ e^bound
// (decreasing on [0, 1 − x]); rounded down (a lower bound on the exact root).
template <class LogG>
double smallest_feasible_beta(double x, double bound, LogG&& log_g) {
  double lo = 0, hi = 1 - x;
  if (log_g(lo) <= bound) return 0;
  for (int i = 0; i < 200 && hi - lo > 1e-13; ++i) {
    const double mid = (lo + hi) / 2;
    if (log_g(mid) <= bound)
      hi = mid;
    else
      lo = mid;
  }
  return lo;  // infeasible at lo: the root lies above, so lo is a lower bound
}

double log_add(double a, double b) {
  if (a == -std::numeric_limits<double>::infinity()) return b;
  if (b == -std::numeric_limits<double>::infinity()) return a;
  return std::max(a, b) + std::log1p(std::exp(-std::abs(a - b)));
}

// a·log(y) with 0·log 0 = 0 and y = 0, a < 0 giving +∞.
double xlogy(double a, double y) {
  if (a == 0) return 0;
  if (y == 0)
    return a > 0 ? -std::numeric_limits<double>::infinity()
                 : std::numeric_limits<double>::infinity();
  return a * std::log(y);
}

}  // namespace

double privacy_claim::operator()(double a) const {
  a = std::clamp(a, 0.0, 1.0);
  switch (kind_) {
    case claim_kind::gdp:
      if (a <= 0) return 1;
      if (a >= 1) return 0;
      return normal_cdf(normal_quantile_complement(a) - mu_);
    case claim_kind::epsilon_delta: {
      const double e = std::exp(epsilon_);
      return std::max({0.0, 1 - delta_ - e * a, (1 - delta_ - a) / e});
    }
    case claim_kind::renyi: {
      if (a >= 1) return 0;
      double f = 0;
      for (std::size_t i = 0; i < alpha_.size(); ++i) {
        const double order = alpha_[i], bound = (order - 1) * beta_[i];
        // D_a(M(D′)‖M(D)) of the test's Bernoulli pair, and D_a(M(D)‖M(D′)).
        f = std::max(f, smallest_feasible_beta(a, bound, [&](double b) {
                       return log_add(xlogy(order, 1 - b) + xlogy(1 - order, a),
                                      xlogy(order, b) + xlogy(1 - order, 1 - a));
                     }));
        f = std::max(f, smallest_feasible_beta(a, bound, [&](double b) {
                       return log_add(xlogy(order, a) + xlogy(1 - order, 1 - b),
                                      xlogy(order, 1 - a) + xlogy(1 - order, b));
                     }));
      }
      return f;
    }
    case claim_kind::tradeoff_curve: {
      if (a <= alpha_.front()) return beta_.front();
      if (a > alpha_.back()) return 0;
      const auto it = std::lower_bound(alpha_.begin(), alpha_.end(), a);
      const auto j = static_cast<std::size_t>(it - alpha_.begin());
      const double w = (a - alpha_[j - 1]) / (alpha_[j] - alpha_[j - 1]);
      return beta_[j - 1] + w * (beta_[j] - beta_[j - 1]);
    }
  }
  return 0;
}

std::string privacy_claim::describe() const {
  switch (kind_) {
    case claim_kind::gdp:
      return "mu-GDP with mu = " + format_value(mu_);
    case claim_kind::epsilon_delta:
      return "(epsilon, delta)-DP with (epsilon, delta) = (" + format_value(epsilon_) + ", " +
             format_value(delta_) + ")";
    case claim_kind::tradeoff_curve:
      return "a tradeoff curve through " + std::to_string(alpha_.size()) +
             " points (linear between them)";
    case claim_kind::renyi:
      return "Renyi DP at " + std::to_string(alpha_.size()) + " order(s) from " +
             format_value(alpha_.front()) + " to " + format_value(alpha_.back());
  }
  return {};
}

namespace {

std::pair<double, double> mean_variance(std::span<const double> x) {
  double mean = 0;
  for (const double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  double ss = 0;
  for (const double v : x) ss += (v - mean) * (v - mean);
  return {mean, ss / static_cast<double>(x.size() - 1)};
}

}  // namespace

claim_audit audit_privacy_claim(std::span<const double> samples_d,
                                std::span<const double> samples_dprime,
                                const privacy_claim& claim,
                                const claim_audit_options& options) {
  constexpr const char* kFn = "audit_privacy_claim";
  if (!(options.confidence > 0 && options.confidence < 1))
    throw_domain_error(kFn, "confidence", options.confidence, "in (0, 1)");
  if (!(options.pilot_fraction > 0 && options.pilot_fraction < 1))
    throw_domain_error(kFn, "pilot_fraction", options.pilot_fraction, "in (0, 1)");
  if (options.thresholds < 1)
    throw_domain_error(kFn, "thresholds", format_value(static_cast<long long>(options.thresholds)),
                       ">= 1");
  for (const auto* s : {&samples_d, &samples_dprime})
    if (s->size() < 20)
      throw_domain_error(kFn, s == &samples_d ? "samples_d" : "samples_dprime",
                         format_value(static_cast<long long>(s->size())) + " samples",
                         "at least 20");

  claim_audit out;
  out.confidence = options.confidence;
  tradeoff_options t;
  t.threshold_count = options.thresholds;
  t.confidence = options.confidence;
  t.pilot_fraction = options.pilot_fraction;
  t.direction = options.direction;
  out.empirical = estimate_tradeoff(samples_d, samples_dprime, t);
  const auto f = [&claim](double a) { return claim(a); };
  out.audit = audit_tradeoff(out.empirical, f);
  out.verdict = out.audit.verdict;
  const auto& points = out.empirical.points;
  switch (out.verdict) {
    case verdict::violated: {
      const tradeoff_point& p = points[out.audit.violation_index];
      out.reason = "the confidence box of the test at threshold " + format_value(p.threshold) +
                   " (alpha <= " + format_value(p.alpha_hi) +
                   ", beta <= " + format_value(p.beta_hi) +
                   ") lies wholly below the claimed curve (by " +
                   format_value(out.audit.violation_margin) + " in beta)";
      break;
    }
    case verdict::holds:
      out.reason = "every confidence box lies on or above the claimed curve";
      break;
    case verdict::inconclusive:
    case verdict::refuted:  // not returned by audit_tradeoff
      out.reason =
          "no confidence box lies wholly below the claimed curve, but some straddle it (as for "
          "a tight claim)";
      break;
  }
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double gap = kInf, gap_lo = kInf, gap_hi = kInf;
  std::vector<double> half;
  for (const tradeoff_point& p : points) {
    gap = std::min(gap, p.beta - claim(p.alpha));
    gap_lo = std::min(gap_lo, p.beta_lo - claim(p.alpha_lo));
    gap_hi = std::min(gap_hi, p.beta_hi - claim(p.alpha_hi));
    half.push_back((p.beta_hi - p.beta_lo) / 2);
  }
  out.min_gap = gap;
  out.min_gap_lo = gap_lo;
  out.min_gap_hi = gap_hi;
  if (!half.empty()) {
    std::nth_element(half.begin(), half.begin() + static_cast<std::ptrdiff_t>(half.size() / 2),
                     half.end());
    out.resolution = half[half.size() / 2];
  }
  const double delta = std::isnan(options.delta)
                           ? (claim.kind() == claim_kind::epsilon_delta ? claim.delta() : 1e-5)
                           : options.delta;
  out.epsilon_lower = epsilon_lower_bound(out.empirical, delta);
  {
    // μ̂ from the two samples' moments (for every claim: the baselines compare it); delta
    // method for Gaussian pairs:
    // Var(μ̂) ≈ 1/n + 1/n′ + μ²/(2(n + n′)).
    const auto [m0, v0] = mean_variance(samples_d);
    const auto [m1, v1] = mean_variance(samples_dprime);
    const auto n0 = static_cast<double>(samples_d.size());
    const auto n1 = static_cast<double>(samples_dprime.size());
    const double pooled = std::sqrt(((n0 - 1) * v0 + (n1 - 1) * v1) / (n0 + n1 - 2));
    const double mu_hat = std::abs(m1 - m0) / pooled;
    const double se = std::sqrt(1 / n0 + 1 / n1 + mu_hat * mu_hat / (2 * (n0 + n1)));
    const double z = normal_quantile_complement((1 - options.confidence) / 2);
    out.mu_estimate = mu_hat;
    out.mu_lo = std::max(0.0, mu_hat - z * se);
    out.mu_hi = mu_hat + z * se;
    if (claim.kind() == claim_kind::gdp) out.tightness = claim.mu() / mu_hat;
  }
  return out;
}

risk_claim risk_claim::at_steps(std::vector<long> steps, std::vector<double> bounds) {
  constexpr const char* kFn = "risk_claim::at_steps";
  if (steps.size() != bounds.size())
    throw_domain_error(
        kFn, "bounds", format_value(static_cast<long long>(bounds.size())) + " values",
        "as many as steps (" + format_value(static_cast<long long>(steps.size())) + ")");
  if (steps.empty()) throw_domain_error(kFn, "steps", "none", "at least one step");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string at = "point " + std::to_string(i + 1);
    if (steps[i] < 0)
      throw_domain_error(kFn, "step at " + at, format_value(static_cast<long long>(steps[i])),
                         ">= 0");
    if (i > 0 && steps[i] <= steps[i - 1])
      throw_domain_error(kFn, "step at " + at, format_value(static_cast<long long>(steps[i])),
                         "above the previous point's: steps increasing");
    if (!std::isfinite(bounds[i])) throw_domain_error(kFn, "bound at " + at, bounds[i], "finite");
  }
  risk_claim c;
  c.steps_ = std::move(steps);
  c.bounds_ = std::move(bounds);
  return c;
}

risk_audit audit_risk_claim(const risk_claim& claim,
                            std::span<const risk_estimate> estimates,
                            double confidence) {
  constexpr const char* kFn = "audit_risk_claim";
  if (!(confidence > 0 && confidence < 1))
    throw_domain_error(kFn, "confidence", confidence, "in (0, 1)");
  const std::size_t k = claim.steps().size();
  if (estimates.size() != k)
    throw_domain_error(
        kFn, "estimates", format_value(static_cast<long long>(estimates.size())),
        "one per step of the claim (" + format_value(static_cast<long long>(k)) + ")");
  risk_audit out;
  out.confidence = confidence;
  // Simultaneous over the k steps: each interval at 1 − (1 − confidence)/k.
  const double each = 1 - (1 - confidence) / static_cast<double>(k);
  std::vector<double> half;
  std::size_t worst = k, first_straddle = k;
  double worst_excess = -std::numeric_limits<double>::infinity();
  bool all_below = true;
  for (std::size_t i = 0; i < k; ++i) {
    const risk_estimate& e = estimates[i];
    if (!(e.count >= 2 && std::isfinite(e.mean) && e.sd >= 0 && std::isfinite(e.sd)))
      throw_domain_error(kFn, "estimate at step " + std::to_string(claim.steps()[i]), e.mean,
                         "a finite mean with sd >= 0 from at least 2 replicates");
    const confidence_interval ci = mean_interval(e.mean, e.sd, e.count, each);
    risk_audit_row r;
    r.step = claim.steps()[i];
    r.bound = claim.bounds()[i];
    r.mean = e.mean;
    r.lower = ci.lower;
    r.upper = ci.upper;
    r.tightness = e.mean != 0 ? r.bound / e.mean : NAN;
    out.rows.push_back(r);
    half.push_back((ci.upper - ci.lower) / 2);
    if (ci.lower - r.bound > worst_excess) {
      worst_excess = ci.lower - r.bound;
      worst = i;
    }
    if (ci.upper > r.bound) {
      all_below = false;
      if (first_straddle == k) first_straddle = i;
    }
  }
  if (worst_excess > 0) {
    out.verdict = verdict::violated;
    out.reason = "at step " + std::to_string(out.rows[worst].step) +
                 " the expected risk is at least " + format_value(out.rows[worst].lower) +
                 " (simultaneous interval), above the claimed " +
                 format_value(out.rows[worst].bound);
  } else if (all_below) {
    out.verdict = verdict::holds;
    out.reason = "every step's interval lies at or below the claimed bound";
  } else {
    out.verdict = verdict::inconclusive;
    out.reason = "no interval lies wholly above the claimed bound, but the one at step " +
                 std::to_string(out.rows[first_straddle].step) +
                 " straddles it (as for a tight bound)";
  }
  std::nth_element(half.begin(), half.begin() + static_cast<std::ptrdiff_t>(half.size() / 2),
                   half.end());
  out.resolution = half[half.size() / 2];
  return out;
}

}  // namespace dpkit::sim

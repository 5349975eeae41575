#include "dpkit/divergence/tradeoff.hpp"

#include <algorithm>
#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <limits>
#include <numeric>

#include "dpkit/core/check.hpp"
#include "dpkit/core/grid.hpp"
#include "dpkit/core/roots.hpp"

namespace dpkit::divergence {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
// log of the smallest positive double, the left end of the log α search.
constexpr double kLogAlphaMin = -745.0;
}  // namespace

double tradeoff_function::power(double alpha) const {
  return 1.0 - beta(alpha);
}

double tradeoff_function::inverse(double beta_value) const {
  check_probability("tradeoff_function::inverse", "beta", beta_value);
  // inf{α : f(α) ≤ β} by bisection on the non-increasing f, keeping f(lo) > β ≥ f(hi).
  if (beta(0.0) <= beta_value) return 0.0;
  double lo = 0.0, hi = 1.0;
  if (beta(hi) > beta_value) return 1.0;
  for (int i = 0; i < 200 && hi - lo > 4 * std::numeric_limits<double>::epsilon() * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (beta(mid) > beta_value ? lo : hi) = mid;
  }
  return hi;
}

double tradeoff_function::privacy_profile(double epsilon) const {
  return primal_dual_profile(*this, epsilon);
}

// DRS22 Prop. 5: δ_f(ε) = sup_α {1 − f(α) − e^ε α}. The objective is
// concave in α, so it is unimodal in u = log α as well: a coarse scan locates the peak to
// within one grid cell and Brent's method refines it. Its value is accurate to a few ulp
// of 1 − f(α*) (the maximiser's position only to √ε, which the flat peak forgives).
double primal_dual_profile(const tradeoff_function& f, double epsilon) {
  check_finite("primal_dual_profile", "epsilon", epsilon);
  auto objective = [&](double u) {
    const double value = f.power(std::exp(u)) - std::exp(epsilon + u);
    return std::isnan(value) ? -kInf : value;
  };
  double best = f.power(0.0);  // α = 0 (an atom of the tradeoff curve)
  const std::vector<double> grid = linspace(kLogAlphaMin, 0.0, 257);
  std::size_t arg = 0;
  double grid_best = -kInf;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const double v = objective(grid[i]);
    if (v > grid_best) grid_best = v, arg = i;
  }
  const double lo = grid[arg == 0 ? 0 : arg - 1];
  const double hi = grid[std::min(arg + 1, grid.size() - 1)];
  std::uintmax_t max_iter = 200;
  const auto refined =
      boost::math::tools::brent_find_minima([&](double u) { return -objective(u); }, lo, hi,
                                            std::numeric_limits<double>::digits / 2, max_iter);
  best = std::max({best, grid_best, -refined.second});
  return std::max(best, 0.0);
}

epsilon_result tradeoff_epsilon(const tradeoff_function& f, double delta) {
  check_open_probability("tradeoff_epsilon", "delta", delta);
  epsilon_result r;
  r.kind = bound_kind::upper_bound;
  r.tight = true;
  if (f.privacy_profile(0.0) <= delta) {
    r.value = r.lower = r.upper = 0.0;
    r.evaluations = 1;
    return r;
  }
  auto h = [&](double epsilon) { return f.privacy_profile(epsilon) - delta; };
  root_options options;
  options.relative_tolerance = 1e-12;
  options.absolute_tolerance = 1e-15;
  const root_result root = find_root_expanding_upward(h, 0.0, 1.0, options);
  r.termination = root.termination;
  r.message = root.message;
  r.evaluations = root.evaluations;
  r.lower = root.lower;
  r.upper = root.upper;
  r.value = root.f_upper <= 0 ? root.upper : root.lower;
  return r;
}

// ---------------------------------------------------------------------------------------
// piecewise_linear_tradeoff

piecewise_linear_tradeoff::piecewise_linear_tradeoff(std::vector<double> alpha,
                                                     std::vector<double> beta)
    : alpha_(std::move(alpha)), beta_(std::move(beta)) {}

piecewise_linear_tradeoff piecewise_linear_tradeoff::lower_convex_envelope(
    std::span<const double> alpha, std::span<const double> beta) {
  constexpr const char* kFn = "piecewise_linear_tradeoff::lower_convex_envelope";
  check_at_least(kFn, "alpha.size()", static_cast<long long>(alpha.size()), 2);
  if (beta.size() != alpha.size())
    throw_domain_error(
        kFn, "beta.size()", format_value(static_cast<long long>(beta.size())),
        "equal to alpha.size() = " + format_value(static_cast<long long>(alpha.size())));
  for (std::size_t i = 0; i < alpha.size(); ++i) {
    check_probability(kFn, "alpha[i]", alpha[i]);
    check_probability(kFn, "beta[i]", beta[i]);
  }
  std::vector<std::size_t> order(alpha.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
    return alpha[i] < alpha[j] || (alpha[i] == alpha[j] && beta[i] < beta[j]);
  });
  if (alpha[order.front()] != 0.0)
    throw_domain_error(kFn, "min(alpha)", alpha[order.front()], "0 (the curve must cover [0, 1])");
  if (alpha[order.back()] != 1.0)
    throw_domain_error(kFn, "max(alpha)", alpha[order.back()], "1 (the curve must cover [0, 1])");
  // Andrew's monotone chain, lower hull: drop b while (a, b, c) is not a strict left turn.
  std::vector<double> hx, hy;
  for (std::size_t k : order) {
    const double x = alpha[k], y = beta[k];
    if (!hx.empty() && hx.back() == x) continue;  // equal α: the smaller β came first
    while (hx.size() >= 2) {
      const std::size_t n = hx.size();
      const double cross =
          (hx[n - 1] - hx[n - 2]) * (y - hy[n - 2]) - (hy[n - 1] - hy[n - 2]) * (x - hx[n - 2]);
      if (cross > 0) break;
      hx.pop_back();
      hy.pop_back();
    }
    hx.push_back(x);
    hy.push_back(y);
  }
  for (std::size_t i = 1; i < hx.size(); ++i) {
    if (hy[i] > hy[i - 1])
      throw_domain_error(
          kFn,
          "the envelope's slope on [" + format_value(hx[i - 1]) + ", " + format_value(hx[i]) + "]",
          (hy[i] - hy[i - 1]) / (hx[i] - hx[i - 1]),
          "<= 0 (a tradeoff function is non-increasing)");
  }
  return piecewise_linear_tradeoff(std::move(hx), std::move(hy));
}

piecewise_linear_tradeoff piecewise_linear_tradeoff::from_epsilon_delta(double epsilon,
                                                                        double delta) {
  check_nonnegative("piecewise_linear_tradeoff::from_epsilon_delta", "epsilon", epsilon);
  check_probability("piecewise_linear_tradeoff::from_epsilon_delta", "delta", delta);
  // DRS22 eq. (5): vertices (0, 1 − δ), the symmetric kink at α = β = (1 − δ)/(1 + e^ε),
  // (1 − δ, 0) and (1, 0).
  const double kink = (1 - delta) / (1 + std::exp(epsilon));
  const double a[] = {0.0, kink, 1 - delta, 1.0};
  const double b[] = {1 - delta, kink, 0.0, 0.0};
  return lower_convex_envelope(a, b);
}

double piecewise_linear_tradeoff::beta(double alpha) const {
  check_probability("piecewise_linear_tradeoff::beta", "alpha", alpha);
  const auto it = std::upper_bound(alpha_.begin(), alpha_.end(), alpha);
  if (it == alpha_.end()) return beta_.back();
  const std::size_t j = static_cast<std::size_t>(it - alpha_.begin());  // alpha_[j] > α, j ≥ 1
  const double w = (alpha - alpha_[j - 1]) / (alpha_[j] - alpha_[j - 1]);
  return beta_[j - 1] + w * (beta_[j] - beta_[j - 1]);
}

double piecewise_linear_tradeoff::inverse(double beta_value) const {
  check_probability("piecewise_linear_tradeoff::inverse", "beta", beta_value);
  if (beta_.front() <= beta_value) return 0.0;
  // First vertex with β_j ≤ β; on [α_{j−1}, α_j] the curve strictly decreases through β.
  const auto it =
      std::find_if(beta_.begin(), beta_.end(), [&](double b) { return b <= beta_value; });
  if (it == beta_.end()) return 1.0;
  const std::size_t j = static_cast<std::size_t>(it - beta_.begin());
  const double w = (beta_[j - 1] - beta_value) / (beta_[j - 1] - beta_[j]);
  return alpha_[j - 1] + w * (alpha_[j] - alpha_[j - 1]);
}

double piecewise_linear_tradeoff::privacy_profile(double epsilon) const {
  check_finite("piecewise_linear_tradeoff::privacy_profile", "epsilon", epsilon);
  const double slope = std::exp(epsilon);
  double best = 0.0;
  for (std::size_t i = 0; i < alpha_.size(); ++i)
    best = std::max(best, (1.0 - beta_[i]) - slope * alpha_[i]);
  return best;
}

std::string piecewise_linear_tradeoff::describe() const {
  return "piecewise-linear tradeoff with " + std::to_string(alpha_.size()) + " vertices";
}

}  // namespace dpkit::divergence

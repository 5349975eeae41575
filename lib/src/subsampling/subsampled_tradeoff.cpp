#include "dpkit/subsampling/subsampled_tradeoff.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "dpkit/core/check.hpp"
#include "dpkit/core/grid.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/core/roots.hpp"
#include "dpkit/divergence/gaussian_tradeoff.hpp"
#include "dpkit/divergence/gdp.hpp"

namespace dpkit::subsampling {

gaussian_mixture_tradeoff::gaussian_mixture_tradeoff(double mu, double p) : mu_(mu), p_(p) {
  check_nonnegative("gaussian_mixture_tradeoff", "mu", mu);
  check_probability("gaussian_mixture_tradeoff", "p", p);
}

double gaussian_mixture_tradeoff::beta(double alpha) const {
  check_probability("gaussian_mixture_tradeoff::beta", "alpha", alpha);
  return p_ * divergence::gaussian_tradeoff(mu_).beta(alpha) + (1 - p_) * (1 - alpha);
}

double gaussian_mixture_tradeoff::power(double alpha) const {
  check_probability("gaussian_mixture_tradeoff::power", "alpha", alpha);
  return p_ * divergence::gaussian_tradeoff(mu_).power(alpha) + (1 - p_) * alpha;
}

double gaussian_mixture_tradeoff::inverse(double beta_value) const {
  check_probability("gaussian_mixture_tradeoff::inverse", "beta", beta_value);
  if (beta_value >= 1) return 0.0;
  if (beta_value <= 0) return 1.0;
  // (1 − p)Φ(z) + pΦ(z + μ) = 1 − β, increasing in z; solved on the survival side,
  // (1 − p)Φ(−z) + pΦ(−z − μ) = β, so that β near 0 keeps its digits.
  auto g = [&](double z) {
    return (1 - p_) * normal_ccdf(z) + p_ * normal_ccdf(z + mu_) - beta_value;
  };
  double lo = -1, hi = 1;
  while (g(lo) < 0) lo = 2 * lo - 1;
  while (g(hi) > 0) hi = 2 * hi + 1;
  const root_result r = find_root(g, lo, hi);
  return normal_cdf(r.root);
}

std::string gaussian_mixture_tradeoff::describe() const {
  return "G(" + format_value(mu_) + ")_" + format_value(p_);
}

cp_gaussian_tradeoff::cp_gaussian_tradeoff(double mu, double p)
    : mu_(mu),
      p_(p),
      alpha_star_(normal_cdf(-0.5 * mu)),
      beta_star_(p * normal_cdf(-0.5 * mu) + (1 - p) * normal_cdf(0.5 * mu)),
      middle_((1 + p) * normal_cdf(-0.5 * mu) + (1 - p) * normal_cdf(0.5 * mu)),
      one_sided_(mu, p) {
  check_nonnegative("cp_gaussian_tradeoff", "mu", mu);
  check_probability("cp_gaussian_tradeoff", "p", p);
}

// BSA24 §C.4.1 facts (a)–(c), Fig. 4.
double cp_gaussian_tradeoff::beta(double alpha) const {
  check_probability("cp_gaussian_tradeoff::beta", "alpha", alpha);
  if (alpha <= alpha_star_) return one_sided_.beta(alpha);
  if (alpha <= beta_star_) return middle_ - alpha;
  return one_sided_.inverse(alpha);
}

double cp_gaussian_tradeoff::power(double alpha) const {
  check_probability("cp_gaussian_tradeoff::power", "alpha", alpha);
  if (alpha <= alpha_star_) return one_sided_.power(alpha);
  return 1 - beta(alpha);  // ≥ 1 − β* > 0: no cancellation past the first piece
}

double cp_gaussian_tradeoff::inverse(double beta_value) const {
  check_probability("cp_gaussian_tradeoff::inverse", "beta", beta_value);
  return beta(beta_value);
}

double cp_gaussian_tradeoff::privacy_profile(double epsilon) const {
  check_finite("cp_gaussian_tradeoff::privacy_profile", "epsilon", epsilon);
  if (epsilon < 0) return 1 - std::exp(epsilon) * (1 - privacy_profile(-epsilon));
  if (p_ == 0) return 0.0;
  // log(1 + (e^ε − 1)/p), overflow-free for large ε.
  const double amplified = epsilon > 1
                               ? epsilon + std::log1p((p_ - 1) * std::exp(-epsilon)) - std::log(p_)
                               : std::log1p(std::expm1(epsilon) / p_);
  return p_ * divergence::gdp_delta(mu_, amplified);
}

std::string cp_gaussian_tradeoff::describe() const {
  return "C_" + format_value(p_) + "(G(" + format_value(mu_) + "))";
}

divergence::piecewise_linear_tradeoff subsample(const divergence::tradeoff_function& f,
                                                double p,
                                                std::size_t points) {
  check_probability("subsample", "p", p);
  check_at_least("subsample", "points", static_cast<long long>(points), 3);
  // f_p and its left-continuous inverse f_p⁻¹(α) = inf{u : f_p(u) ≤ α}, by bisection on the
  // non-increasing f_p (BSA24 Def 4.7, evaluated on a grid).
  auto f_p = [&](double a) { return p * f.beta(a) + (1 - p) * (1 - a); };
  auto f_p_inverse = [&](double b) {
    if (f_p(0.0) <= b) return 0.0;
    double lo = 0, hi = 1;
    for (int i = 0; i < 100; ++i) {
      const double mid = 0.5 * (lo + hi);
      (f_p(mid) > b ? lo : hi) = mid;
    }
    return hi;
  };
  const std::vector<double> alpha = linspace(0.0, 1.0, points);
  std::vector<double> h(points);
  for (std::size_t i = 0; i < points; ++i)
    h[i] = std::clamp(std::min(f_p(alpha[i]), f_p_inverse(alpha[i])), 0.0, 1.0);
  return divergence::piecewise_linear_tradeoff::lower_convex_envelope(alpha, h);
}

}  // namespace dpkit::subsampling

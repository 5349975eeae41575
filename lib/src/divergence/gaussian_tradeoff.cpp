#include "dpkit/divergence/gaussian_tradeoff.hpp"

#include <cmath>

#include "dpkit/core/check.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/divergence/gdp.hpp"

namespace dpkit::divergence {

gaussian_tradeoff::gaussian_tradeoff(double mu) : mu_(mu) {
  check_nonnegative("gaussian_tradeoff", "mu", mu);
}

// BSA24 Def 2.4: G(μ)(α) = Φ(Φ⁻¹(1 − α) − μ). Φ⁻¹(1 − α) is the complement quantile of
// α, so α = 1e-300 does not round to Φ⁻¹(1) = ∞.
double gaussian_tradeoff::beta(double alpha) const {
  check_probability("gaussian_tradeoff::beta", "alpha", alpha);
  return normal_cdf(normal_quantile_complement(alpha) - mu_);
}

double gaussian_tradeoff::log_beta(double alpha) const {
  check_probability("gaussian_tradeoff::log_beta", "alpha", alpha);
  return normal_lcdf(normal_quantile_complement(alpha) - mu_);
}

double gaussian_tradeoff::power(double alpha) const {
  check_probability("gaussian_tradeoff::power", "alpha", alpha);
  return normal_ccdf(normal_quantile_complement(alpha) - mu_);
}

double gaussian_tradeoff::inverse(double beta) const {
  check_probability("gaussian_tradeoff::inverse", "beta", beta);
  return this->beta(beta);  // G(μ) is symmetric (DRS22)
}

// d/dα Φ(z − μ) with z = Φ⁻¹(1 − α): −φ(z − μ)/φ(z) = −exp(μz − μ²/2).
double gaussian_tradeoff::slope(double alpha) const {
  check_open_probability("gaussian_tradeoff::slope", "alpha", alpha);
  const double z = normal_quantile_complement(alpha);
  return -std::exp(mu_ * z - 0.5 * mu_ * mu_);
}

double gaussian_tradeoff::privacy_profile(double epsilon) const {
  return gdp_delta(mu_, epsilon);
}

std::string gaussian_tradeoff::describe() const {
  return "G(" + format_value(mu_) + ")";
}

gaussian_tradeoff compose(const gaussian_tradeoff& f, const gaussian_tradeoff& g) {
  return gaussian_tradeoff(std::hypot(f.mu(), g.mu()));
}

gaussian_tradeoff compose_gaussian(std::span<const double> mus) {
  // Scaled sum of squares (as in BLAS dnrm2) so that huge μ do not overflow.
  double scale = 0, sum = 1;
  for (double m : mus) {
    check_nonnegative("compose_gaussian", "mu[i]", m);
    if (m == 0) continue;
    if (scale < m) {
      sum = 1 + sum * (scale / m) * (scale / m);
      scale = m;
    } else {
      sum += (m / scale) * (m / scale);
    }
  }
  return gaussian_tradeoff(scale * std::sqrt(sum));
}

}  // namespace dpkit::divergence

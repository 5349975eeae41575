#include "dpkit/divergence/gdp.hpp"

#include <boost/math/quadrature/exp_sinh.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "dpkit/core/check.hpp"
#include "dpkit/core/log_space.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/core/roots.hpp"
#include "dpkit/core/tolerance.hpp"

namespace dpkit::divergence {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Supported range. Near its median ε ≈ μ²/2, δ(ε) varies on the scale Δε ≈ μ while one ulp
// of ε is ≈ 1.1e-16·μ²: at μ = 1e6 an ulp of ε moves a = μ/2 − ε/μ by 1e-10, at μ = 1e16 by
// 1 — no double-precision algorithm can evaluate or invert δ there (measured: garbage at
// μ = 3e49). μ ≤ 1e6 (ε up to ~5e11) is far beyond any meaningful privacy budget.
constexpr double kMaxMu = 1e6;
constexpr double kMaxMuEpsilon = 1e11;  // gdp_mu: the root μ ≈ √(2ε) stays below kMaxMu

void check_mu(const char* function, double mu) {
  check_nonnegative(function, "mu", mu);
  if (mu > kMaxMu)
    throw_domain_error(function, "mu", mu,
                       "<= 1e6 (beyond, epsilon > 5e11 and delta(epsilon) is ill-conditioned in "
                       "double precision)");
}

// Relative error of log δ below which the closed form is used (see gdp_log_delta).
constexpr double kClosedFormRelativeError = 1e-12;

// log δ(ε) by the cancellation-free integral representation (spec 002 §2.9: the privacy
// loss of G(μ) is Y ~ N(μ²/2, μ²) and δ(ε) = E[(1 − e^{ε−Y})₊]). Substituting
// Y = ε + μu and x₁ = ε/μ − μ/2,
//
//     δ(ε) = φ(x₁) ∫₀^∞ (1 − e^{−μu}) e^{−x₁u − u²/2} du,
//
// whose integrand is non-negative, so no digits cancel. Used for ε ≥ 0 only when the closed
// form Φ(a) − e^εΦ(b) would lose more than ~4 digits (μ²/ε ≲ 1e-9); exp-sinh quadrature
// converges double-exponentially here (smooth integrand, e^{−x₁u} decay).
double log_delta_by_integral(double mu, double epsilon) {
  const double x1 = epsilon / mu - 0.5 * mu;
  // Scale so that the integrand decays on an O(1) scale in t = u·s.
  const double s = 1.0 + std::max(x1, 0.0);
  auto integrand = [=](double t) {
    const double u = t / s;
    return -std::expm1(-mu * u) * std::exp(-x1 * u - 0.5 * u * u);
  };
  boost::math::quadrature::exp_sinh<double> integrator;
  double error = 0, l1 = 0;
  const double integral = integrator.integrate(integrand, 1e-15, &error, &l1) / s;
  return normal_lpdf(x1) + std::log(integral);
}

}  // namespace

double gdp_log_delta(double mu, double epsilon) {
  check_mu("gdp_log_delta", mu);
  check_finite("gdp_log_delta", "epsilon", epsilon);
  if (mu == 0) return epsilon >= 0 ? -kInf : log1mexp(epsilon);
  // seed 002 Lemma A.3; Balle & Wang (2018) Thm 8.
  const double a = -epsilon / mu + 0.5 * mu;
  const double b = -epsilon / mu - 0.5 * mu;
  if (std::isinf(a) || std::isinf(b)) {
    // ε/μ overflowed: for ε > 0, δ ≈ exp(−ε²/(2μ²)) is far below the double range.
    return epsilon > 0 ? -kInf : log1mexp(epsilon);
  }
  const double log_phi_a = normal_lcdf(a);
  const double log_phi_b = normal_lcdf(b);
  // δ = Φ(a)·(1 − e^d), d = ε + log Φ(b) − log Φ(a) < 0. The absolute error of d is a few
  // ulp of the largest term; it changes δ by the relative amount e^d·err/(1 − e^d) =
  // err/(e^{−d} − 1), which is large only when the two terms nearly cancel (d → 0⁻).
  const double d = epsilon + log_phi_b - log_phi_a;
  if (d == -kInf) return log_phi_a;  // e^ε Φ(b) underflowed against Φ(a): nothing cancels
  const double d_error =
      4 * tol::kMachineEps * (std::abs(epsilon) + std::abs(log_phi_a) + std::abs(log_phi_b) + 1);
  if (d < 0 && d_error < kClosedFormRelativeError * std::expm1(-d)) return log_phi_a + log1mexp(d);
  // Cancellation needs e^ε Φ(b) ≈ Φ(a); for ε ≥ 0 that happens only when x₁ = −a > −1 (for
  // x₁ ≤ −1, δ ≥ (1 − e^{−1})·P(Y > ε + 1) is of order one). There the integrand of
  // log_delta_by_integral is bounded by e^{1/2}.
  const double x1 = -a;
  if (epsilon >= 0 && x1 > -1) return log_delta_by_integral(mu, epsilon);
  if (d < 0) return log_phi_a + log1mexp(d);  // the best available; see docs/divergence.md
  // d ≥ 0 means a computed δ ≤ 0, impossible here: for ε < 0, δ ≥ 1 − e^ε; for ε ≥ 0 and
  // x₁ ≤ −1, δ is of order one. Reaching this line is a bug, not bad input.
  throw std::logic_error("gdp_log_delta: inconsistent closed form at mu = " + format_value(mu) +
                         ", epsilon = " + format_value(epsilon));
}

double gdp_delta(double mu, double epsilon) {
  check_mu("gdp_delta", mu);
  check_finite("gdp_delta", "epsilon", epsilon);
  return std::exp(gdp_log_delta(mu, epsilon));
}

epsilon_result gdp_epsilon(double mu, double delta) {
  check_mu("gdp_epsilon", mu);
  check_open_probability("gdp_epsilon", "delta", delta);
  epsilon_result r;
  r.kind = bound_kind::upper_bound;
  r.tight = true;
  const double log_target = std::log(delta);
  // δ(ε) is decreasing; if already δ(0) ≤ δ the answer is ε = 0.
  if (mu == 0 || gdp_log_delta(mu, 0.0) <= log_target) {
    r.epsilon = r.epsilon_lower = r.epsilon_upper = 0.0;
    r.evaluations = 1;
    return r;
  }
  auto h = [&](double epsilon) { return gdp_log_delta(mu, epsilon) - log_target; };
  // Bracket from spec 002 §10: δ(ε) ≤ Φ(−ε/μ + μ/2) ≤ δ at ε = μ²/2 + μ√(2 log(1/δ)).
  const double guess = 0.5 * mu * mu + mu * std::sqrt(2 * -log_target) + 1.0;
  const root_result root = find_root_expanding_upward(h, 0.0, guess);
  r.termination = root.termination;
  r.message = root.message;
  r.evaluations = root.evaluations;
  r.epsilon_lower = root.lower;
  r.epsilon_upper = root.upper;
  // Certified side: the end where δ(ε) ≤ δ, i.e. h ≤ 0 (the upper end, as δ decreases).
  r.epsilon = root.f_upper <= 0 ? root.upper : root.lower;
  return r;
}

calibration_result gdp_mu(double epsilon, double delta) {
  check_nonnegative("gdp_mu", "epsilon", epsilon);
  if (epsilon > kMaxMuEpsilon)
    throw_domain_error("gdp_mu", "epsilon", epsilon, "<= 1e11 (the largest mu supported is 1e6)");
  check_open_probability("gdp_mu", "delta", delta);
  const double log_target = std::log(delta);
  auto h = [&](double mu) { return gdp_log_delta(mu, epsilon) - log_target; };  // increasing
  // Start from δ ≈ Φ(μ/2 − ε/μ): μ² − 2zμ − 2ε = 0 with z = Φ⁻¹(δ).
  const double z = normal_quantile(delta);
  double guess = z + std::sqrt(z * z + 2 * epsilon);
  if (!(guess > 0)) guess = 1.0;
  double lower = guess, upper = guess;
  int evaluations = 0;
  lower = std::min(lower, kMaxMu);
  upper = std::min(upper, kMaxMu);
  while (h(lower) > 0 && lower > 1e-300) lower *= 0.5, ++evaluations;
  while (h(upper) < 0 && upper < kMaxMu) upper = std::min(2.0 * upper, kMaxMu), ++evaluations;
  const root_result root = find_root(h, lower, upper);
  calibration_result r;
  r.termination = root.termination;
  r.message = root.message;
  r.evaluations = root.evaluations + evaluations;
  r.lower = root.lower;
  r.upper = root.upper;
  // Safe side: the μ at which δ_μ(ε) ≤ δ (h ≤ 0), the lower end.
  r.value = root.f_lower <= 0 ? root.lower : root.upper;
  return r;
}

calibration_result analytic_gaussian_sigma(double epsilon, double delta, double sensitivity) {
  check_nonnegative("analytic_gaussian_sigma", "epsilon", epsilon);
  check_open_probability("analytic_gaussian_sigma", "delta", delta);
  check_positive("analytic_gaussian_sigma", "sensitivity", sensitivity);
  const calibration_result mu = gdp_mu(epsilon, delta);
  calibration_result r = mu;
  // σ = Δ/μ; the division is rounded up one ulp so that σ stays on the safe side.
  r.value = std::nextafter(sensitivity / mu.value, kInf);
  r.lower = sensitivity / mu.upper;
  r.upper = std::max(r.value, sensitivity / mu.lower);
  return r;
}

}  // namespace dpkit::divergence

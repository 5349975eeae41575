#include "dpkit/divergence/gdp.hpp"

#include <boost/math/constants/constants.hpp>
#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/special_functions/erf.hpp>
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
constexpr double kMaxMu = kLargestGdpMu;
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

// log δ(ε) by the cancellation-free integral representation (BSA24 §D.5: the privacy
// loss of G(μ) is Y ~ N(μ²/2, μ²) and δ(ε) = E[(1 − e^{ε−Y})₊]). Substituting
// Y = ε + μu and x₁ = ε/μ − μ/2,
//
//     δ(ε) = φ(x₁) ∫₀^∞ (1 − e^{−μu}) e^{−x₁u − u²/2} du,
//
// whose integrand is non-negative, so no digits cancel. Used for ε ≥ 0 only when the closed
// form Φ(a) − e^εΦ(b) would lose more than ~4 digits (μ²/ε ≲ 1e-9); exp-sinh quadrature
// converges double-exponentially here (smooth integrand, e^{−x₁u} decay).
struct delta_integral {
  double x1 = NAN;        ///< ε/μ − μ/2
  double integral = NAN;  ///< ∫₀^∞ (1 − e^{−μu}) e^{−x₁u − u²/2} du
  double error = NAN;     ///< exp-sinh's own error estimate of `integral`
};
delta_integral integrate_delta(double mu, double epsilon) {
  delta_integral out;
  out.x1 = epsilon / mu - 0.5 * mu;
  const double x1 = out.x1;
  // Scale so that the integrand decays on an O(1) scale in t = u·s.
  const double s = 1.0 + std::max(x1, 0.0);
  auto integrand = [=](double t) {
    const double u = t / s;
    return -std::expm1(-mu * u) * std::exp(-x1 * u - 0.5 * u * u);
  };
  // One integrator per thread, as subsampled_rdp.cpp does: constructing one computes its
  // abscissas and weights (a few thousand exp/sinh evaluations and allocations), which dominated
  // callers that evaluate δ_μ(ε) many times (the without-replacement RDP's profile integral: 22 s
  // for `dpkit epsilon --sampling without-replacement -p 1.5e-130 --accountant rdp` before).
  static thread_local boost::math::quadrature::exp_sinh<double> integrator;
  double error = 0, l1 = 0;
  out.integral = integrator.integrate(integrand, 1e-15, &error, &l1) / s;
  out.error = error / s;
  return out;
}

// M₁(t) = ∫₀^∞ u e^{−tu − u²/2} du = 1 − t·R(t), R(t) = ∫₀^∞ e^{−tu − u²/2} du = e^{t²/2}√(2π)Φ̄(t)
// the Mills ratio, for t > −1. Up to t = 2 from R directly (1 − tR loses at most ~3 bits
// there: tR ≤ 0.85, and none for t ≤ 0); beyond, where 1 − tR cancels (tR → 1), from Laplace's
// continued fraction R = 1/(t + T₁), T_k = k/(t + T_{k+1}): M₁ = T₁/(t + T₁), a ratio of positive
// terms. Evaluated from depth N = 20 + 600/t² down (against 50-digit values: relative error ≤ 1e-16
// from N = 160 at t = 2, 80 at t = 3, 40 at t = 5, 20 from t = 10).
double mills_first_moment(double t) {
  if (t <= 2) {
    const double r = boost::math::constants::root_half_pi<double>() * std::exp(0.5 * t * t) *
                     boost::math::erfc(t * boost::math::constants::one_div_root_two<double>());
    return 1 - t * r;
  }
  const int depth = static_cast<int>(std::ceil(20 + 600 / (t * t)));
  double tail = 0;
  for (int k = depth; k >= 1; --k) tail = k / (t + tail);
  return tail / (t + tail);
}

// The same integral as integrate_delta, ∫₀^∞ (1 − e^{−μu}) e^{−x₁u − u²/2} du, as R(x₁) − R(x₁ + μ)
// = ∫_{x₁}^{x₁+μ} M₁(t) dt (R′ = −M₁): a smooth positive integrand over an interval short
// against the scale on which M₁ varies (max(1, t): M₁ ≈ 1/t² for large t) where μ ≤
// max(1, x₁)/2, so 10-point Gauss–Legendre has converged (20 points give the same values). No
// cancellation, and 8.6× faster than the exp-sinh quadrature (a few hundred integrand
// evaluations; BM_gdp_delta_cancelling), which dominated the without-replacement RDP's profile
// integral at large σ.
// Measured against that quadrature over 2·10⁵ seeded points (μ/max(1, x₁) log-uniform in
// [1e-20, 0.5], x₁ + 1 in [1e-3, 1e8]): relative error ≤ 4e-15, from M₁ near t = 2.
// NaN where it does not apply (larger μ; x₁ > 1e100, where M₁ ≈ 1/t² nears the subnormals).
double integral_by_mills(double mu, double x1) {
  if (!(mu <= 0.5 * std::max(1.0, x1)) || !(x1 <= 1e100)) return NAN;
  const double half = 0.5 * mu, mid = x1 + half;
  // An even number of points: Boost lists the positive abscissae a_i, each standing for ±a_i.
  using rule = boost::math::quadrature::gauss<double, 10>;
  double sum = 0;
  for (std::size_t i = 0; i < rule::abscissa().size(); ++i) {
    const double a = rule::abscissa()[i];
    sum += rule::weights()[i] *
           (mills_first_moment(mid - half * a) + mills_first_moment(mid + half * a));
  }
  return sum * half;
}

double log_delta_by_integral(double mu, double epsilon) {
  const double x1 = epsilon / mu - 0.5 * mu;
  const double fast = integral_by_mills(mu, x1);
  if (!std::isnan(fast)) return normal_lpdf(x1) + std::log(fast);
  const delta_integral d = integrate_delta(mu, epsilon);
  return normal_lpdf(d.x1) + std::log(d.integral);
}

}  // namespace

double gdp_log_delta(double mu, double epsilon) {
  check_mu("gdp_log_delta", mu);
  check_finite("gdp_log_delta", "epsilon", epsilon);
  if (mu == 0) return epsilon >= 0 ? -kInf : log1mexp(epsilon);
  // BSA24 Lemma A.3; Balle & Wang (2018) Thm 8.
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

namespace {

// ---------------------------------------------------------------------------------------
// Certified enclosures (docs/divergence.md "What the labels guarantee").
//
// Every floating-point operation below is followed to first order: an absolute error bound
// is carried with each intermediate value and pushed through the derivative of the next
// step, taken at the worst point of the interval the value may lie in. The premises are the
// accuracy of the building blocks:
//   * +, −, ×, ÷ and sqrt are correctly rounded (IEEE 754): relative error ≤ u = 2⁻⁵³;
//   * exp, log, log1p, expm1 (glibc): < 1 ulp, i.e. relative error ≤ 2u = kMachineEps;
//   * normal_lcdf: ≤ 2 ulp measured against 50-digit references over x ∈ [−1e5, 38]
//     (docs/core.md), asymptotically exact beyond; allowed here: 16 ulp (kLcdfUlps), 8×.
// Second-order terms (products of two error terms, each ≲ 1e-12 relative where a bound is
// usable at all) are covered by rounding every allowance up by a factor 2 (kSafety).
constexpr double kU = tol::kMachineEps;  // one ulp, relative (2u)
constexpr double kLcdfUlps = 16;
constexpr double kSafety = 2;

// An upper bound on the slope φ(t)/Φ(t) of log Φ at every t ≥ x. The slope is decreasing (Φ
// is log-concave), ≤ 1.53 on [−1, ∞) (φ(−1)/Φ(−1) = 1.5251) and ≤ −t + 1/(−t) ≤ 1.53 − t
// below (Mills' ratio inequality Φ(t) ≥ φ(t)(−t)/(1 + t²) for t < 0).
double log_cdf_slope_bound(double x) {
  return 1.53 + std::max(0.0, -x);
}

// Error bound of normal_lcdf(x̂) against log Φ(x) when |x̂ − x| ≤ ex.
double lcdf_error(double x_hat, double value, double ex) {
  // 1e-300 absolute: where Φ(x) rounds to 1 (x > 38), log Φ = −Φ(−x) ≥ −1e-300 is lost whole.
  return kLcdfUlps * kU * std::abs(value) + 1e-300 + log_cdf_slope_bound(x_hat - ex) * ex;
}

struct value_with_error {
  double value = NAN;
  double error = kInf;  ///< |value − exact| ≤ error; +∞: no certified value
};

// log δ(ε) by the closed form with a certified error bound (error = +∞ where the two terms
// cancel beyond what the bound can vouch for).
value_with_error closed_form_with_error(double mu, double epsilon) {
  const double t = epsilon / mu;
  const double a = -t + 0.5 * mu, b = -t - 0.5 * mu;
  // a = fl(fl(−ε/μ) + μ/2): two roundings, each ≤ u of its result.
  const double ea = kU * (std::abs(t) + std::abs(a)), eb = kU * (std::abs(t) + std::abs(b));
  const double la = normal_lcdf(a), lb = normal_lcdf(b);
  const double err_la = lcdf_error(a, la, ea), err_lb = lcdf_error(b, lb, eb);
  const double d = epsilon + lb - la;
  const double err_d = err_la + err_lb + kU * (std::abs(epsilon) + std::abs(la) + std::abs(lb));
  value_with_error r;
  if (!(d + err_d < 0)) return r;  // 1 − e^d may be 0 within the error: no bound
  // g = log(1 − e^d), |g'(d)| = 1/(e^{−d} − 1), largest at the end nearest 0.
  const double g = log1mexp(d);
  const double err_g = err_d / std::expm1(-(d + err_d)) + 2 * kU * (std::abs(g) + 1);
  r.value = la + g;
  r.error = kSafety * (err_la + err_g + kU * (std::abs(la) + std::abs(g)));
  return r;
}

// log δ(ε) by the cancellation-free integral, with an allowance for the quadrature that is
// measured, not proven: 64× Boost's own error estimate (never below 64 ulp), plus the
// propagated error of x₁. Only used where the closed form cannot certify anything: ε ≥ 0,
// x₁ > −1 and the two terms agree to all but a few digits (μ²/ε ≲ 1e-14).
value_with_error integral_with_error(double mu, double epsilon) {
  const delta_integral d = integrate_delta(mu, epsilon);
  const double x1 = d.x1;
  const double ex1 = kU * (std::abs(epsilon / mu) + std::abs(x1));
  value_with_error r;
  if (!(d.integral > 0)) return r;
  const double log_integral = std::log(d.integral);
  // ∂ log I/∂x₁ = −E[u] under the normalised integrand, ≤ 4 in magnitude for x₁ > −1.
  const double rel = std::max(64 * d.error / d.integral, 64 * kU) + 4 * ex1;
  r.value = normal_lpdf(x1) + log_integral;
  r.error = kSafety * (std::abs(x1) * ex1 + kU * (0.5 * x1 * x1 + 1) + rel +
                       kU * (std::abs(r.value) + std::abs(log_integral)));
  return r;
}

// Certified [lower, upper] of log δ_μ(ε) at one exact μ.
log_delta_bounds log_delta_bounds_at(double mu, double epsilon) {
  constexpr double kLowest = std::numeric_limits<double>::lowest();
  if (mu == 0) {
    if (epsilon >= 0) return {-kInf, -kInf};  // δ = 0 exactly
    const double v = log1mexp(epsilon);       // log(1 − e^ε), two elementary functions
    const double e = kSafety * 2 * kU * (std::abs(v) + 1);
    return {v - e, std::min(0.0, v + e)};
  }
  const double t = epsilon / mu;
  if (std::isinf(t)) {
    // ε/μ overflowed: for ε > 0, log δ ≤ −ε²/(2μ²) < −1e616, far below every double.
    if (epsilon > 0) return {-kInf, kLowest};
    return {-std::numeric_limits<double>::min(), 0.0};  // ε < 0: δ = 1 − (a tiny amount)
  }
  value_with_error v = closed_form_with_error(mu, epsilon);
  if (!std::isfinite(v.error) && epsilon >= 0 && epsilon / mu - 0.5 * mu > -1)
    v = integral_with_error(mu, epsilon);
  if (std::isfinite(v.error) && std::isfinite(v.value))
    return {v.value - v.error, std::min(0.0, v.value + v.error)};
  // Unreachable in the supported range (see gdp_log_delta); still a valid, loose enclosure:
  // δ ≤ Φ(a), and δ ≥ 1 − e^ε.
  const double a = -t + 0.5 * mu;
  const double la = normal_lcdf(a);
  // log Φ(a) below the doubles (a ≲ −1.9e154): δ is below every positive double, as in the
  // overflow branch above (the sum with its error was NaN, and min(0, NaN) read as δ ≤ 1).
  if (!(la > -kInf)) return {-kInf, kLowest};
  const double upper =
      std::min(0.0, la + kSafety * lcdf_error(a, la, kU * (std::abs(t) + std::abs(a))));
  double lower = -kInf;
  if (epsilon < 0) lower = log1mexp(epsilon) - kSafety * 2 * kU * (std::abs(log1mexp(epsilon)) + 1);
  return {lower, upper};
}

void check_mu_interval(const char* function, double mu_lo, double mu_hi) {
  check_mu(function, mu_lo);
  // μ_hi may exceed the limit by the rounding allowance of a μ computed from a run.
  if (!(mu_hi <= kMaxMu * (1 + 1e-12))) check_mu(function, mu_hi);
  if (mu_lo > mu_hi) throw_domain_error(function, "mu_hi - mu_lo", mu_hi - mu_lo, ">= 0");
}

}  // namespace

log_delta_bounds gdp_log_delta_bounds(double mu_lo, double mu_hi, double epsilon) {
  constexpr const char* kFn = "gdp_log_delta_bounds";
  check_mu_interval(kFn, mu_lo, mu_hi);
  check_finite(kFn, "epsilon", epsilon);
  // δ_μ(ε) is non-decreasing in μ (G(μ₂) can simulate G(μ₁) for μ₁ ≤ μ₂): the lower bound at
  // μ_lo and the upper bound at μ_hi enclose every μ between.
  return {log_delta_bounds_at(mu_lo, epsilon).lower, log_delta_bounds_at(mu_hi, epsilon).upper};
}

delta_bounds gdp_delta_bounds(double mu_lo, double mu_hi, double epsilon) {
  const log_delta_bounds l = gdp_log_delta_bounds(mu_lo, mu_hi, epsilon);
  delta_bounds d;
  d.log_lower = l.lower;
  d.log_upper = l.upper;
  // exp rounds by < 1 ulp: one ulp outward on each side (exp_upper: never 0 for a finite log,
  // so a δ below the doubles reads as the smallest positive one, not as 0).
  d.lower = l.lower == -kInf ? 0.0 : std::min(std::exp(l.lower) * (1 - kU), exp_lower(l.lower));
  d.upper = std::min(exp_upper(l.upper), 1.0);
  return d;
}

epsilon_result gdp_epsilon_bounds(double mu_lo, double mu_hi, double delta) {
  constexpr const char* kFn = "gdp_epsilon";
  check_mu_interval(kFn, mu_lo, mu_hi);
  check_open_probability(kFn, "delta", delta);
  epsilon_result r;
  r.kind = bound_kind::upper_bound;
  r.tight = true;
  // log δ rounds by < 1 ulp: compare with the target moved one ulp against each bound.
  const double log_target = std::log(delta);
  const double target_lo = log_target - kU * std::abs(log_target);
  const double target_hi = log_target + kU * std::abs(log_target);
  // Upper end: the smallest ε found where even the upper bound of log δ at μ_hi is ≤ the
  // (lowered) target, so δ_μ(ε) ≤ δ for the exact μ and δ. Lower end: the largest ε found
  // where the lower bound at μ_lo exceeds the (raised) target, so δ_μ(ε) > δ there.
  auto upper_excess = [&](double e) { return log_delta_bounds_at(mu_hi, e).upper - target_lo; };
  auto lower_excess = [&](double e) { return log_delta_bounds_at(mu_lo, e).lower - target_hi; };
  // Bracket from δ(ε) ≤ Φ(−ε/μ + μ/2) ≤ δ at ε = μ²/2 + μ√(2 log(1/δ)) (Chernoff), doubled.
  // (It added 1 instead: for tiny μ the search then started at ε/μ ≈ 1e155, where log δ has no
  // certified value, and `--mu 5e-156 --delta 3.5e-229` found no ε at all, while μ = 1e-100
  // stopped at a bracket [7e-147, 5e-26] around the exact 3.2e-99.)
  const double guess = 2 * (0.5 * mu_hi * mu_hi + mu_hi * std::sqrt(2 * -log_target));
  int evaluations = 2;
  if (upper_excess(0.0) <= 0) {
    r.value = r.upper = 0.0;
  } else {
    const root_result up = find_root_expanding_upward(upper_excess, 0.0, guess);
    evaluations += up.evaluations;
    if (!(up.f_upper <= 0)) {
      r.termination = termination_type::failure;
      r.message = "no epsilon with a certified delta(epsilon) <= delta was found" +
                  (up.message.empty() ? std::string() : " (" + up.message + ")");
      r.evaluations = evaluations;
      return r;
    }
    r.termination = up.termination;
    r.message = up.message;
    r.value = r.upper = up.upper;
  }
  if (lower_excess(0.0) <= 0) {
    r.lower = 0.0;  // ε ≥ 0 by definition
  } else {
    const root_result lo = find_root(lower_excess, 0.0, r.upper);
    evaluations += lo.evaluations;
    // lower_excess(lower) ≥ 0 certifies δ(lower) ≥ δ, so no ε below `lower` can hold (δ(ε) is
    // strictly decreasing where positive); on failure 0 is still a valid lower end.
    r.lower = lo.f_lower >= 0 ? lo.lower : 0.0;
  }
  r.evaluations = evaluations;
  return r;
}

epsilon_result gdp_epsilon(double mu, double delta) {
  check_mu("gdp_epsilon", mu);
  check_open_probability("gdp_epsilon", "delta", delta);
  if (mu == 0) {
    epsilon_result r;
    r.kind = bound_kind::upper_bound;
    r.tight = true;
    r.value = r.lower = r.upper = 0.0;
    r.evaluations = 0;
    return r;
  }
  return gdp_epsilon_bounds(mu, mu, delta);
}

double gdp_epsilon_upper(double mu, double delta) {
  check_nonnegative("gdp_epsilon_upper", "mu", mu);
  check_open_probability("gdp_epsilon_upper", "delta", delta);
  if (!(mu <= kMaxMu)) return kInf;
  return gdp_epsilon(mu, delta).upper;
}

calibration_result gdp_mu(double epsilon, double delta) {
  check_nonnegative("gdp_mu", "epsilon", epsilon);
  if (epsilon > kMaxMuEpsilon)
    throw_domain_error("gdp_mu", "epsilon", epsilon, "<= 1e11 (the largest mu supported is 1e6)");
  check_open_probability("gdp_mu", "delta", delta);
  // Certified: h uses the upper bound of log δ_μ(ε) against the target lowered by its rounding,
  // so h(μ) ≤ 0 proves δ_μ(ε) ≤ δ for the exact values.
  const double log_target = std::log(delta);
  const double target_lo = log_target - kU * std::abs(log_target);
  auto h = [&](double mu) { return log_delta_bounds_at(mu, epsilon).upper - target_lo; };
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
  // Safe side: the μ at which δ_μ(ε) ≤ δ is certified (h ≤ 0), the lower end.
  if (root.f_lower <= 0) {
    r.value = root.lower;
  } else {
    r.termination = termination_type::failure;
    if (r.message.empty()) r.message = "no mu with a certified delta <= target was found";
  }
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

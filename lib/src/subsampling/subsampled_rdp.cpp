#include "dpkit/subsampling/subsampled_rdp.hpp"

#include <algorithm>
#include <boost/math/policies/error_handling.hpp>
#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "dpkit/core/check.hpp"
#include "dpkit/core/log_space.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/core/roots.hpp"
#include "dpkit/divergence/gdp.hpp"

namespace dpkit::subsampling {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kMaxAlpha = 1e6;

void check_arguments(const char* function, double q, double sigma, double alpha) {
  check_positive(function, "sigma", sigma);
  if (!(q > 0 && q <= 1)) throw_domain_error(function, "q", q, "in (0, 1]");
  if (!(alpha > 1 && alpha <= kMaxAlpha))
    throw_domain_error(function, "alpha", alpha, "in (1, 1e6]");
}

// log C(α, k) for real α ≥ k ≥ 0 (lgamma; only used where the coefficient is positive).
double log_binomial(double alpha, double k) {
  return std::lgamma(alpha + 1) - std::lgamma(k + 1) - std::lgamma(alpha - k + 1);
}

// log Σ_k e^{t_k} over all terms, in two passes (maximum, then the scaled sum).
template <class Term>
double log_sum_terms(long long first, long long last, Term&& term) {
  double peak = -kInf;
  std::vector<double> terms;
  terms.reserve(static_cast<std::size_t>(last - first + 1));
  for (long long k = first; k <= last; ++k) {
    terms.push_back(term(k));
    peak = std::max(peak, terms.back());
  }
  if (!std::isfinite(peak)) return peak;
  double sum = 0;
  for (double t : terms) sum += std::exp(t - peak);
  return peak + std::log(sum);
}

// Integer α: log Σ_{k=2}^{α} C(α,k) q^k (1−q)^{α−k} expm1(k(k−1)/(2σ²)), all terms positive.
// Every term is summed: log C(α,k) + k log q is concave in k but k(k−1)/(2σ²) is convex, so the
// terms may fall for a long while and then grow again (at q = 1e-6, σ = 1, α = 50 the last term
// is ~e^535 times the first: test "fractional orders join the integer orders continuously").
// log C(α, k) by the recurrence C(α,k+1) = C(α,k)(α−k)/(k+1).
double log_a_minus_one_integer(double q, double sigma, long long alpha) {
  const double log_q = std::log(q);
  const double log_1mq = q < 1 ? std::log1p(-q) : -kInf;
  const double a = static_cast<double>(alpha);
  double log_c = std::log(a) + std::log(a - 1) - std::log(2.0);  // log C(α, 2)
  return log_sum_terms(2, alpha, [&](long long k) {
    const double kk = static_cast<double>(k);
    const double log_1mq_part = alpha == k ? 0.0 : (a - kk) * log_1mq;
    const double t =
        log_c + kk * log_q + log_1mq_part + log_expm1(kk * (kk - 1) / (2 * sigma * sigma));
    log_c += std::log((a - kk) / (kk + 1));
    return t;
  });
}

// log[(1 + x)^α − 1 − αx] ≥ 0 for x > −1 (Bernoulli), without cancellation: by its binomial
// series for |x| small, directly otherwise. For x > 0 the caller also passes log x, and x may
// be +∞: far in the upper tail x = q·(e^s − 1) overflows (s = t/σ − 1/(2σ²) > 709 + log(1/q),
// i.e. t > 76 at σ = 0.1), and there (1 + x)^α, the whole integrand, is formed from log x. (It
// was once formed from x itself: the overflow turned the integrand into NaN, read as 0, and at
// σ = 0.1 the RDP came out 6× too small — 166.5 for 1012.9 at q = 1e-5, α = 20.5.)
double log_bernoulli_remainder(double alpha, double x, double log_x) {
  if (x == 0) return -kInf;
  if (x > 0 && !(std::abs(x) < 1e-3)) {
    const double l = alpha * log1pexp(log_x);  // α log(1 + x), finite for x = +∞ too
    if (l > 700 || !std::isfinite(x)) {
      // (1 + x)^α dominates: log R = l + log(1 − e^{−l} − α e^{log x − l}), both terms < 1.
      return l + std::log1p(-(std::exp(-l) + alpha * std::exp(log_x - l)));
    }
    return std::log(std::expm1(l) - alpha * x);
  }
  const double l = alpha * std::log1p(x);
  if (std::abs(x) < 1e-3 && std::abs(l) < 0.5) {
    // Σ_{k≥2} C(α,k) x^k = x²·α(α−1)/2·[1 + (α−2)x/3 + (α−2)(α−3)x²/12 + …]; the series
    // terms shrink by ≤ |x|·α/k each, so 30 terms reach 1e-17 relative.
    double term = alpha * (alpha - 1) / 2 * x * x, sum = term;
    for (int k = 3; k < 60; ++k) {
      term *= (alpha - (k - 1)) * x / k;
      sum += term;
      if (std::abs(term) < 1e-18 * std::abs(sum)) break;
    }
    return std::log(sum);
  }
  if (l > 700) return l + std::log1p(-std::exp(-l) * (1 + alpha * x));  // (1+x)^α dominates
  return std::log(std::expm1(l) - alpha * x);
}

// log ∫ e^{f(t)} dt over [breaks.front(), ∞), or over (−∞, ∞) with `from_minus_infinity`, for a
// log-integrand f that may underflow or overflow in linear space: split at the increasing
// breakpoints (where its peaks are), scaled by the largest e^f among them, tanh-sinh between
// breakpoints and exp-sinh on the infinite ends, relative tolerance 1e-12. −∞ when f is −∞ at
// every breakpoint. The integrators build their abscissa tables on construction and are reused
// per thread.
template <class LogIntegrand>
double log_integral(LogIntegrand&& log_integrand,
                    const std::vector<double>& breaks,
                    bool from_minus_infinity) {
  double log_scale = -kInf;
  for (double b : breaks) log_scale = std::max(log_scale, log_integrand(b));
  if (!std::isfinite(log_scale)) return -kInf;
  auto scaled = [&](double t) {
    const double v = std::exp(log_integrand(t) - log_scale);
    return std::isfinite(v) ? v : 0.0;
  };
  const double tol = 1e-12;
  static thread_local boost::math::quadrature::tanh_sinh<double> finite;
  static thread_local boost::math::quadrature::exp_sinh<double> infinite;
  double total = 0.0;
  if (from_minus_infinity)
    total += infinite.integrate([&](double u) { return scaled(breaks.front() - u); }, tol);
  for (std::size_t i = 0; i + 1 < breaks.size(); ++i)
    if (breaks[i] < breaks[i + 1]) total += finite.integrate(scaled, breaks[i], breaks[i + 1], tol);
  total += infinite.integrate([&](double u) { return scaled(breaks.back() + u); }, tol);
  return log_scale + std::log(total);
}

// Two-sided bounds on log A_α, A_α = E_{z~N(0,σ²)}[(1 − q + q e^{s})^α], s = (2z − 1)/(2σ²), for
// α ≥ 1. With b = q e^{s}, E b^α = q^α e^{α(α−1)/(2σ²)}, so A ≥ E b^α (1 − q ≥ 0), and
// Minkowski's inequality in L^α gives A^{1/α} ≤ (1 − q) + (E b^α)^{1/α}:
//   α log q + α(α−1)/(2σ²) ≤ log A ≤ α log(1 − q + q e^{(α−1)/(2σ²)}).
// The two differ by α log(1 + (1 − q)/q · e^{−(α−1)/(2σ²)}): nothing once (α − 1)/(2σ²) is far
// above log(1/q) — small σ, where the quadrature cannot be evaluated (the log-integrand is ~1e18
// at σ = 3e-10 and its rounding, ~1e3, is far wider than the peak).
struct log_a_bounds {
  double lower = 0, upper = 0;
};
log_a_bounds log_a_minkowski(double q, double sigma, double alpha) {
  const double drift = (alpha - 1) / (2 * sigma * sigma);  // (α − 1)/(2σ²)
  const double lower = alpha * (std::log(q) + drift);
  // log(1 − q + q e^d) = log1p(q·expm1(d)) without cancellation while e^d is a double; beyond,
  // log q + d + log(1 + (1 − q)e^{−d}/q), its first two terms dominant.
  const double upper =
      drift < 700 ? alpha * std::log1p(q * std::expm1(drift))
                  : alpha * (std::log(q) + drift +
                             (q < 1 ? log1pexp(std::log1p(-q) - std::log(q) - drift) : 0.0));
  return {std::max(lower, 0.0), std::max(upper, 0.0)};
}

// log(A − 1) from log A ≥ 0.
double log_a_minus_one_of(double log_a) {
  return log_a > 40 ? log_a + std::log1p(-std::exp(-log_a)) : log_expm1(log_a);
}

double log_a_minus_one_quadrature(double q, double sigma, double alpha);

// Fractional α: the quadrature below, checked against the two-sided bounds above. Where the
// bounds agree to 1e-14 the upper one is the value (the quadrature's own error is larger); where
// the quadrature falls outside them (its peak lost to rounding — it once returned −∞ at
// σ < 7e-10, so that α = 1.5 gave ε(α) = 0 and the accountant a certified-looking 6e-14 for a
// run whose ε is 5.6e20), the upper one replaces it: an upper bound on the RDP, as the
// accountant needs.
double log_a_minus_one_fractional(double q, double sigma, double alpha) {
  const log_a_bounds b = log_a_minkowski(q, sigma, alpha);
  if (!std::isfinite(b.lower)) return kInf;
  if (b.lower > 40 && b.upper - b.lower <= 1e-14 * b.upper) return log_a_minus_one_of(b.upper);
  // Boost's quadrature refuses an integrand that overflows between the breakpoints (an
  // evaluation_error at q = 3.3e-299, σ = 0.128, α fractional; found by the domain sweep): the
  // upper Minkowski bound, as for a quadrature outside the bounds, then serves.
  double r = NAN;
  try {
    r = log_a_minus_one_quadrature(q, sigma, alpha);
  } catch (const boost::math::evaluation_error&) {
    r = NAN;
  }
  const double log_a = std::isnan(r) ? NAN : log1pexp(r);
  const double slack = 1e-10 * b.upper + 1e-300;
  if (!(log_a >= b.lower - slack && log_a <= b.upper + slack)) return log_a_minus_one_of(b.upper);
  return r;
}

// Fractional α: log E_{t~N(0,1)}[R(x(t))], R the Bernoulli remainder, x(t) = q·expm1(t/σ −
// 1/(2σ²)).
double log_a_minus_one_quadrature(double q, double sigma, double alpha) {
  const double shift = 0.5 / (sigma * sigma);
  const double log_q = std::log(q);
  auto log_integrand = [&](double t) {
    const double s = t / sigma - shift;
    double x = 0, log_x = -kInf;
    if (s > 0) {
      log_x = log_q + log_expm1(s);  // x = q(e^s − 1) > 0, in logs: no overflow
      x = log_x < 700 ? std::exp(log_x) : kInf;
    } else {
      x = q * std::expm1(s);  // in (−q, 0]
    }
    return log_bernoulli_remainder(alpha, x, log_x) + normal_lpdf(t);
  };
  // Stationary points of the dominant factor (1 + x)^α φ(t): t = (α/σ)·π(t), π the logistic
  // weight q e^s/(1 − q + q e^s) ∈ (0, 1) — at most three (two maxima around a valley).
  // Together with the bulk bump of R near t = 2/σ they are the breakpoints of the quadrature.
  auto slope = [&](double t) {
    const double s = t / sigma - shift;
    const double pi = 1 / (1 + std::exp(-(s + std::log(q) - std::log1p(-std::min(q, 1 - 1e-16)))));
    return alpha / sigma * pi - t;
  };
  std::vector<double> breaks = {0.0, 2 / sigma};
  const double t_far = alpha / sigma + 1;
  const int scan = 64;
  double previous_t = -1, previous_f = slope(-1);
  for (int i = 1; i <= scan; ++i) {
    const double t = -1 + (t_far + 1) * std::pow(static_cast<double>(i) / scan, 2);
    const double f = slope(t);
    if ((f > 0) != (previous_f > 0)) {
      const root_result r = find_root(slope, previous_t, t);
      if (r.converged()) breaks.push_back(r.root);
    }
    previous_t = t;
    previous_f = f;
  }
  std::sort(breaks.begin(), breaks.end());
  breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
  // Relative tolerance 1e-12: measured ≤ 4e-13 against 40-digit quadrature in
  // data/reference/rdp_poisson_gaussian.csv.
  return log_integral(log_integrand, breaks, /*from_minus_infinity=*/true);
}

// WBK19 Thm 9 bound at integer α ≥ 2, returned as (α − 1)ε(α) = log(1 + Σ_j terms). All terms
// are summed (they grow like e^{2j²/σ²} at large j, see log_a_minus_one_integer).
double wor_log_moment_integer(double q, double sigma, long long alpha) {
  const double a = static_cast<double>(alpha);
  const double eps2 = 4 / (sigma * sigma);  // ε(2) = 2·2/σ²
  const double log_q = std::log(q);
  double log_c = log_binomial(a, 2);
  const double total = log_sum_terms(2, alpha, [&](long long j) {
    const double jj = static_cast<double>(j);
    if (j == 2)  // q² C(α,2) min{4(e^{ε(2)} − 1), 2e^{ε(2)}}
      return 2 * log_q + log_c + std::min(std::log(4.0) + log_expm1(eps2), std::log(2.0) + eps2);
    log_c += std::log((a - jj + 1) / jj);
    // 2 q^j C(α,j) e^{(j−1)ε(j)}, ε(j) = 2j/σ².
    return std::log(2.0) + jj * log_q + log_c + (jj - 1) * 2 * jj / (sigma * sigma);
  });
  return log1pexp(total);  // log(1 + Σ)
}

// log δ(ε) of C_q(G(μ)) for ε ≥ 0: q·δ_G(μ)(ε'), ε' = log(1 + (e^ε − 1)/q) (BSA24 Prop D.4),
// ε' formed without overflow for large ε.
double symmetric_log_delta(double q, double mu, double epsilon) {
  // ε' = log(1 + (e^ε − 1)/q): directly while (e^ε − 1)/q is a double, else from
  // log(e^ε − 1 + q) − log q (at q = 1e-300 the ratio overflows from ε = 1e-8 × e^{700}…).
  const double ratio = std::expm1(epsilon) / q;
  const double shifted = std::isfinite(ratio)
                             ? std::log1p(ratio)
                             : epsilon + std::log1p(-(1 - q) * std::exp(-epsilon)) - std::log(q);
  return std::log(q) + divergence::gdp_log_delta(mu, shifted);
}

// (α − 1)·D_α of C_q(G(μ)) from its privacy profile. For a pair (P, Q) whose tradeoff curve is
// symmetric, E_γ(P‖Q) = E_γ(Q‖P), and the hockey-stick representation of f-divergences
// (Sason & Verdú 2016, Thm 2 / Liese & Vajda 2006) with f(t) = t^α gives
//
//   e^{(α−1)D_α} − 1 = α(α − 1) ∫_0^∞ (e^{(α−1)ε} + e^{−αε}) δ(ε) dε.
//
// Evaluated in log space (δ underflows long before the weight stops growing): the integrand's
// peak is located by Brent's method and the integral split there (log_integral).
double wor_profile_log_moment(double q, double mu, double alpha) {
  const double am1 = alpha - 1;
  const double log_weight = std::log(alpha) + std::log(am1);
  auto log_integrand = [&](double e) {
    return log_weight + am1 * e + std::log1p(std::exp(-(2 * alpha - 1) * e)) +
           symmetric_log_delta(q, mu, e);
  };
  // Far out log δ(ε) ≈ −ε'²/(2μ²), so the peak sits near ε' = (α − 1)μ² + μ²/2; bracket it
  // generously and maximise.
  const double guess = std::max(0.0, am1 * mu * mu + 0.5 * mu * mu + std::log(q));
  const double upper = 2 * guess + 10 * mu + 10;
  std::uintmax_t iterations = 60;
  const double peak = boost::math::tools::brent_find_minima(
                          [&](double e) { return -log_integrand(e); }, 0.0, upper, 30, iterations)
                          .first;
  // log(e^{(α−1)D} − 1); −∞ when δ ≡ 0 in double range (then D_α is below any float: 0).
  return log1pexp(log_integral(log_integrand, {0.0, peak}, /*from_minus_infinity=*/false));
}

}  // namespace

double poisson_gaussian_log_a_minus_one(double q, double sigma, double alpha) {
  check_arguments("poisson_gaussian_log_a_minus_one", q, sigma, alpha);
  if (alpha == std::floor(alpha))
    return log_a_minus_one_integer(q, sigma, static_cast<long long>(alpha));
  return log_a_minus_one_fractional(q, sigma, alpha);
}

double poisson_gaussian_rdp(double q, double sigma, double alpha) {
  check_arguments("poisson_gaussian_rdp", q, sigma, alpha);
  if (q == 1) return alpha / (2 * sigma * sigma);  // the Gaussian mechanism
  // ε(α) = log(1 + (A − 1))/(α − 1).
  return log1pexp(poisson_gaussian_log_a_minus_one(q, sigma, alpha)) / (alpha - 1);
}

double wor_gaussian_rdp_wbk19(double q, double sigma, double alpha) {
  check_arguments("wor_gaussian_rdp_wbk19", q, sigma, alpha);
  if (q == 1) return 2 * alpha / (sigma * sigma);             // replace-one Gaussian, sensitivity 2
  if (alpha < 2) return wor_log_moment_integer(q, sigma, 2);  // ε(α) ≤ ε(2) (monotone in α)
  const double lo = std::floor(alpha), hi = std::ceil(alpha);
  const double m_lo = wor_log_moment_integer(q, sigma, static_cast<long long>(lo));
  if (lo == hi) return m_lo / (alpha - 1);
  // Convexity of (α − 1)D_α: interpolate the log-moments (α − 1)ε linearly.
  const double m_hi = wor_log_moment_integer(q, sigma, static_cast<long long>(hi));
  const double w = alpha - lo;
  return ((1 - w) * m_lo + w * m_hi) / (alpha - 1);
}

double wor_gaussian_rdp(double q, double sigma, double alpha) {
  check_arguments("wor_gaussian_rdp", q, sigma, alpha);
  const double mu = 2 / sigma;               // replace-one: the clipped sum moves by 2C
  if (q == 1) return 0.5 * alpha * mu * mu;  // G(μ): D_α = αμ²/2
  // Beyond μ = 1e3 (σ < 2e-3) the profile's δ is out of double range almost everywhere the
  // integrand lives (the Gaussian profile refuses μ > 1e6); there the bound of the pair
  // without subsampling, αμ²/2, is used: C_q(G(μ)) is G(μ) post-processed, so its divergence is
  // at most G(μ)'s, and the two differ by |log q|/(α − 1), ≤ 0.2 % of αμ²/2 = 5e5α at q = 1e-300.
  if (mu > 1e3) return 0.5 * alpha * mu * mu;
  // Below μ = 1e-20 (σ > 2e20) the same bound: it exceeds the subsampled divergence by less
  // than αμ²/2 ≤ 5e-35 per step at the accountant's largest order (1e6), below 5e-19 for 2^53
  // steps, far below the conversion's log(1/δ)/(α − 1) ≥ 1e-9 (δ ≤ 0.999) — while the profile's
  // quadrature of a loss this small took up to 12 minutes at some σ (σ = 2.4e159, q = 1.3e-11, 110
  // steps; domain sweep case 12821).
  if (mu < 1e-20) return 0.5 * alpha * mu * mu;
  // Below q = 1e-100 WBK19's bound (the same mechanism, Thm 9; at most ~4× the profile's value,
  // which is then below ~1e-190 at every order the accountant uses) replaces the profile integral,
  // whose quadrature takes 15–20 s at some such rates (q = 1.5e-130, 1e-300; measured) for a
  // divergence no (ε, δ) conversion can resolve.
  if (q < 1e-100) return wor_gaussian_rdp_wbk19(q, sigma, alpha);
  return wor_profile_log_moment(q, mu, alpha) / (alpha - 1);
}

}  // namespace dpkit::subsampling

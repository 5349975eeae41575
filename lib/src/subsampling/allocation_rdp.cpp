#include "dpkit/subsampling/allocation_rdp.hpp"

#include <algorithm>
#include <boost/math/quadrature/exp_sinh.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <vector>

#include "dpkit/core/check.hpp"
#include "dpkit/core/log_space.hpp"

namespace dpkit::subsampling {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kAllowance = 1e-9;  // relative, on the returned log moments
// Absolute, on the log moments: each partition's log term carries a few ulp of its size (≤ ~1e3
// for α ≤ 40 and the μ where the moment is finite in double), so a moment near 1 (large t) is
// known to ~1e-16 absolute only, whatever its relative size.
constexpr double kAbsoluteAllowance = 1e-13;
constexpr long long kMaxIntegerOrder = 40;

void check_common(const char* fn, double mu, long long t) {
  check_positive(fn, "mu", mu);
  if (mu > 40) throw_domain_error(fn, "mu", mu, "<= 40 (noise multiplier >= 0.025)");
  check_at_least(fn, "steps_per_epoch", t, 1);
}

// Log-sum-exp accumulator over the partitions of α.
struct partition_sum {
  long long alpha;
  double mu2_half;  // μ²/2
  double t;         // steps per epoch
  double log_alpha_fact;
  std::vector<long long> parts;  // non-increasing
  double log_total = -kInf;

  void add_current() {
    const auto m = static_cast<long long>(parts.size());
    // log t!/((t − m)! t^α) = Σ_{i<m} log(t − i) − α log t, as (m − α) log t + Σ log1p(−i/t):
    // the 1/t^α goes into each term, so that a moment near 1 (large t) keeps its digits.
    double log_term = static_cast<double>(m - alpha) * std::log(t);
    for (long long i = 1; i < m; ++i) log_term += std::log1p(-static_cast<double>(i) / t);
    log_term += log_alpha_fact;
    long long run = 1;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const double v = static_cast<double>(parts[i]);
      log_term += -std::lgamma(v + 1) + v * (v - 1) * mu2_half;
      // Π_v c_v!: multiplicities of equal parts (parts are sorted).
      if (i > 0 && parts[i] == parts[i - 1]) {
        ++run;
        log_term -= std::log(static_cast<double>(run));
      } else {
        run = 1;
      }
    }
    log_total = log_sum_exp(log_total, log_term);
  }
  // Partitions of `rest` into parts ≤ max_part, at most t parts in all.
  void enumerate(long long rest, long long max_part) {
    if (rest == 0) {
      add_current();
      return;
    }
    if (static_cast<double>(parts.size()) >= t) return;
    for (long long v = std::min(rest, max_part); v >= 1; --v) {
      parts.push_back(v);
      enumerate(rest - v, v);
      parts.pop_back();
    }
  }
};

}  // namespace

double allocation_remove_log_moment(long long alpha, double mu, long long t) {
  constexpr const char* kFn = "allocation_remove_log_moment";
  check_common(kFn, mu, t);
  if (alpha < 2 || alpha > kMaxIntegerOrder)
    throw_domain_error(kFn, "alpha", format_value(alpha), "an integer in [2, 40]");
  const auto a = static_cast<double>(alpha);
  partition_sum sum{alpha, mu * mu / 2, static_cast<double>(t), std::lgamma(a + 1), {}, -kInf};
  sum.parts.reserve(static_cast<std::size_t>(alpha));
  sum.enumerate(alpha, alpha);
  return sum.log_total;  // log E[(S/t)^α]
}

double allocation_add_log_moment(double alpha, double mu, long long t) {
  constexpr const char* kFn = "allocation_add_log_moment";
  check_common(kFn, mu, t);
  if (!(alpha > 1 && alpha <= 1e4)) throw_domain_error(kFn, "alpha", alpha, "in (1, 1e4]");
  const double a = alpha - 1;
  const double tt = static_cast<double>(t);
  if (t == 1) return a * alpha * mu * mu / 2;  // E[Y^{−a}] = exp(a(a + 1)μ²/2)
  // ψ(s) = 1 − φ(s) = E[1 − e^{−sY}], Y = exp(μx − μ²/2), x ~ N(0, 1).
  const double log_norm = -0.5 * std::log(2 * M_PI);
  auto psi = [&](double s) {
    auto f = [&](double x) {
      const double y = std::exp(mu * x - mu * mu / 2);
      return std::exp(log_norm - x * x / 2) * -std::expm1(-s * y);
    };
    double err = 0;
    return boost::math::quadrature::gauss_kronrod<double, 61>::integrate(
        f, -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(), 15,
        1e-13, &err);
  };
  // log of the outer integrand v^{a−1} φ(v/t)^t / Γ(a).
  const double log_gamma_a = std::lgamma(a);
  auto log_f = [&](double v) {
    if (!(v > 0)) return a > 1 ? -kInf : (a == 1 ? -log_gamma_a : kInf);
    const double p = psi(v / tt);
    if (!(p < 1)) return -kInf;
    return (a - 1) * std::log(v) + tt * std::log1p(-p) - log_gamma_a;
  };
  // The peak: φ(s)^t ≈ e^{−v} near the bulk, so v ≈ a − 1; locate it on a coarse log grid.
  double peak = std::max(a - 1, 1e-3), best = log_f(peak);
  for (double v = 1e-3; v < 1e6; v *= 1.5) {
    const double lv = log_f(v);
    if (lv > best) {
      best = lv;
      peak = v;
    }
  }
  if (!std::isfinite(best))
    throw_domain_error(kFn, "alpha", alpha, "a finite add-direction moment");
  auto scaled = [&](double v) {
    const double e = std::exp(log_f(v) - best);
    return std::isfinite(e) ? e : 0.0;
  };
  static thread_local boost::math::quadrature::tanh_sinh<double> finite;
  static thread_local boost::math::quadrature::exp_sinh<double> infinite;
  const double tol = 1e-12;
  const double total = finite.integrate(scaled, 0.0, peak, tol) +
                       infinite.integrate([&](double u) { return scaled(peak + u); }, tol);
  return best + std::log(total);
}

std::vector<double> allocation_epoch_rdp(double mu, long long t, long long alpha_max) {
  constexpr const char* kFn = "allocation_epoch_rdp";
  check_common(kFn, mu, t);
  if (alpha_max < 2 || alpha_max > kMaxIntegerOrder)
    throw_domain_error(kFn, "alpha_max", format_value(alpha_max), "an integer in [2, 40]");
  const double tt = static_cast<double>(t);
  std::vector<double> out;
  // ---- add direction: L(u) = t·log φ(e^u/t), memoised on the grid u_k = k·h_u.
  const double h_u = 0.02;
  const double h_x = 0.025 / std::max(1.0, mu);
  const double x_lo = -12.5, x_hi = mu + 12.5;  // φ_N beyond: < 1e-34 of the integral's scale
  std::vector<double> xs, ws;
  for (double x = x_lo; x <= x_hi; x += h_x) {
    xs.push_back(x);
    ws.push_back(h_x * std::exp(-0.5 * x * x - 0.5 * std::log(2 * M_PI)));
  }
  const std::size_t n = xs.size();
  std::vector<double> ys(n);
  for (std::size_t i = 0; i < n; ++i) ys[i] = std::exp(mu * xs[i] - mu * mu / 2);
  // The terms at z = s·y below 1e-17 or above 40 are exact in closed form in double precision:
  // 1 − e^{−z} is z (the next term, z²/2, is below half an ulp of z) or 1 (e^{−z} < 2^-57), and
  // e^{−z} is 1 or, above 745, 0. y rises with x (μ > 0), so those terms are a head and a tail
  // of the grid, summed once (the head of w·y forward, the tails of w from their own ends so
  // that a small tail keeps its digits); only the middle, ~3/(μ h_x) points, is summed per s.
  // (At σ = 0.066 the full sums took 4 s per epoch; the values are the same up to rounding,
  // which kAllowance covers.)
  std::vector<double> head_wy(n + 1, 0.0), head_w(n + 1, 0.0), tail_w(n + 1, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    head_wy[i + 1] = head_wy[i] + ws[i] * ys[i];
    head_w[i + 1] = head_w[i] + ws[i];
  }
  for (std::size_t i = n; i-- > 0;) tail_w[i] = tail_w[i + 1] + ws[i];
  // The first index whose z = s·y reaches `z` (n if none).
  auto first_reaching = [&](double s, double z) {
    return static_cast<std::size_t>(std::lower_bound(ys.begin(), ys.end(), z / s) - ys.begin());
  };
  std::unordered_map<long long, double> memo;
  auto L = [&](long long k) {
    if (auto it = memo.find(k); it != memo.end()) return it->second;
    const double s = std::exp(static_cast<double>(k) * h_u) / tt;
    const std::size_t lo = first_reaching(s, 1e-17), hi = std::max(lo, first_reaching(s, 40));
    // 1 − φ(s), no cancellation while φ is near 1.
    double psi = s * head_wy[lo] + tail_w[hi];
    for (std::size_t i = lo; i < hi; ++i) psi += ws[i] * -std::expm1(-s * ys[i]);
    double v = tt * std::log1p(-psi);
    if (psi > 0.5) {  // φ small: summed directly, so that it keeps falling (1 − ψ would stall)
      const std::size_t top = std::max(lo, first_reaching(s, 746));
      double phi = head_w[lo];
      for (std::size_t i = lo; i < top; ++i) phi += ws[i] * std::exp(-s * ys[i]);
      v = phi > 0 ? tt * std::log(phi) : -kInf;
    }
    memo.emplace(k, v);
    return v;
  };
  for (long long alpha = 2; alpha <= alpha_max; ++alpha) {
    const double a = static_cast<double>(alpha - 1);
    double add = 0;
    if (t == 1) {
      add = a * static_cast<double>(alpha) * mu * mu / 2;
    } else {
      // log ∫ v^{a−1} φ^t dv = log ∫ e^{a u + L(u)} du: find the peak near u = log a (φ^t ≈
      // e^{−v}), then sum outward until the terms fall below 1e-20 of it.
      auto g = [&](long long k) { return a * static_cast<double>(k) * h_u + L(k); };
      auto k_peak = static_cast<long long>(std::floor(std::log(a) / h_u));
      while (g(k_peak + 1) > g(k_peak)) ++k_peak;
      while (g(k_peak - 1) > g(k_peak)) --k_peak;
      const double top = g(k_peak);
      double sum = 1;
      const long long k_top = k_peak;
      bool converged = true;
      for (long long k = k_peak + 1;; ++k) {
        // Still not fallen to 1e-20 of the peak e^{100} beyond it (v = e^{u}): this order's
        // moment is out of reach (at small σ the higher orders grow without a visible end;
        // the scan once ran 2e5 steps, a minute, before giving up). The orders below it are
        // kept — any set of orders gives a valid RDP bound.
        if (k - k_top > 5000) {
          converged = false;
          break;
        }
        const double r = std::exp(g(k) - top);
        sum += r;
        if (r < 1e-20 && !(g(k + 1) > g(k))) break;  // −∞ beyond: stop too
      }
      if (!converged) {
        if (out.empty())
          throw_domain_error(kFn, "noise_multiplier", 1 / mu,
                             "larger: at this noise the epoch's add-direction Renyi moment of "
                             "order 2 is out of numerical reach (the PLD accountant brackets "
                             "such runs)");
        break;
      }
      for (long long k = k_peak - 1;; --k) {
        const double r = std::exp(g(k) - top);
        sum += r;
        if (r < 1e-20 && !(g(k - 1) > g(k))) break;
      }
      add = top + std::log(sum * h_u) - std::lgamma(a);
    }
    const double remove = allocation_remove_log_moment(alpha, mu, t);
    const double m = std::max(remove, add);
    out.push_back((std::max(0.0, m) * (1 + kAllowance) + kAbsoluteAllowance) / a);
  }
  return out;
}

}  // namespace dpkit::subsampling

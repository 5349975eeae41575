#include "dpkit/shifted/interpolation.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "dpkit/core/check.hpp"

namespace dpkit::shifted {
namespace {

void check_contraction(const char* fn, double c) {
  if (!(c > 0 && c <= 1)) throw_domain_error(fn, "contraction", c, "in (0, 1]");
}

void check_sensitivities(const char* fn, std::span<const double> s) {
  if (s.empty()) throw_domain_error(fn, "sensitivities.size()", "0", ">= 1");
  for (std::size_t i = 0; i < s.size(); ++i)
    check_nonnegative(fn, "sensitivities[" + std::to_string(i) + "]", s[i]);
}

// The window solver without argument checks (best_interpolation calls it O(t) times).
interpolation_solution solve_window(double c, std::span<const double> s, double z0) {
  const std::size_t n = s.size();
  // Points P_0 = (0, 0) and P_j = (R_j, Ĉ_j), j = 1..n, with ρ_j = c^{2(n−j)},
  // R_j = Σ_{i≤j} ρ_i and Ĉ_j = c^n z0 + Σ_{i≤j} c^{n−i} s_i (file comment of the header).
  // Powers are taken from the end (c^{n−j} for j = n, n−1, …), so nothing overflows; for
  // c < 1 and large n the early ρ_j underflow to 0, which only makes early a_j tiny, as they
  // are at the optimum.
  std::vector<double> power(n + 1);  // power[k] = c^k
  power[0] = 1;
  for (std::size_t k = 1; k <= n; ++k) power[k] = power[k - 1] * c;
  std::vector<double> R(n + 1, 0.0), C(n + 1, 0.0);
  const double start = power[n] * z0;
  double r = 0, cum = start;
  for (std::size_t j = 1; j <= n; ++j) {
    const double w = power[n - j];
    r += w * w;
    cum += w * s[j - 1];
    R[j] = r;
    C[j] = cum;
  }
  // Lower convex hull of P_0..P_n (Andrew's monotone chain; the points are sorted by R).
  // A point is dropped when it lies on or above the segment joining its neighbours.
  std::vector<std::size_t> hull;
  hull.reserve(n + 1);
  auto y = [&](std::size_t j) { return j == 0 ? 0.0 : C[j]; };
  for (std::size_t j = 0; j <= n; ++j) {
    while (hull.size() >= 2) {
      const std::size_t p = hull[hull.size() - 2], q = hull.back();
      // Cross product of (q − p) × (j − p) ≤ 0: q is not strictly below segment p→j.
      const double cross = (R[q] - R[p]) * (y(j) - y(p)) - (y(q) - y(p)) * (R[j] - R[p]);
      if (cross <= 0)
        hull.pop_back();
      else
        break;
    }
    hull.push_back(j);
  }
  interpolation_solution sol;
  sol.a.assign(n, 0.0);
  for (std::size_t h = 1; h < hull.size(); ++h) {
    const std::size_t p = hull[h - 1], q = hull[h];
    const double run = R[q] - R[p];
    // run = 0 only when every ρ in (p, q] underflowed; those a_j are then 0 to working precision.
    const double slope = run > 0 ? (y(q) - y(p)) / run : 0.0;
    for (std::size_t j = p + 1; j <= q; ++j) sol.a[j - 1] = slope * power[n - j];
  }
  // Shifts and interpolation weights from the recursion z_j = c z_{j−1} + s_j − a_j.
  sol.z.assign(n + 1, 0.0);
  sol.lambda.assign(n, 1.0);
  sol.z[0] = z0;
  double value = 0;
  for (std::size_t j = 1; j <= n; ++j) {
    const double inflow = c * sol.z[j - 1] + s[j - 1];
    double a = sol.a[j - 1];
    // Rounding can leave a_j a few ulp above the inflow, or z_n a few ulp from 0: clamp, so the
    // returned triple satisfies the recursion with z ≥ 0 and z_t = 0 exactly.
    if (j == n || a > inflow) a = inflow;
    sol.a[j - 1] = a;
    sol.z[j] = j == n ? 0.0 : inflow - a;
    sol.lambda[j - 1] = inflow > 0 ? a / inflow : 1.0;
    value += a * a;
  }
  sol.lambda[n - 1] = 1.0;
  sol.value = value;
  sol.evaluations = static_cast<int>(n);
  return sol;
}

}  // namespace

interpolation_solution solve_interpolation(const interpolation_problem& problem) {
  constexpr const char* fn = "solve_interpolation";
  check_contraction(fn, problem.contraction);
  check_sensitivities(fn, problem.sensitivities);
  check_nonnegative(fn, "initial_shift", problem.initial_shift);
  return solve_window(problem.contraction, problem.sensitivities, problem.initial_shift);
}

interpolation_scan best_interpolation(double contraction,
                                      std::span<const double> sensitivities,
                                      double diameter,
                                      double initial_shift,
                                      long long exhaustive_limit) {
  constexpr const char* fn = "best_interpolation";
  check_contraction(fn, contraction);
  check_sensitivities(fn, sensitivities);
  check_nonnegative(fn, "initial_shift", initial_shift);
  if (!(diameter > 0)) throw_domain_error(fn, "diameter", diameter, "> 0 (inf: unconstrained)");
  interpolation_scan best;
  static_cast<interpolation_solution&>(best) =
      solve_window(contraction, sensitivities, initial_shift);
  best.tau = 0;
  best.start_shift = initial_shift;
  if (!std::isfinite(diameter)) return best;
  const std::size_t t = sensitivities.size();
  auto consider = [&](std::size_t tau) -> double {
    if (tau == 0 && diameter >= initial_shift) return INFINITY;  // dominated by z_0
    interpolation_solution s = solve_window(contraction, sensitivities.subspan(tau), diameter);
    const double v = s.value;
    if (v < best.value) {
      static_cast<interpolation_solution&>(best) = std::move(s);
      best.tau = static_cast<long long>(tau);
      best.start_shift = diameter;
    }
    return v;
  };
  if (static_cast<long long>(t) <= exhaustive_limit) {
    for (std::size_t tau = 0; tau < t; ++tau) consider(tau);
    return best;
  }
  // Golden section on τ ∈ [1, t − 1]: O(t log t) instead of O(t²) for long runs.
  best.exhaustive = false;
  constexpr double invphi = 0.6180339887498949;
  auto step = [&](std::size_t lo, std::size_t hi) {
    return static_cast<std::size_t>(std::llround(invphi * static_cast<double>(hi - lo)));
  };
  std::size_t a = 1, b = t - 1;
  while (b - a > 4) {
    const std::size_t c = b - step(a, b);
    std::size_t d = a + step(a, b);
    if (c >= d) d = c + 1;
    if (consider(c) <= consider(d))
      b = d;
    else
      a = c;
  }
  for (std::size_t tau = a; tau <= b; ++tau) consider(tau);
  return best;
}

}  // namespace dpkit::shifted

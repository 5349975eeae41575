#include "dpkit/shifted/interpolation.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "dpkit/core/check.hpp"
#include "dpkit/core/integer_search.hpp"

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

// Per-step data of a window: contraction c_j and noise scale σ_j of step j. An empty span means
// "the same for every step", and the constant is held by value: a view must never point at a
// caller's by-value parameter or local (it did once — `checked_steps` returned a span of its own
// `double contraction`, dead after the return, and the -O3 build under-reported μ threefold).
// The spans view vectors of the caller's interpolation_problem, which outlives every use.
struct steps_view {
  std::span<const double> c, sigma;  ///< per step; empty: c_constant / sigma_constant
  double c_constant = 1, sigma_constant = 1;
  [[nodiscard]] double c_at(std::size_t j) const { return c.empty() ? c_constant : c[j]; }
  [[nodiscard]] double sigma_at(std::size_t j) const {
    return sigma.empty() ? sigma_constant : sigma[j];
  }
};

// The window solver without argument checks (best_interpolation calls it O(t) times).
//
// Steps j = 1..n with z_j = c_j z_{j−1} + s_j − a_j and cost Σ a_j²/σ_j². With the suffix
// products Q_j = Π_{i>j} c_i (Q_n = 1), Q_j z_j = Q_0 z_0 + Σ_{i≤j} Q_i (s_i − a_i), so z_j ≥ 0
// reads W_j := Σ_{i≤j} w_i ≤ Ĉ_j := Q_0 z_0 + Σ_{i≤j} Q_i s_i with w_i = Q_i a_i, and the cost
// is Σ w_i²/ρ_i with ρ_i = Q_i² σ_i². The optimal W is the lower convex hull of (0, 0) and
// (R_j, Ĉ_j), R_j = Σ_{i≤j} ρ_i (header comment); on a hull segment of slope g,
// a_i = g ρ_i / Q_i = g Q_i σ_i². Constant c and σ = 1 give the header's ρ_j = c^{2(n−j)}.
// Suffix products are taken from the end, so nothing overflows; for c < 1 and long windows the
// early ρ_j underflow to 0, which only makes early a_j tiny, as they are at the optimum.
interpolation_solution solve_window(const steps_view& st, std::span<const double> s, double z0) {
  const std::size_t n = s.size();
  std::vector<double> Q(n + 1);  // Q[j] = Π_{i=j+1..n} c_i
  Q[n] = 1;
  for (std::size_t j = n; j >= 1; --j) Q[j - 1] = Q[j] * st.c_at(j - 1);
  std::vector<double> R(n + 1, 0.0), C(n + 1, 0.0), rho(n + 1, 0.0);
  double r = 0, cum = Q[0] * z0;
  for (std::size_t j = 1; j <= n; ++j) {
    const double sg = st.sigma_at(j - 1);
    rho[j] = Q[j] * Q[j] * sg * sg;
    r += rho[j];
    cum += Q[j] * s[j - 1];
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
    for (std::size_t j = p + 1; j <= q; ++j) {
      const double sg = st.sigma_at(j - 1);
      sol.a[j - 1] = slope * Q[j] * sg * sg;
    }
  }
  // Shifts and interpolation weights from the recursion z_j = c_j z_{j−1} + s_j − a_j.
  sol.z.assign(n + 1, 0.0);
  sol.lambda.assign(n, 1.0);
  sol.z[0] = z0;
  double value = 0;
  for (std::size_t j = 1; j <= n; ++j) {
    const double inflow = st.c_at(j - 1) * sol.z[j - 1] + s[j - 1];
    double a = sol.a[j - 1];
    // Rounding can leave a_j a few ulp above the inflow, or z_n a few ulp from 0: clamp, so the
    // returned triple satisfies the recursion with z ≥ 0 and z_t = 0 exactly.
    if (j == n || a > inflow) a = inflow;
    sol.a[j - 1] = a;
    sol.z[j] = j == n ? 0.0 : inflow - a;
    sol.lambda[j - 1] = inflow > 0 ? a / inflow : 1.0;
    const double sg = st.sigma_at(j - 1);
    value += a * a / (sg * sg);
  }
  sol.lambda[n - 1] = 1.0;
  sol.value = value;
  sol.evaluations = static_cast<int>(n);
  return sol;
}

}  // namespace

namespace {

// Checks the optional per-step vectors of a problem and returns the view of its steps.
steps_view checked_steps(const char* fn,
                         double contraction,
                         const std::vector<double>& contractions,
                         const std::vector<double>& noise,
                         std::size_t n) {
  steps_view st{{}, {}, contraction, 1.0};
  if (!contractions.empty()) {
    if (contractions.size() != n)
      throw_domain_error(fn, "contractions.size()",
                         format_value(static_cast<long long>(contractions.size())),
                         "sensitivities.size() = " + format_value(static_cast<long long>(n)));
    for (std::size_t k = 0; k < n; ++k)
      if (!(contractions[k] > 0 && contractions[k] <= 1))
        throw_domain_error(fn, "contractions[" + std::to_string(k) + "]", contractions[k],
                           "in (0, 1]");
    st.c = contractions;
  } else {
    check_contraction(fn, contraction);
  }
  if (!noise.empty()) {
    if (noise.size() != n)
      throw_domain_error(fn, "noise.size()", format_value(static_cast<long long>(noise.size())),
                         "sensitivities.size() = " + format_value(static_cast<long long>(n)));
    for (std::size_t k = 0; k < n; ++k)
      check_positive(fn, "noise[" + std::to_string(k) + "]", noise[k]);
    st.sigma = noise;
  }
  return st;
}

steps_view tail(const steps_view& st, std::size_t tau) {
  return {st.c.empty() ? st.c : st.c.subspan(tau),
          st.sigma.empty() ? st.sigma : st.sigma.subspan(tau), st.c_constant, st.sigma_constant};
}

interpolation_scan scan(const steps_view& st,
                        std::span<const double> sensitivities,
                        double diameter,
                        double initial_shift,
                        long long exhaustive_limit) {
  interpolation_scan best;
  static_cast<interpolation_solution&>(best) = solve_window(st, sensitivities, initial_shift);
  best.tau = 0;
  best.start_shift = initial_shift;
  if (!std::isfinite(diameter)) return best;
  const std::size_t t = sensitivities.size();
  auto consider = [&](std::size_t tau) -> double {
    if (tau == 0 && diameter >= initial_shift) return INFINITY;  // dominated by z_0
    interpolation_solution s = solve_window(tail(st, tau), sensitivities.subspan(tau), diameter);
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
  const auto [a, b] = golden_section_bracket(
      [&](long long tau) { return consider(static_cast<std::size_t>(tau)); }, 1,
      static_cast<long long>(t) - 1);
  for (long long tau = a; tau <= b; ++tau) consider(static_cast<std::size_t>(tau));
  return best;
}

}  // namespace

interpolation_solution solve_interpolation(const interpolation_problem& problem) {
  constexpr const char* fn = "solve_interpolation";
  check_sensitivities(fn, problem.sensitivities);
  check_nonnegative(fn, "initial_shift", problem.initial_shift);
  const steps_view st = checked_steps(fn, problem.contraction, problem.contractions, problem.noise,
                                      problem.sensitivities.size());
  return solve_window(st, problem.sensitivities, problem.initial_shift);
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
  return scan(steps_view{{}, {}, contraction, 1.0}, sensitivities, diameter, initial_shift,
              exhaustive_limit);
}

interpolation_scan best_interpolation(const interpolation_problem& problem,
                                      double diameter,
                                      long long exhaustive_limit) {
  constexpr const char* fn = "best_interpolation";
  check_sensitivities(fn, problem.sensitivities);
  check_nonnegative(fn, "initial_shift", problem.initial_shift);
  if (!(diameter > 0)) throw_domain_error(fn, "diameter", diameter, "> 0 (inf: unconstrained)");
  const steps_view st = checked_steps(fn, problem.contraction, problem.contractions, problem.noise,
                                      problem.sensitivities.size());
  return scan(st, problem.sensitivities, diameter, problem.initial_shift, exhaustive_limit);
}

}  // namespace dpkit::shifted

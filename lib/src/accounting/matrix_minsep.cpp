// The sensitivity of a strategy under jax_privacy's participation schema: any steps at least b
// apart, at most k of them (accounting/matrix_mechanism.hpp, min_separation_sensitivity).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "dpkit/accounting/matrix_mechanism.hpp"
#include "dpkit/core/check.hpp"
#include "detail/outward.hpp"

namespace dpkit::accounting {
namespace {

// max Σ_{t∈S} w_t over S ⊂ [0, T) with gaps ≥ b and |S| ≤ k (w_t ≥ 0), and one maximiser: the
// dynamic programme of Choquette-Choo et al. 2023 (their VecSens), written out here:
// F_j(i) = max(w_i + F_{j−1}(i + b), F_j(i + 1)), over j = 1..k with two rows of length T + b.
// Where k ≥ ⌈T/b⌉ the cap never binds and one row suffices.
struct selection {
  double value = 0;
  std::vector<long long> steps;
};
selection best_selection(const std::vector<double>& w, long long b, long long k) {
  const auto t = static_cast<long long>(w.size());
  const long long fit = (t + b - 1) / b;
  selection out;
  if (k >= fit) {
    std::vector<double> f(static_cast<std::size_t>(t + b), 0.0);
    std::vector<char> take(static_cast<std::size_t>(t), 0);
    for (long long i = t - 1; i >= 0; --i) {
      const double with = w[static_cast<std::size_t>(i)] + f[static_cast<std::size_t>(i + b)];
      const double without = f[static_cast<std::size_t>(i + 1)];
      take[static_cast<std::size_t>(i)] = with >= without ? 1 : 0;
      f[static_cast<std::size_t>(i)] = std::max(with, without);
    }
    out.value = f[0];
    for (long long i = 0; i < t;) {
      if (take[static_cast<std::size_t>(i)] != 0) {
        out.steps.push_back(i);
        i += b;
      } else {
        ++i;
      }
    }
    return out;
  }
  // F_j for j = 0..k; the choices kept as bits (T·k of them).
  std::vector<double> prev(static_cast<std::size_t>(t + b), 0.0), cur(prev.size(), 0.0);
  std::vector<bool> take(static_cast<std::size_t>(t * k), false);
  for (long long j = 1; j <= k; ++j) {
    std::fill(cur.begin(), cur.end(), 0.0);
    for (long long i = t - 1; i >= 0; --i) {
      const double with = w[static_cast<std::size_t>(i)] + prev[static_cast<std::size_t>(i + b)];
      const double without = cur[static_cast<std::size_t>(i + 1)];
      take[static_cast<std::size_t>((j - 1) * t + i)] = with >= without;
      cur[static_cast<std::size_t>(i)] = std::max(with, without);
    }
    std::swap(prev, cur);
  }
  out.value = prev[0];
  for (long long i = 0, j = k; i < t && j > 0;) {
    if (take[static_cast<std::size_t>((j - 1) * t + i)]) {
      out.steps.push_back(i);
      i += b;
      --j;
    } else {
      ++i;
    }
  }
  return out;
}

Eigen::MatrixXd dense_of(const strategy& c, long long steps) {
  const auto n = static_cast<Eigen::Index>(steps);
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
  if (c.is_toeplitz()) {
    const std::vector<double> coef = c.coefficients(steps);
    for (std::size_t k = 0; k < coef.size(); ++k)
      for (Eigen::Index r = static_cast<Eigen::Index>(k); r < n; ++r)
        m(r, r - static_cast<Eigen::Index>(k)) = coef[k];
  } else {
    for (Eigen::Index r = 0; r < n; ++r)
      for (Eigen::Index k = 0; k <= r; ++k) m(r, k) = c.entry(steps, r, k);
  }
  return m;
}

}  // namespace

sensitivity_bracket min_separation_sensitivity(const strategy& c,
                                               long long steps,
                                               long long min_separation,
                                               long long max_participations) {
  constexpr const char* kFn = "min_separation_sensitivity";
  c.check_steps(kFn, steps);
  check_at_least(kFn, "min_separation", min_separation, 1);
  check_at_least(kFn, "max_participations", max_participations, 0);
  const long long b = min_separation;
  const long long fit = (steps + b - 1) / b;
  const long long k = max_participations == 0 ? fit : std::min(max_participations, fit);
  if (static_cast<double>(steps) * static_cast<double>(k) > 4e9)
    throw_domain_error(kFn, "steps x participations",
                       static_cast<double>(steps) * static_cast<double>(k),
                       "<= 4e9 (the search costs that many steps)");
  sensitivity_bracket out;
  out.worst_group = -1;
  const bool orthogonal = c.bands(steps) <= b;
  const auto terms = static_cast<double>(steps + k);
  // C[r][t], with a Toeplitz strategy's coefficients formed once (strategy::entry forms them per
  // call).
  const std::vector<double> coef = c.is_toeplitz() ? c.coefficients(steps) : std::vector<double>{};
  auto entry = [&](long long r, long long t) {
    if (t > r) return 0.0;
    if (!c.is_toeplitz()) return c.entry(steps, r, t);
    const auto d = static_cast<std::size_t>(r - t);
    return d < coef.size() ? coef[d] : 0.0;
  };
  if (orthogonal) {
    // Steps b apart touch disjoint rows: Δ² = Σ_{t∈S} ‖C[:, t]‖², maximised exactly.
    std::vector<double> norms(static_cast<std::size_t>(steps), 0.0);
    for (long long t = 0; t < steps; ++t)
      for (long long r = t; r < std::min(steps, t + b); ++r) {
        const double x = entry(r, t);
        norms[static_cast<std::size_t>(t)] += x * x;
      }
    const selection s = best_selection(norms, b, k);
    out.lower = detail::padded_down(std::sqrt(s.value), terms);
    out.upper = detail::padded_up(std::sqrt(s.value), terms);
    out.exact = true;
    out.participations = static_cast<long long>(s.steps.size());
    out.method = "exact: at most " + std::to_string(b) +
                 " bands, so steps b apart have orthogonal columns (largest sum of squared "
                 "column norms over the patterns)";
    return out;
  }
  // ‖C·1_S‖ for a pattern S: a lower bound (attained by the same unit gradient at its steps).
  auto pattern_norm = [&](const std::vector<long long>& s) {
    std::vector<double> z(static_cast<std::size_t>(steps), 0.0);
    for (long long t : s)
      for (long long r = t; r < steps; ++r) z[static_cast<std::size_t>(r)] += entry(r, t);
    double sum = 0;
    for (double x : z) sum += x * x;
    return std::sqrt(sum);
  };
  if (c.is_toeplitz()) {
    bool monotone = coef[0] >= 0;
    for (std::size_t j = 1; j < coef.size(); ++j)
      monotone = monotone && coef[j] >= 0 && coef[j] <= coef[j - 1];
    if (monotone) {
      // Nonnegative, nonincreasing coefficients: (CᵀC)_{st} (s ≤ t) = Σ_{j < T−t} c_j c_{j+t−s}
      // only shrinks as the lag t − s or the later step t grows, and any pattern s_1 < … < s_m
      // (gaps ≥ b) has lags ≥ those of 0, b, …, (m − 1)b and later steps: entrywise, its Gram
      // block is at most that of the earliest evenly spaced pattern, and with all entries ≥ 0
      // equal gradients are worst. So Δ = ‖C·1_S‖, S = {0, b, …, (k − 1)b} (as jax_privacy's
      // Toeplitz sensitivity uses, after Kalinin & Lampert 2024).
      std::vector<long long> s;
      for (long long j = 0; j < k; ++j) s.push_back(j * b);
      const double v = pattern_norm(s);
      out.lower = detail::padded_down(v, terms);
      out.upper = detail::padded_up(v, terms);
      out.exact = true;
      out.participations = k;
      out.method = "exact: nonnegative nonincreasing Toeplitz coefficients, so the earliest steps "
                   "b apart are worst";
      return out;
    }
  }
  // General C: Σ_{s,t∈S} |(CᵀC)_{st}| ≤ Σ_{s∈S} r_s ≤ max_S Σ_{s∈S} r_s, r_s the best pattern sum
  // of row s of |CᵀC| (jax_privacy's bound, after Choquette-Choo et al. 2023), where the T row
  // searches are affordable; the triangle inequality Σ_{t∈S}‖C[:, t]‖ otherwise. The lower bound
  // is the better of the maximising pattern and the earliest evenly spaced one.
  std::vector<long long> earliest;
  for (long long j = 0; j < k; ++j) earliest.push_back(j * b);
  const bool afford = steps <= 4096 && static_cast<double>(steps) * static_cast<double>(steps) *
                                               static_cast<double>(k) <= 4e9;
  std::vector<long long> chosen;
  if (afford) {
    const Eigen::MatrixXd cm = dense_of(c, steps);
    const Eigen::MatrixXd m = (cm.transpose() * cm).cwiseAbs();
    std::vector<double> row(static_cast<std::size_t>(steps)), best(static_cast<std::size_t>(steps));
    bool nonnegative = (cm.array() >= 0).all();
    for (long long s = 0; s < steps; ++s) {
      for (long long t = 0; t < steps; ++t) row[static_cast<std::size_t>(t)] = m(s, t);
      best[static_cast<std::size_t>(s)] = best_selection(row, b, k).value;
    }
    const selection outer = best_selection(best, b, k);
    chosen = outer.steps;
    out.upper = detail::padded_up(std::sqrt(outer.value), static_cast<double>(3 * steps));
    out.method = std::string("upper: the best pattern sum of each row of ") +
                 (nonnegative ? "C^T C" : "|C^T C|") + ", maximised over the patterns";
  } else {
    std::vector<double> norms(static_cast<std::size_t>(steps));
    for (long long t = 0; t < steps; ++t) {
      double sum = 0;
      for (long long r = t; r < steps; ++r) sum += entry(r, t) * entry(r, t);
      norms[static_cast<std::size_t>(t)] = std::sqrt(sum);
    }
    const selection s = best_selection(norms, b, k);
    chosen = s.steps;
    out.upper = detail::padded_up(s.value, terms);
    out.method = "upper: the largest sum of column norms over the patterns (triangle inequality)";
  }
  const double a = pattern_norm(chosen), e = pattern_norm(earliest);
  out.lower = detail::padded_down(std::max(a, e), terms);
  out.participations = static_cast<long long>(a >= e ? chosen.size() : earliest.size());
  out.upper = std::max(out.upper, out.lower);
  out.exact = false;
  return out;
}

}  // namespace dpkit::accounting

// Matrix-factorization mechanisms: sensitivity under cyclic participation, the reduction to
// training runs, and the certified (ε, δ) and noise (accounting/matrix_mechanism.hpp).
#include "dpkit/accounting/matrix_mechanism.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "dpkit/core/check.hpp"
#include "dpkit/core/roots.hpp"
#include "detail/outward.hpp"
#include "detail/strategy_entries.hpp"
#include "detail/projected_pair.hpp"

namespace dpkit::accounting {
namespace {

// Sums of `terms` terms, rounded outward (detail/outward.hpp).
double padded_up(double x, std::size_t terms) {
  return detail::padded_up(x, static_cast<double>(terms));
}
double padded_down(double x, std::size_t terms) {
  return detail::padded_down(x, static_cast<double>(terms));
}

// The pieces of C the sensitivity needs, for T steps.
struct columns : detail::strategy_entries {
  const strategy& c;
  std::vector<double> squares;  // squares[k] = Σ_{j<k} c_j² (Toeplitz kinds)

  columns(const strategy& s, long long t) : detail::strategy_entries(s, t), c(s) {
    if (s.is_toeplitz()) {
      squares.assign(coef.size() + 1, 0.0);
      for (std::size_t k = 0; k < coef.size(); ++k) squares[k + 1] = squares[k] + coef[k] * coef[k];
    }
  }
  // ‖C[:, j]‖² and the number of its (possibly) nonzero terms.
  [[nodiscard]] double norm2(long long j, std::size_t* terms = nullptr) const {
    if (!dense.empty()) {
      double s = 0;
      for (long long r = j; r < steps; ++r) s += at(r, j) * at(r, j);
      if (terms) *terms = static_cast<std::size_t>(steps - j);
      return s;
    }
    const std::size_t n = std::min(coef.size(), static_cast<std::size_t>(steps - j));
    if (terms) *terms = n;
    return squares[n];
  }
  [[nodiscard]] bool nonnegative() const {
    const std::vector<double>& v = dense.empty() ? coef : dense;
    return std::all_of(v.begin(), v.end(), [](double x) { return x >= 0; });
  }
  // (CᵀC)_{st}, s ≤ t: Σ_{r ≥ t} C[r][s]·C[r][t].
  [[nodiscard]] double gram(long long s, long long t) const {
    double sum = 0;
    if (!dense.empty()) {
      for (long long r = t; r < steps; ++r) sum += at(r, s) * at(r, t);
      return sum;
    }
    const auto lag = static_cast<std::size_t>(t - s);
    if (lag >= coef.size()) return 0;
    const std::size_t n = std::min(coef.size() - lag, static_cast<std::size_t>(steps - t));
    for (std::size_t j = 0; j < n; ++j) sum += coef[j + lag] * coef[j];
    return sum;
  }
  // ‖v‖ for Cᵀv = 1_S, S = {i, i + b, …} ∩ [0, T): back substitution, Cᵀ upper-triangular.
  [[nodiscard]] double projection_norm(long long i, long long b) const {
    std::vector<double> v(static_cast<std::size_t>(steps), 0.0);
    for (long long r = steps - 1; r >= 0; --r) {
      double w = (r >= i && (r - i) % b == 0) ? 1.0 : 0.0;
      if (dense.empty()) {
        for (std::size_t j = 1; j < coef.size() && r + static_cast<long long>(j) < steps; ++j)
          w -= coef[j] * v[static_cast<std::size_t>(r) + j];
      } else {
        for (long long k = r + 1; k < steps; ++k) w -= at(k, r) * v[static_cast<std::size_t>(k)];
      }
      v[static_cast<std::size_t>(r)] = w / at(r, r);
    }
    double sum = 0;
    for (double x : v) sum += x * x;
    return std::sqrt(sum);
  }
  // ‖C·1_S‖², S = {i, i + b, …} ∩ [0, T).
  [[nodiscard]] double group_norm2(long long i, long long b) const {
    std::vector<double> z(static_cast<std::size_t>(steps), 0.0);
    if (dense.empty()) {
      // z_r = c_{r−i} + z_{r−b} (r ≥ i): the group's columns are shifts of one another.
      for (long long r = i; r < steps; ++r) {
        const auto d = static_cast<std::size_t>(r - i);
        z[static_cast<std::size_t>(r)] =
            (d < coef.size() ? coef[d] : 0.0) + (r - b >= i ? z[static_cast<std::size_t>(r - b)] : 0.0);
      }
    } else {
      for (long long s = i; s < steps; s += b)
        for (long long r = s; r < steps; ++r) z[static_cast<std::size_t>(r)] += at(r, s);
    }
    double sum = 0;
    for (double x : z) sum += x * x;
    return sum;
  }
};

// Six significant digits, for the sentences people read (the numbers themselves are fields).
std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

long long group_size(long long steps, long long i, long long b) { return (steps - i + b - 1) / b; }

training_phase poisson_phase(double sigma, double q, long long steps) {
  training_phase p;
  p.noise_multiplier = sigma;
  p.sampling_rate = q;
  p.steps = steps;
  return p;
}

// σ/Δ as a phase's noise multiplier, refused in the user's words where it leaves the accountants'
// range.
double effective_sigma(std::string_view function, double sigma, double sensitivity) {
  const double e = sigma / sensitivity;
  if (!(std::isfinite(e) && e >= kSmallestNoiseMultiplier))
    throw_domain_error(function, "the noise multiplier over the strategy's sensitivity", e,
                       "finite and >= 1e-100 (rescale the strategy)");
  return e;
}

// The Gaussian route's runs: one Gaussian mechanism at σ over each end of Δ's bracket (the lower
// run is the upper one where the ends coincide).
void gaussian_runs(matrix_mechanism_reduction& out, std::string_view function, double sigma) {
  out.route = "gaussian";
  out.upper.phases = {poisson_phase(effective_sigma(function, sigma, out.sensitivity.upper), 1.0, 1)};
  if (out.sensitivity.upper == out.sensitivity.lower) {
    out.lower = out.upper;
    return;
  }
  training_run lower;
  lower.phases.push_back(
      poisson_phase(effective_sigma(function, sigma, out.sensitivity.lower), 1.0, 1));
  out.lower = std::move(lower);
}

}  // namespace

void participation::validate(std::string_view function) const {
  check_at_least(function, "min_separation", min_separation, 1);
  if (!(sampling_rate >= kSmallestSamplingRate && sampling_rate <= 1))
    throw_domain_error(function, "sampling_rate", sampling_rate, "in (0, 1]");
  check_at_least(function, "max_participations", max_participations, 0);
  if (max_participations > 0 && sampling_rate != 1)
    throw_domain_error(function, "sampling_rate", sampling_rate,
                       "1 with max_participations (a pattern of steps b apart is accounted "
                       "without sampling)");
}

long long amplified_rounds(long long steps, long long min_separation) {
  check_at_least("amplified_rounds", "steps", steps, 1);
  check_at_least("amplified_rounds", "min_separation", min_separation, 1);
  return steps / min_separation + (steps % min_separation != 0 ? 1 : 0);
}

sensitivity_bracket strategy_sensitivity(const strategy& c, long long steps, long long b) {
  constexpr const char* kFn = "strategy_sensitivity";
  c.check_steps(kFn, steps);
  check_at_least(kFn, "min_separation", b, 1);
  const columns cols(c, steps);
  const long long groups = std::min(b, steps);
  const bool orthogonal = c.bands(steps) <= b;
  sensitivity_bracket out;
  double best_lower = -1;
  // Toeplitz: group i's vector C·1_{S_i} is group 0's shifted by i and cut at T, so group 0 has
  // the largest ‖C·1_S‖ (and, its columns being the longest, the largest Σ‖C[:, t]‖ too).
  const long long lower_groups = c.is_toeplitz() ? 1 : groups;
  std::vector<double> lower_of(static_cast<std::size_t>(groups), 0.0);
  for (long long i = 0; i < lower_groups; ++i) {
    double v = 0;
    std::size_t terms = 0;
    if (orthogonal) {
      for (long long s = i; s < steps; s += b) {
        std::size_t n = 0;
        v += cols.norm2(s, &n);
        terms += n;
      }
    } else {
      v = cols.group_norm2(i, b);
      // each z_r sums at most |S| terms, then T squares are summed
      terms = static_cast<std::size_t>(steps + group_size(steps, i, b));
    }
    lower_of[static_cast<std::size_t>(i)] = padded_down(std::sqrt(v), terms);
    if (v > best_lower) {
      best_lower = v;
      out.worst_group = i;
      out.lower = padded_down(std::sqrt(v), terms);
      out.upper = padded_up(std::sqrt(v), terms);
      out.participations = group_size(steps, i, b);
    }
  }
  if (orthogonal) {
    out.exact = true;
    out.method = "exact: at most " + std::to_string(b) +
                 " bands, so one group's columns are orthogonal (sum of squared column norms)";
    return out;
  }
  if (cols.nonnegative()) {
    out.exact = true;
    out.method = "exact: C has no negative entry, so equal gradients at every step are worst";
    return out;
  }
  // Mixed signs: per group, the triangle inequality Σ‖C[:, t]‖ and, where affordable,
  // √(Σ_{s,t} |(CᵀC)_{st}|); exact for a group whose Gram entries are all ≥ 0.
  double triangle = 0, gram_bound = 0;
  bool all_gram = true, gram_nonnegative = true;
  double cost = 0;
  for (long long i = 0; i < groups; ++i) {
    const double n = static_cast<double>(group_size(steps, i, b));
    const double per_entry = c.is_toeplitz() ? std::min(static_cast<double>(steps),
                                                         static_cast<double>(cols.coef.size()))
                                             : static_cast<double>(steps);
    cost += n * n * per_entry;
  }
  const bool afford = cost <= 4e8;
  for (long long i = 0; i < groups; ++i) {
    double tri = 0;
    std::size_t terms = 0;
    for (long long s = i; s < steps; s += b) {
      std::size_t n = 0;
      tri += std::sqrt(cols.norm2(s, &n));
      terms += n + 1;
    }
    triangle = std::max(triangle, padded_up(tri, terms));
    if (!afford) {
      all_gram = false;
      continue;
    }
    double g = 0;
    for (long long s = i; s < steps; s += b)
      for (long long t = s; t < steps; t += b) {
        const double m = cols.gram(s, t);
        if (s != t && m < 0) gram_nonnegative = false;
        g += (s == t ? 1.0 : 2.0) * std::abs(m);
      }
    gram_bound = std::max(gram_bound, padded_up(std::sqrt(g), static_cast<std::size_t>(steps) * 2));
    if (!c.is_toeplitz()) {
      // Dense: this group's ‖C·1_S‖ is a lower bound too (already in lower_of).
    }
  }
  if (all_gram && gram_nonnegative) {
    out.exact = true;
    out.method = "exact: (C^T C) has no negative entry between one group's steps";
    return out;
  }
  out.exact = false;
  if (all_gram && gram_bound < triangle) {
    out.upper = gram_bound;
    out.method = "upper: sqrt of the sum of |(C^T C)_st| over one group's steps (mixed signs)";
  } else {
    out.upper = triangle;
    out.method = "upper: the sum of one group's column norms (mixed signs; triangle inequality)";
  }
  out.upper = std::max(out.upper, out.lower);
  return out;
}

matrix_mechanism_reduction reduce_matrix_mechanism(const strategy& c,
                                                   long long steps,
                                                   const participation& p,
                                                   double noise_multiplier) {
  constexpr const char* kFn = "reduce_matrix_mechanism";
  c.check_steps(kFn, steps);
  p.validate(kFn);
  check_positive(kFn, "noise_multiplier", noise_multiplier);
  check_finite(kFn, "noise_multiplier", noise_multiplier);
  const long long b = p.min_separation;
  const double q = p.sampling_rate;
  matrix_mechanism_reduction out;
  if (p.max_participations > 0) {
    out.sensitivity = min_separation_sensitivity(c, steps, b, p.max_participations);
    gaussian_runs(out, kFn, noise_multiplier);
    out.description = "one Gaussian mechanism with sensitivity " +
                      short_number(out.sensitivity.upper) + " over every pattern of at most " +
                      std::to_string(p.max_participations) + " steps " + std::to_string(b) +
                      " apart" + (out.sensitivity.exact ? std::string(" (exact)") : "");
    return out;
  }
  if (q < 1 && c.bands(steps) <= b) {
    out.route = "amplified";
    const columns cols(c, steps);
    out.rounds = amplified_rounds(steps, b);
    // The largest column norm (upper) and the group with the largest Σ of squared norms (lower).
    double largest = 0;
    std::size_t largest_terms = 0;
    double best = -1;
    long long best_group = 0;
    const long long groups = std::min(b, steps);
    for (long long i = 0; i < groups; ++i) {
      double sum = 0;
      for (long long s = i; s < steps; s += b) {
        std::size_t n = 0;
        const double v = cols.norm2(s, &n);
        sum += v;
        if (v > largest) largest = v, largest_terms = n;
      }
      if (sum > best) best = sum, best_group = i;
      if (c.is_toeplitz()) break;  // group 0 has the most and the longest columns
    }
    out.round_sensitivity = padded_up(std::sqrt(largest), largest_terms);
    out.upper.phases.push_back(poisson_phase(
        effective_sigma(kFn, noise_multiplier, out.round_sensitivity), q, out.rounds));
    training_run lower;
    bool same = true;
    for (long long s = best_group; s < steps; s += b) {
      std::size_t n = 0;
      const double v = padded_down(std::sqrt(cols.norm2(s, &n)), n);
      if (v != out.round_sensitivity) same = false;
      const double sigma = effective_sigma(kFn, noise_multiplier, v);
      if (!lower.phases.empty() && lower.phases.back().noise_multiplier == sigma)
        ++lower.phases.back().steps;
      else
        lower.phases.push_back(poisson_phase(sigma, q, 1));
    }
    if (same && group_size(steps, best_group, b) == out.rounds)
      out.lower = out.upper;
    else
      out.lower = std::move(lower);
    out.sensitivity.lower = out.sensitivity.upper = out.round_sensitivity;
    out.sensitivity.exact = true;
    out.sensitivity.worst_group = best_group;
    out.sensitivity.participations = group_size(steps, best_group, b);
    out.sensitivity.method = "each round: its column's norm";
    out.description = std::to_string(out.rounds) + " rounds of the Poisson-subsampled Gaussian " +
                      "(rate " + short_number(q) + ") with sensitivity " +
                      short_number(out.round_sensitivity) + " (CGM+23 Thm 4)";
    return out;
  }
  out.sensitivity = strategy_sensitivity(c, steps, b);
  if (q == 1) {
    gaussian_runs(out, kFn, noise_multiplier);
    out.description = "one Gaussian mechanism with sensitivity " +
                      short_number(out.sensitivity.upper) +
                      (out.sensitivity.exact ? std::string(" (exact)")
                                             : " (at most; at least " +
                                                   short_number(out.sensitivity.lower) + ")");
  } else {
    out.route = "unamplified";
    out.upper.phases.push_back(poisson_phase(
        effective_sigma(kFn, noise_multiplier, out.sensitivity.upper), 1.0, 1));
    const long long g = out.sensitivity.worst_group;
    out.projected_participations = group_size(steps, g, b);
    out.projected_noise = noise_multiplier * columns(c, steps).projection_norm(g, b);
    out.description = "no amplification (C has " + std::to_string(c.bands(steps)) +
                      " bands, more than the min-separation " + std::to_string(b) +
                      "): upper, the Gaussian mechanism with sensitivity " +
                      short_number(out.sensitivity.upper) + "; lower, the count of " +
                      std::to_string(out.projected_participations) +
                      " sampled participations in noise " + short_number(out.projected_noise);
  }
  return out;
}

namespace {

// The bracket from the two runs' answers; `quantity` picks estimate_epsilon or estimate_delta.
template <class Estimate>
matrix_mechanism_privacy bracket(matrix_mechanism_reduction red, Estimate estimate) {
  matrix_mechanism_privacy out;
  out.upper_estimate = estimate(red.upper);
  out.upper = out.upper_estimate.value;
  auto lower_end = [](const privacy_estimate& e) {
    return std::isnan(e.lower) ? e.value : e.lower;  // Gaussian runs are exact (tight)
  };
  if (!red.lower) {
    out.lower = NAN;  // filled by the caller from the projected pair
  } else if (red.lower->phases.size() == red.upper.phases.size() &&
             std::equal(red.lower->phases.begin(), red.lower->phases.end(),
                        red.upper.phases.begin(), [](const training_phase& a, const training_phase& b) {
                          return a.noise_multiplier == b.noise_multiplier &&
                                 a.sampling_rate == b.sampling_rate && a.steps == b.steps;
                        })) {
    out.lower = lower_end(out.upper_estimate);
  } else {
    out.lower_estimate = estimate(*red.lower);
    out.lower = lower_end(*out.lower_estimate);
  }
  out.reduction = std::move(red);
  return out;
}

// The unamplified route's upper end, replaced by the conditional-composition bound where that
// is smaller (route "conditional"); the bound is kept in `conditional` either way.
template <class Bound>
void try_conditional(matrix_mechanism_privacy& out, long long steps, const participation& p,
                     Bound bound) {
  if (out.reduction.route != "unamplified" || steps > kConditionalMaxSteps) return;
  out.conditional = bound();
  const conditional_composition& cc = *out.conditional;
  if (!cc.evaluated || !(cc.value < out.upper)) return;
  out.upper = cc.value;
  // The answer is the conditional bound's now (the unamplified run's estimate is not kept).
  privacy_estimate e;
  e.accountant = accountant_type::pld;
  e.value = e.upper = cc.value;
  e.method = cc.method;
  out.upper_estimate = std::move(e);
  matrix_mechanism_reduction& red = out.reduction;
  red.route = "conditional";
  red.description = "conditional composition (CGST24): each of the " + std::to_string(steps) +
                    " rows dominated by a mixture of Gaussians whose participation "
                    "probabilities are at most " + short_number(cc.largest_inclusion) +
                    " given the rows before (rate " + short_number(p.sampling_rate) +
                    "), outside an event of probability " + short_number(cc.bad_event_probability) +
                    "; lower, the count of " + std::to_string(red.projected_participations) +
                    " sampled participations in noise " + short_number(red.projected_noise);
}

}  // namespace

matrix_mechanism_privacy matrix_mechanism_epsilon(const strategy& c,
                                                  long long steps,
                                                  const participation& p,
                                                  double noise_multiplier,
                                                  double delta,
                                                  const pld_options& options) {
  check_open_probability("matrix_mechanism_epsilon", "delta", delta);
  matrix_mechanism_privacy out =
      bracket(reduce_matrix_mechanism(c, steps, p, noise_multiplier), [&](const training_run& r) {
        return estimate_epsilon(r, delta, accountant_type::pld, options);
      });
  const matrix_mechanism_reduction& red = out.reduction;
  if (red.lower) return out;
  // The projected pair's ε at δ: δ₁ decreases in ε, and at the mechanism's certified upper end
  // δ₁ ≤ δ. The lower end of the final bracket, where δ₁ > δ, is the certified side.
  auto excess = [&](double e) {
    return detail::binomial_gaussian_delta(red.projected_participations, p.sampling_rate,
                                           red.projected_noise, e) - delta;
  };
  auto conditional = [&] {
    return conditional_composition_epsilon(c, steps, p, noise_multiplier, delta, options);
  };
  if (excess(0) <= 0) {
    out.lower = 0;
    try_conditional(out, steps, p, conditional);
    return out;
  }
  double hi = std::isfinite(out.upper) && out.upper > 0 ? out.upper : 1.0;
  for (int j = 0; excess(hi) > 0 && j < 64; ++j) hi *= 2;
  if (excess(hi) > 0) {
    out.lower = hi;  // δ₁ > δ even there: still a lower bound
    try_conditional(out, steps, p, conditional);
    return out;
  }
  root_options o;
  o.absolute_tolerance = 1e-9 * hi;
  const root_result r = find_root(excess, 0.0, hi, o);
  out.lower = std::min(r.lower, out.upper);
  try_conditional(out, steps, p, conditional);
  return out;
}

matrix_mechanism_privacy matrix_mechanism_delta(const strategy& c,
                                                long long steps,
                                                const participation& p,
                                                double noise_multiplier,
                                                double epsilon,
                                                const pld_options& options) {
  check_nonnegative("matrix_mechanism_delta", "epsilon", epsilon);
  check_finite("matrix_mechanism_delta", "epsilon", epsilon);
  matrix_mechanism_privacy out =
      bracket(reduce_matrix_mechanism(c, steps, p, noise_multiplier), [&](const training_run& r) {
        return estimate_delta(r, epsilon, accountant_type::pld, options);
      });
  const matrix_mechanism_reduction& red = out.reduction;
  if (!red.lower) {
    out.lower = std::min(out.upper, detail::binomial_gaussian_delta(red.projected_participations,
                                                                    p.sampling_rate,
                                                                    red.projected_noise, epsilon));
    try_conditional(out, steps, p, [&] {
      // Tried only where it can help: where its ε at the unamplified δ is below ε (one ε query,
      // cheap; a δ query far in the tail of many wide mixtures can take minutes).
      if (out.upper > 0 && out.upper < 1) {
        conditional_composition gate =
            conditional_composition_epsilon(c, steps, p, noise_multiplier, out.upper, options);
        if (!(gate.value < epsilon)) {
          conditional_composition skipped;
          skipped.reason = "its epsilon at the unamplified delta (" + short_number(gate.value) +
                           ") is not below epsilon: no smaller delta to find";
          return skipped;
        }
      }
      return conditional_composition_delta(c, steps, p, noise_multiplier, epsilon, options);
    });
  }
  return out;
}

namespace {

// Where conditional composition certifies less than the target at the unamplified calibration's
// σ, a smaller σ may do: bisection on σ between a σ where its bound is above the target and
// the smallest certified one, to 0.1 % (the bound's own resolution is ~1 %; each evaluation is
// one conditional_composition_epsilon). Every σ kept is certified by its own evaluation.
void calibrate_conditional(matrix_mechanism_noise& out, const strategy& c, long long steps,
                           const participation& p, double target, double delta,
                           const calibration_options& options) {
  auto bound = [&](double s) {
    return conditional_composition_epsilon(c, steps, p, s, delta, options.pld).value;
  };
  double hi = out.noise_multiplier, lo = hi;
  bool found_lo = false;
  for (int k = 0; k < 40 && !found_lo; ++k) {
    lo /= 2;
    const double e = bound(lo);
    if (e <= target) hi = lo;
    else found_lo = true;
  }
  for (int k = 0; found_lo && k < 30 && hi > lo * (1 + 1e-3); ++k) {
    const double mid = std::sqrt(lo * hi);
    (bound(mid) <= target ? hi : lo) = mid;
  }
  if (!(hi < out.noise_multiplier)) return;
  out.noise_multiplier = hi;
  out.privacy = matrix_mechanism_epsilon(c, steps, p, hi, delta, options.pld);
  const double unused = 1 - out.privacy.upper / target;
  if (unused <= options.budget_tolerance) {
    out.termination = termination_type::converged;
    out.message.clear();
  } else {
    out.termination = termination_type::max_iterations;
    out.message = "the noise multiplier is bracketed to 0.1 % on the conditional-composition "
                  "bound, whose certified epsilon there leaves " + short_number(100 * unused) +
                  " % of the budget unused";
  }
}

}  // namespace

matrix_mechanism_noise matrix_mechanism_calibrate(const strategy& c,
                                                  long long steps,
                                                  const participation& p,
                                                  double target_epsilon,
                                                  double delta,
                                                  const calibration_options& options) {
  // The upper run at σ = 1 has every phase at 1/s (one sensitivity s); its σ scales with s.
  const matrix_mechanism_reduction unit = reduce_matrix_mechanism(c, steps, p, 1.0);
  const double s = unit.route == "amplified" ? unit.round_sensitivity : unit.sensitivity.upper;
  training_run run = unit.upper;
  const noise_calibration cal = calibrate_noise_multiplier(run, target_epsilon, delta, options);
  matrix_mechanism_noise out;
  static_cast<solver_status&>(out) = cal;
  if (!std::isfinite(cal.noise_multiplier)) return out;
  // σ with σ/s ≥ the calibrated σ_eff: the certified run is at least as noisy.
  double sigma = cal.noise_multiplier * s;
  while (sigma / s < cal.noise_multiplier) sigma = std::nextafter(sigma, INFINITY);
  out.noise_multiplier = sigma;
  out.privacy = matrix_mechanism_epsilon(c, steps, p, sigma, delta, options.pld);
  // The upper end is the calibration's own certified answer (within budget_tolerance below the
  // target; a fresh evaluation's grid may differ): the run at σ is at least as noisy as the one
  // it certified. The lower end is the fresh evaluation's (a lower bound whatever the grid).
  out.privacy.upper = cal.estimate.value;
  out.privacy.upper_estimate = cal.estimate;
  out.privacy.lower = std::min(out.privacy.lower, out.privacy.upper);
  if (out.privacy.reduction.route == "conditional")
    calibrate_conditional(out, c, steps, p, target_epsilon, delta, options);
  return out;
}

}  // namespace dpkit::accounting

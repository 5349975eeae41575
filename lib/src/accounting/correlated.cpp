#include "dpkit/accounting/correlated.hpp"

#include <boost/math/distributions/binomial.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/log_space.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/core/roots.hpp"
#include "dpkit/core/tolerance.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "dpkit/divergence/rdp.hpp"
#include "detail/projected_pair.hpp"
#include "dpkit/subsampling/subsampled_rdp.hpp"

namespace dpkit::accounting {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// eq. (19)'s κ → ∞ limit to double precision: its certified ε no longer falls beyond (the j ≥ 3
// terms 2q^j·C(α, j) do not vanish).
constexpr double kLargestEq19Kappa = 1e150;
// gdp.hpp supports μ ≤ 1e6; beyond, h_ε(μ) is replaced by its upper bound 1.
constexpr double kMaxMu = divergence::kLargestGdpMu;
// Relative padding of the Boost.Math binomial tails before they enter δ' = (δ − F̄)/(1 − F̄):
// their measured error is ≤ 1e-13 against the 50-digit references
// (data/reference/correlated_binomial_tail.csv, lib/tests/accounting/correlated_test.cpp).
constexpr double kTailPadding = 1e-12;

void check_setting_budget(std::string_view fn,
                          const correlated_setting& s,
                          double epsilon,
                          double delta) {
  s.validate(fn);
  check_positive(fn, "epsilon", epsilon);
  check_open_probability(fn, "delta", delta);
}

// a_t = (1 − λ^t)/(1 − λ) = Σ_{j<t} λ^j, t ≥ 1: row t's sum of C (WSK+26 eq. (25)).
double geometric_sum(double lambda, long long t) {
  if (lambda == 0) return 1.0;
  return -std::expm1(static_cast<double>(t) * std::log(lambda)) / (1 - lambda);
}

// Σ_{j=1}^{m} λ^{2j}, m ≥ 0.
double squared_geometric_tail(double lambda, long long m) {
  if (lambda == 0 || m <= 0) return 0.0;
  return lambda * lambda * -std::expm1(2.0 * static_cast<double>(m) * std::log(lambda)) /
         ((1 - lambda) * (1 + lambda));
}

// Δ_k for non-decreasing k, in O(1) amortised per call (the leading block keeps a prefix sum).
class sensitivity_sequence {
 public:
  sensitivity_sequence(const correlated_setting& s, f9_sensitivity kind, double spectral_norm)
      : lambda_(s.correlation), steps_(s.steps), kind_(kind) {
    factor_ =
        kind == f9_sensitivity::row_sum ? correlation_row_sum(lambda_, steps_) : spectral_norm;
  }
  double operator()(long long k) {
    if (kind_ != f9_sensitivity::leading_block) return factor_ * std::sqrt(static_cast<double>(k));
    while (prefix_k_ < k) {  // Neumaier-compensated: T up to 1e7 terms
      ++prefix_k_;
      const double a = geometric_sum(lambda_, prefix_k_);
      const double term = a * a, sum = prefix_ + term;
      compensation_ += std::abs(prefix_) >= term ? (prefix_ - sum) + term : (term - sum) + prefix_;
      prefix_ = sum;
    }
    if (k == 0) return 0.0;
    const double a_k = geometric_sum(lambda_, k);
    return std::sqrt(prefix_ + compensation_ +
                     a_k * a_k * squared_geometric_tail(lambda_, steps_ - k));
  }

 private:
  double lambda_;
  long long steps_;
  f9_sensitivity kind_;
  double factor_ = NAN;
  long long prefix_k_ = 0;
  double prefix_ = 0, compensation_ = 0;
};

// The smallest k ∈ [0, T] with F̄_k < x (F̄ is non-increasing and F̄_T = 0), for x > 0.
long long first_split_below(const correlated_setting& s, double x) {
  long long lo = 0, hi = s.steps;  // F̄_hi < x
  if (binomial_tail(s.steps, s.sampling_rate, 0) < x) return 0;
  while (hi - lo > 1) {  // F̄_lo ≥ x > F̄_hi
    const long long mid = lo + (hi - lo) / 2;
    (binomial_tail(s.steps, s.sampling_rate, mid) < x ? hi : lo) = mid;
  }
  return hi;
}

// h_ε(μ) (Balle & Wang 2018 Thm 8), replaced by its upper bound 1 beyond gdp.hpp's range.
double hockey_stick(double mu, double epsilon) {
  if (mu == 0) return 0.0;
  if (!(mu <= kMaxMu)) return 1.0;
  // The certified upper end of log δ, rounded up (exp_upper): a δ below the doubles is the
  // smallest positive one, not 0 (gdp_log_delta's point value was -inf or NaN where ε/μ
  // overflows; the bounds give the lowest double there).
  return std::min(exp_upper(divergence::gdp_log_delta_bounds(mu, mu, epsilon).upper), 1.0);
}

struct f9_calibration {
  double kappa = kInf;
  long long split = -1;
  double sensitivity = NAN;
  double tail = NAN;
  int evaluations = 0;
  std::string failure;
};

// min_k κ_k, κ_k = Δ_k/μ_ε((δ − F̄_k)/(1 − F̄_k)) (see the header). k runs upward from the first
// k with F̄_k < δ and stops once Δ_k/μ_ε(δ) — a lower bound on every later κ_j, since Δ is
// non-decreasing and (δ − F̄)/(1 − F̄) ≤ δ — reaches the best κ so far.
f9_calibration calibrate_f9(const correlated_setting& s,
                            double epsilon,
                            double delta,
                            f9_sensitivity kind,
                            double spectral_norm) {
  f9_calibration out;
  sensitivity_sequence delta_k(s, kind, spectral_norm);
  const divergence::calibration_result full = divergence::gdp_mu(epsilon, delta);
  out.evaluations += full.evaluations;
  const double mu_full = full.value;
  for (long long k = first_split_below(s, delta); k <= s.steps; ++k) {
    const double d = delta_k(k);
    if (d == 0) {  // no participation with probability ≥ 1 − δ: no noise is needed
      out.kappa = 0, out.split = k, out.sensitivity = 0;
      out.tail = binomial_tail(s.steps, s.sampling_rate, k);
      break;
    }
    if (d / mu_full >= out.kappa) break;
    const double tail = binomial_tail(s.steps, s.sampling_rate, k);
    const double padded = std::min(tail * (1 + kTailPadding), delta);
    if (!(padded < delta)) continue;
    const double delta_prime = (delta - padded) / (1 - padded);
    const divergence::calibration_result sigma =
        divergence::analytic_gaussian_sigma(epsilon, delta_prime, d);
    out.evaluations += sigma.evaluations;
    if (sigma.termination == termination_type::failure) {
      out.failure =
          "analytic Gaussian calibration failed at k = " + std::to_string(k) + ": " + sigma.message;
      continue;
    }
    if (sigma.value < out.kappa) {
      out.kappa = sigma.value, out.split = k, out.sensitivity = d, out.tail = tail;
    }
  }
  // Δ_k and δ′ carry a few ulps of rounding; move κ that far to the safe side.
  if (out.kappa > 0 && std::isfinite(out.kappa)) out.kappa *= 1 + 8 * tol::kMachineEps;
  return out;
}

std::string holds(bool ok) {
  return ok ? "holds" : "FAILS";
}

std::string label_of(noise_validity v, bool closed_form) {
  switch (v) {
    case noise_validity::valid_upper_bound:
      return closed_form ? "valid upper bound (closed form)" : "valid upper bound (numerical)";
    case noise_validity::conjecture_dependent:
      return "conjecture-dependent bound (numerical)";
    case noise_validity::heuristic:
      return "heuristic closed form (not a proven bound)";
    case noise_validity::outside_conditions:
      return "closed form outside its conditions (no guarantee)";
    case noise_validity::not_applicable:
      return "not applicable (needs correlation 0)";
  }
  return "?";
}

correlated_noise start(correlated_method m) {
  correlated_noise r;
  r.method_id = m;
  r.method = std::string(to_string(m));
  return r;
}

void finish_label(correlated_noise& r) {
  r.label = r.attainable ? label_of(r.validity, r.closed_form)
                         : "no finite kappa (this route cannot certify the budget)";
}

correlated_noise not_applicable(correlated_noise r, const std::string& why) {
  r.validity = noise_validity::not_applicable;
  r.conditions_met = false;
  r.conditions = why;
  r.message = r.method + " is not applicable: " + why;
  finish_label(r);
  return r;
}

std::string fmt(double x) {
  return format_value(x);
}

// ---- Thm F.12 (as stated: constant 8; its proof: constant 2) ----
correlated_noise f12_route(const correlated_setting& s,
                           double epsilon,
                           double delta,
                           correlated_method m) {
  correlated_noise r = start(m);
  const bool stated = m == correlated_method::f12;
  const double c = stated ? 8.0 : 2.0;
  r.closed_form = true;
  r.relation = neighbouring_relation::zero_out;
  r.source = stated ? "WSK+26 Thm F.12 (= Thm 5.1)"
                    : "WSK+26 proof of Thm F.12: classical Gaussian mechanism "
                      "kappa^2 >= Delta^2 2 ln(1.25/delta')/epsilon^2 with delta' = delta/2";
  r.noise_multiplier = f12_noise_multiplier(s, epsilon, delta, c);
  const double rT = s.sampling_rate * static_cast<double>(s.steps);
  const double need = 3 * std::log(2 / delta);
  const bool eps_ok = epsilon <= 1, rt_ok = rT >= need;
  r.conditions_met = eps_ok && rt_ok;
  r.conditions = "epsilon <= 1 " + holds(eps_ok) + "; r T = " + fmt(rT) +
                 " >= 3 ln(2/delta) = " + fmt(need) + " " + holds(rt_ok) + "; delta <= 1 holds";
  // Lemma F.10 with c1 = 1/2: τ = rT + √(3rT ln(2/δ)), Δ₂ = row sum·√τ (Lemma F.11).
  const double tau = rT + std::sqrt(3 * rT * std::log(2 / delta));
  r.split = tau;
  r.sensitivity = correlation_row_sum(s.correlation, s.steps) * std::sqrt(tau);
  r.tail_probability =
      tau >= static_cast<double>(s.steps)
          ? 0.0
          : binomial_tail(s.steps, s.sampling_rate, static_cast<long long>(std::floor(tau)));
  const f9_bound check = f9_delta(s, r.noise_multiplier, epsilon, f9_sensitivity::row_sum);
  r.certified_delta = check.delta;
  r.details = "tau = " + fmt(tau) + "; Delta_2 = " + fmt(r.sensitivity) +
              "; exact P(Bin(T r) > tau) = " + fmt(r.tail_probability) +
              " (Chernoff bound delta/2 = " + fmt(delta / 2) + ")";
  r.validity =
      r.conditions_met ? noise_validity::valid_upper_bound : noise_validity::outside_conditions;
  if (!r.conditions_met)
    r.message = "Thm F.12 does not apply (" + r.conditions + "); Lemma F.9 with exact tails " +
                (check.delta <= delta ? "nevertheless certifies" : "does not certify") +
                " this kappa: delta = " + fmt(check.delta);
  finish_label(r);
  return r;
}

// ---- Lemma F.9 with exact tails and hockey-stick ----
// Lemma F.9's δ at κ with ‖C‖₂ already known (f9_delta computes it; the f9 route has it).
f9_bound f9_delta_given(const correlated_setting& setting,
                        double noise_multiplier,
                        double epsilon,
                        f9_sensitivity sensitivity,
                        double spectral);

correlated_noise f9_route(const correlated_setting& s,
                          double epsilon,
                          double delta,
                          correlated_method m) {
  correlated_noise r = start(m);
  r.relation = neighbouring_relation::zero_out;
  f9_sensitivity kind = f9_sensitivity::spectral;
  if (m == correlated_method::f9_row_sum) kind = f9_sensitivity::row_sum;
  if (m == correlated_method::f9_block) kind = f9_sensitivity::leading_block;
  double spectral = NAN;
  std::string sensitivity_text;
  switch (kind) {
    case f9_sensitivity::row_sum:
      r.source = "WSK+26 Lemma F.9 + Lemma F.11 (row-sum Delta_k); exact tails";
      sensitivity_text = "Delta_k = (1 - lambda^T)/(1 - lambda) sqrt(k)";
      break;
    case f9_sensitivity::spectral: {
      r.source = "WSK+26 Lemma F.9; Delta_k = ||C||_2 sqrt(k); exact tails";
      const spectral_norm_result sn = correlation_spectral_norm(s.correlation, s.steps);
      spectral = sn.value;
      r.evaluations += sn.evaluations;
      sensitivity_text = "Delta_k = ||C||_2 sqrt(k) with ||C||_2 <= " + fmt(spectral) +
                         " (row sum " + fmt(correlation_row_sum(s.correlation, s.steps)) + ")";
      break;
    }
    case f9_sensitivity::leading_block:
      r.source = "WSK+26 Lemma F.9; Delta_k = ||C 1_{1..k}||_2 (leading-block conjecture)";
      sensitivity_text = "Delta_k = ||C (1..1 0..0)||_2 (leading block)";
      break;
  }
  r.conditions = kind == f9_sensitivity::leading_block
                     ? "leading-block maximiser of ||C y||_2 over ||y||_0 <= k (a conjecture, "
                       "checked by brute force for T <= 14; docs/correlated.md)"
                     : "none (Lemma F.9 holds for every event; the exact hockey-stick for every "
                       "epsilon > 0)";
  const f9_calibration c = calibrate_f9(s, epsilon, delta, kind, spectral);
  r.evaluations += c.evaluations;
  if (!std::isfinite(c.kappa)) {
    r.termination = termination_type::failure;
    r.message = "Lemma F.9: no split k gave a finite kappa" +
                (c.failure.empty() ? std::string() : " (" + c.failure + ")");
    r.validity = noise_validity::valid_upper_bound;
    finish_label(r);
    return r;
  }
  r.noise_multiplier = c.kappa;
  r.split = static_cast<double>(c.split);
  r.sensitivity = c.sensitivity;
  r.tail_probability = c.tail;
  r.details = "split k = " + std::to_string(c.split) + " of T = " + std::to_string(s.steps) + "; " +
              sensitivity_text + "; at k: Delta_k = " + fmt(c.sensitivity) +
              " and P(Bin(T r) > k) = " + fmt(c.tail);
  const f9_bound check = f9_delta_given(s, c.kappa, epsilon, kind, spectral);
  r.certified_delta = check.delta;
  r.validity = kind == f9_sensitivity::leading_block ? noise_validity::conjecture_dependent
                                                     : noise_validity::valid_upper_bound;
  if (!(check.delta <= delta * (1 + tol::kTol4))) {
    r.termination = termination_type::failure;
    r.message = "internal check failed: Lemma F.9 at the calibrated kappa gives delta = " +
                fmt(check.delta) + " > " + fmt(delta);
  }
  finish_label(r);
  return r;
}

// ---- λ = 0: the certified PLD accountant, zero-out (Poisson pair) or replace-one ----
correlated_noise pld_route(const correlated_setting& s,
                           double epsilon,
                           double delta,
                           const correlated_options& o,
                           correlated_method m) {
  correlated_noise r = start(m);
  const bool zero_out = m == correlated_method::pld;
  r.relation = zero_out ? neighbouring_relation::zero_out : neighbouring_relation::replace_one;
  r.source = zero_out
                 ? "WSK+26 Thm F.8 at C = I: the Poisson-subsampled Gaussian pair; "
                   "certified PLD accountant (docs/accounting.md)"
                 : "fixed-size batches and replace-one neighbours: one step is C_r(G(2/kappa)) "
                   "(Dong-Roth-Su 2022 (DRS22) Thm 4.2); certified PLD accountant "
                   "(docs/accounting.md); the relation of WSK+26 Thm D.9";
  if (s.correlation != 0)
    return not_applicable(r, zero_out ? "requires correlation = 0 so that C = I"
                                      : "requires correlation = 0: independent noise");
  r.conditions = "correlation = 0 holds";
  training_run run;
  run.phases.push_back({1.0, s.sampling_rate,
                        zero_out ? sampling_scheme::poisson : sampling_scheme::without_replacement,
                        s.steps});
  calibration_options co;
  co.accountant = accountant_type::pld;
  co.pld = o.pld;
  // The noise calibration's own rule (at most budget_tolerance of the budget unused), with a σ
  // bracket at least as narrow as asked.
  co.relative_tolerance = std::min(o.relative_tolerance, co.relative_tolerance);
  const noise_calibration c = calibrate_noise_multiplier(run, epsilon, delta, co);
  r.termination = c.termination;
  r.message = c.message;
  r.evaluations = c.evaluations;
  r.validity = noise_validity::valid_upper_bound;
  if (c.termination != termination_type::failure) {
    r.noise_multiplier = c.noise_multiplier;
    r.noise_multiplier_lower = c.noise_multiplier_lower;
    r.certified_epsilon = c.estimate.value;
    r.details = c.estimate.method + "; certified epsilon_upper = " + fmt(c.estimate.value) +
                " (epsilon_lower " + fmt(c.estimate.lower) + ")";
  }
  finish_label(r);
  return r;
}

// ---- λ = 0: Thm D.9 closed form and its eq. (19) evaluation ----
correlated_noise d9_route(const correlated_setting& s,
                          double epsilon,
                          double delta,
                          const correlated_options& o) {
  correlated_noise r = start(correlated_method::d9);
  r.closed_form = true;
  r.relation = neighbouring_relation::replace_one;
  r.source = "WSK+26 Thm D.9 (= Thm 5.4) with c_sgm = 8 (Lemma D.7)";
  if (s.correlation != 0) return not_applicable(r, "requires correlation = 0: independent noise");
  r.noise_multiplier = d9_noise_multiplier(s, epsilon, delta);
  const bool subsampled = s.sampling_rate < 1;
  r.conditions_met = subsampled;
  r.conditions = "correlation = 0 holds; r < 1 (B < n) " + holds(subsampled) +
                 "; c_sgm = 8 is the leading asymptotic of eq. (19) (Remark D.8)";
  const double paper_alpha = 1 + 2 * std::log(1 / delta) / epsilon;
  // eq. (19)'s ε decreases in κ and reaches its κ → ∞ limit by κ = 1e150 (d9_eq19_route): a
  // larger κ (up to inf, at ε near the smallest double) is checked there, an upper bound on
  // its own ε.
  const eq19_epsilon check =
      d9_eq19_epsilon(s, std::min(r.noise_multiplier, kLargestEq19Kappa), delta, o.max_order);
  r.certified_epsilon = check.epsilon;
  r.alpha = check.alpha;
  const bool sufficient = check.epsilon <= epsilon;
  r.details = "Thm D.9's order alpha = 1 + 2 log(1/delta)/epsilon = " + fmt(paper_alpha) +
              "; eq. (19) + Lemma D.2 give epsilon = " + fmt(check.epsilon) +
              " at alpha = " + fmt(check.alpha) +
              (sufficient ? " <= target: sufficient here" : " > target: NOT certified here");
  r.validity = subsampled ? noise_validity::heuristic : noise_validity::outside_conditions;
  if (!sufficient)
    r.message =
        "the D.9 closed form is not certified by eq. (19) here: epsilon = " + fmt(check.epsilon) +
        " > " + fmt(epsilon);
  finish_label(r);
  return r;
}

correlated_noise d9_eq19_route(const correlated_setting& s,
                               double epsilon,
                               double delta,
                               const correlated_options& o) {
  correlated_noise r = start(correlated_method::d9_eq19);
  r.relation = neighbouring_relation::replace_one;
  r.source =
      "WSK+26 Lemma D.7 eq. (19) (Wang-Balle-Kasiviswanathan 2019 Thm 9) composed over T "
      "(Lemma D.6) and converted by Lemma D.2";
  if (s.correlation != 0) return not_applicable(r, "requires correlation = 0: independent noise");
  r.conditions = "correlation = 0 holds; integer orders 2.." + std::to_string(o.max_order);
  r.validity = noise_validity::valid_upper_bound;
  int evaluations = 0;
  auto excess = [&](double log_kappa) {
    ++evaluations;
    return d9_eq19_epsilon(s, std::exp(log_kappa), delta, o.max_order).epsilon - epsilon;
  };
  // Bracket from the closed form's κ (ε decreases in κ: every term of eq. (19) does).
  const double step = std::log(2.0);
  double x = std::log(std::min(d9_noise_multiplier(s, epsilon, delta), kLargestEq19Kappa));
  const double f0 = excess(x);
  const bool up = f0 > 0;  // budget exceeded: more noise
  // As κ → ∞ the j = 2 term of eq. (19) vanishes but the j ≥ 3 terms tend to 2q^j·C(α, j): the
  // certified ε has a floor. κ = 1e150 is that limit to double precision. Checked before
  // searching upward (the search would otherwise double κ 200 times in vain).
  const eq19_epsilon floor =
      up ? d9_eq19_epsilon(s, kLargestEq19Kappa, delta, o.max_order) : eq19_epsilon{};
  double f = f0;
  if (!(floor.epsilon > epsilon))
    for (int i = 0; i < 200 && (f > 0) == up; ++i) x += up ? step : -step, f = excess(x);
  const double lo = up ? x - step : x, hi = up ? x : x + step;
  if ((f > 0) == up) {
    r.evaluations = evaluations;
    if (floor.epsilon > epsilon) {
      r.attainable = false;
      r.noise_multiplier = kInf;
      r.certified_epsilon = floor.epsilon;
      r.alpha = floor.alpha;
      r.message = "eq. (19) with Lemma D.2 certifies epsilon = " + fmt(epsilon) +
                  " at no kappa: its kappa -> infinity limit is epsilon = " + fmt(floor.epsilon) +
                  " (alpha = " + fmt(floor.alpha) +
                  ": the j >= 3 terms 2 q^j C(alpha, j) do not vanish as kappa grows)";
      r.details = r.message;
    } else {
      r.termination = termination_type::failure;
      r.message = "eq. (19) with Lemma D.2 could not bracket kappa";
    }
    finish_label(r);
    return r;
  }
  root_options ro;
  ro.absolute_tolerance = std::log1p(o.relative_tolerance);
  ro.relative_tolerance = 0;
  ro.max_evaluations = 100;
  const root_result root = find_root(excess, lo, hi, ro);
  const double safe = root.f_upper <= 0 ? root.upper : root.lower;
  const double other = root.f_upper <= 0 ? root.lower : root.upper;
  const eq19_epsilon at = d9_eq19_epsilon(s, std::exp(safe), delta, o.max_order);
  r.termination = root.termination;
  r.message = root.message;
  r.evaluations = evaluations + 1;
  if (root.termination == termination_type::failure || !(at.epsilon <= epsilon)) {
    r.termination = termination_type::failure;
    if (r.message.empty()) r.message = "eq. (19): the safe end does not meet the budget";
  } else {
    r.noise_multiplier = std::exp(safe);
    r.noise_multiplier_lower = std::exp(other);
    r.certified_epsilon = at.epsilon;
    r.alpha = at.alpha;
    r.details =
        "eq. (19) + Lemma D.2 give epsilon = " + fmt(at.epsilon) + " at alpha = " + fmt(at.alpha);
  }
  finish_label(r);
  return r;
}

}  // namespace

void correlated_setting::validate(std::string_view function) const {
  if (!(correlation >= 0 && correlation < 1))
    throw_domain_error(function, "correlation", correlation, "in [0, 1)");
  if (!(sampling_rate > 0 && sampling_rate <= 1))
    throw_domain_error(function, "sampling_rate", sampling_rate, "in (0, 1]");
  check_at_least(function, "steps", steps, 1);
}

void correlated_options::validate(std::string_view function) const {
  pld.validate(function);
  if (!(relative_tolerance > 0 && relative_tolerance < 1))
    throw_domain_error(function, "relative_tolerance", relative_tolerance, "in (0, 1)");
  if (max_order < 2 || max_order > kLargestCorrelatedOrder)
    throw_domain_error(function, "max_order", format_value(max_order),
                       "an integer in [2, " + format_value(kLargestCorrelatedOrder) + "]");
}

std::string_view to_string(correlated_method m) noexcept {
  switch (m) {
    case correlated_method::f12:
      return "f12";
    case correlated_method::f12_proof_constant:
      return "f12-proof-constant";
    case correlated_method::f9_row_sum:
      return "f9-row-sum";
    case correlated_method::f9_exact:
      return "f9-exact";
    case correlated_method::f9_block:
      return "f9-block";
    case correlated_method::pld:
      return "pld";
    case correlated_method::d9:
      return "d9";
    case correlated_method::d9_eq19:
      return "d9-eq19";
    case correlated_method::pld_replace_one:
      return "pld-replace-one";
  }
  return "?";
}

std::optional<correlated_method> parse_correlated_method(std::string_view name) noexcept {
  for (correlated_method m : kAllCorrelatedMethods)
    if (to_string(m) == name) return m;
  return std::nullopt;
}

std::string_view to_string(noise_validity v) noexcept {
  switch (v) {
    case noise_validity::valid_upper_bound:
      return "valid-upper-bound";
    case noise_validity::conjecture_dependent:
      return "conjecture-dependent";
    case noise_validity::heuristic:
      return "heuristic";
    case noise_validity::outside_conditions:
      return "outside-conditions";
    case noise_validity::not_applicable:
      return "not-applicable";
  }
  return "?";
}

std::string_view to_string(neighbouring_relation r) noexcept {
  return r == neighbouring_relation::zero_out ? "zero-out" : "replace-one";
}

double correlation_row_sum(double correlation, long long steps) {
  correlated_setting{correlation, 1.0, steps}.validate("correlation_row_sum");
  return geometric_sum(correlation, steps);
}

spectral_norm_result correlation_spectral_norm(double correlation, long long steps) {
  correlated_setting{correlation, 1.0, steps}.validate("correlation_spectral_norm");
  spectral_norm_result r;
  const double row_sum = geometric_sum(correlation, steps);
  if (correlation == 0 || steps == 1) {
    r.value = r.lower = 1.0;
    return r;
  }
  // ‖C‖₂ = 1/σ_min(B), B = C^{−1} = I − λS (WSK+26 eq. (24)), a bidiagonal matrix with
  // σ_min ∈ [1 − λ, 1] (‖λS‖ ≤ λ; B e_T = e_T). Its singular values are the positive eigenvalues
  // of the 2T × 2T Golub–Kahan matrix: zero diagonal, off-diagonals 1, λ, 1, λ, …, λ, 1. A Sturm
  // sequence (LAPACK dstebz) counts its eigenvalues below x; with x > 0 the count is T + #{σ_i <
  // x}. With a zero diagonal the computed count is exact for a matrix whose off-diagonals differ
  // relatively by ≤ 2.5ε and whose shift differs by ≤ 2ε; relative perturbations of a
  // bidiagonal's 2T − 1 entries move every singular value relatively by at most their sum
  // (Demmel & Kahan 1990, Thm 2; Demmel 1997 §5.4.3). So bisection brackets σ_min to relative
  // accuracy (5T + 4)ε, padded below to (6T + 16)ε: the bound on ‖C‖₂ is rigorous, and as
  // accurate for λ → 1 as for small λ (a bracket on λ_min(BᵀB) would lose relative accuracy
  // as λ_min → (1 − λ)² shrinks).
  const double l2 = correlation * correlation;
  const long long n = 2 * steps;
  const double pivmin = std::numeric_limits<double>::min();
  auto sigma_min_at_least = [&](double x) {  // no singular value below x
    long long below = 0;
    double q = -x;
    if (q < 0) ++below;
    for (long long i = 1; i < n; ++i) {
      if (std::abs(q) < pivmin) q = -pivmin;
      q = -x - (i % 2 == 1 ? 1.0 : l2) / q;
      if (q < 0) ++below;
    }
    return below == steps;
  };
  double lo = 0.5 * (1 - correlation), hi = 1.0;
  if (!sigma_min_at_least(lo)) lo = 0.0;
  int iterations = 0;
  while (hi - lo > 2 * tol::kMachineEps * hi && iterations < 200) {
    const double mid = 0.5 * (lo + hi);
    (sigma_min_at_least(mid) ? lo : hi) = mid;
    ++iterations;
  }
  r.evaluations = iterations;
  const double pad = (6 * static_cast<double>(steps) + 16) * tol::kMachineEps;
  const double lo_safe = lo * (1 - pad);
  const double upper = lo_safe > 0 ? (1 + 2 * tol::kMachineEps) / lo_safe : kInf;
  r.value = std::min(upper, row_sum);
  r.lower = std::min((1 - 2 * tol::kMachineEps) / (hi * (1 + pad)), r.value);
  if (iterations >= 200) {
    r.termination = termination_type::max_iterations;
    r.message = "bisection stopped after 200 steps";
  }
  return r;
}

double leading_block_norm(double correlation, long long steps, long long k) {
  constexpr const char* kFn = "leading_block_norm";
  correlated_setting{correlation, 1.0, steps}.validate(kFn);
  check_at_least(kFn, "k", k, 0);
  if (k > steps) throw_domain_error(kFn, "k", format_value(k), "<= steps = " + format_value(steps));
  sensitivity_sequence s({correlation, 1.0, steps}, f9_sensitivity::leading_block, NAN);
  return s(k);
}

double binomial_tail(long long steps, double sampling_rate, long long k) {
  constexpr const char* kFn = "binomial_tail";
  correlated_setting{0.0, sampling_rate, steps}.validate(kFn);
  check_at_least(kFn, "k", k, 0);
  if (k >= steps) return 0.0;
  if (sampling_rate == 1) return 1.0;
  const boost::math::binomial_distribution<double> b(static_cast<double>(steps), sampling_rate);
  return boost::math::cdf(boost::math::complement(b, static_cast<double>(k)));
}

f9_bound f9_delta(const correlated_setting& setting,
                  double noise_multiplier,
                  double epsilon,
                  f9_sensitivity sensitivity) {
  constexpr const char* kFn = "f9_delta";
  setting.validate(kFn);
  check_nonnegative(kFn, "noise_multiplier", noise_multiplier);
  check_nonnegative(kFn, "epsilon", epsilon);
  double spectral = NAN;
  if (sensitivity == f9_sensitivity::spectral)
    spectral = correlation_spectral_norm(setting.correlation, setting.steps).value;
  return f9_delta_given(setting, noise_multiplier, epsilon, sensitivity, spectral);
}

namespace {

f9_bound f9_delta_given(const correlated_setting& setting,
                        double noise_multiplier,
                        double epsilon,
                        f9_sensitivity sensitivity,
                        double spectral) {
  sensitivity_sequence delta_k(setting, sensitivity, spectral);
  auto h = [&](double d) {
    if (d == 0) return 0.0;
    if (noise_multiplier == 0) return 1.0;
    return hockey_stick(d / noise_multiplier, epsilon);
  };
  f9_bound best;
  // k = T: F̄_T = 0, the whole space.
  best.split = setting.steps;
  best.sensitivity = delta_k(setting.steps);
  best.tail_probability = 0;
  best.delta = std::min(1.0, h(best.sensitivity));
  // g_k ≥ F̄_k: only k with F̄_k < best can improve; g_k ≥ (1 − F̄_k)h_k, non-decreasing in k.
  sensitivity_sequence scan(setting, sensitivity, spectral);
  for (long long k = first_split_below(setting, best.delta); k < setting.steps; ++k) {
    const double tail = binomial_tail(setting.steps, setting.sampling_rate, k);
    const double d = scan(k);
    const double body = (1 - tail) * h(d);
    if (body >= best.delta) break;
    const double g = body + tail;
    if (g < best.delta) {
      best.delta = g, best.split = k, best.sensitivity = d, best.tail_probability = tail;
    }
  }
  return best;
}

}  // namespace

double f12_noise_multiplier(const correlated_setting& setting,
                            double epsilon,
                            double delta,
                            double constant) {
  constexpr const char* kFn = "f12_noise_multiplier";
  check_setting_budget(kFn, setting, epsilon, delta);
  check_positive(kFn, "constant", constant);
  // WSK+26 Thm F.12: κ² ≥ c·((1 − λ^T)/(1 − λ))²·(rT + √(3rT ln(2/δ)))·ln(2.5/δ)/ε².
  const double a = geometric_sum(setting.correlation, setting.steps);
  const double rT = setting.sampling_rate * static_cast<double>(setting.steps);
  return std::sqrt(constant * (rT + std::sqrt(3 * rT * std::log(2 / delta))) *
                   std::log(2.5 / delta)) *
         a / epsilon;
}

double d9_noise_multiplier(const correlated_setting& setting, double epsilon, double delta) {
  constexpr const char* kFn = "d9_noise_multiplier";
  check_setting_budget(kFn, setting, epsilon, delta);
  // WSK+26 Thm D.9: κ² ≥ 16B²T/(n²ε) + 32B²T log(1/δ)/(n²ε²), B/n = r.
  const double r2T =
      setting.sampling_rate * setting.sampling_rate * static_cast<double>(setting.steps);
  const double kappa =
      std::sqrt(16 * r2T / epsilon + 32 * r2T * std::log(1 / delta) / (epsilon * epsilon));
  if (std::isfinite(kappa)) return kappa;
  // ε² underflows (ε = 1e-300 gave κ = inf where it is 6e301): κ = (r√T/ε)·√(16ε + 32 log(1/δ)),
  // which is inf only where κ itself exceeds the double range.
  return setting.sampling_rate * std::sqrt(static_cast<double>(setting.steps)) / epsilon *
         std::sqrt(16 * epsilon + 32 * std::log(1 / delta));
}

eq19_epsilon d9_eq19_epsilon(const correlated_setting& setting,
                             double noise_multiplier,
                             double delta,
                             long long max_order) {
  constexpr const char* kFn = "d9_eq19_epsilon";
  setting.validate(kFn);
  check_positive(kFn, "noise_multiplier", noise_multiplier);
  check_open_probability(kFn, "delta", delta);
  if (max_order < 2 || max_order > kLargestCorrelatedOrder)
    throw_domain_error(kFn, "max_order", format_value(max_order),
                       "an integer in [2, " + format_value(kLargestCorrelatedOrder) + "]");
  const double T = static_cast<double>(setting.steps);
  eq19_epsilon best;
  best.epsilon = kInf;
  // Lemma D.6 (composition) then Lemma D.2 (Mironov 2017 Prop 3): ε = T·ε₁₉(α) + log(1/δ)/(α−1).
  auto at = [&](long long alpha) {
    const double a = static_cast<double>(alpha);
    const double composed =
        T * subsampling::wor_gaussian_rdp_wbk19(setting.sampling_rate, noise_multiplier, a);
    const double e = std::isfinite(composed)
                         ? divergence::rdp_epsilon_at_order(divergence::rdp_conversion::mir17, a,
                                                            composed, delta)
                         : kInf;
    if (e < best.epsilon) best.epsilon = e, best.alpha = a;
    return e;
  };
  // Geometric scan (ratio ≈ 1.15), then an integer ternary search between the neighbours of
  // the best scanned order. Every order evaluated gives a valid bound; the best is kept.
  std::vector<long long> orders;
  for (double a = 2; a <= static_cast<double>(max_order) * 1.0000001; a *= 1.15) {
    const long long o = std::min(max_order, static_cast<long long>(std::llround(a)));
    if (orders.empty() || o > orders.back()) orders.push_back(o);
  }
  if (orders.back() != max_order) orders.push_back(max_order);
  std::size_t i_best = 0;
  double e_best = kInf;
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const double e = at(orders[i]);
    if (e < e_best) e_best = e, i_best = i;
  }
  long long lo = orders[i_best == 0 ? 0 : i_best - 1];
  long long hi = orders[std::min(i_best + 1, orders.size() - 1)];
  while (hi - lo > 2) {
    const long long m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    if (at(m1) <= at(m2))
      hi = m2;
    else
      lo = m1;
  }
  for (long long a = lo; a <= hi; ++a) at(a);
  return best;
}


double projected_delta(const correlated_setting& setting, double noise_multiplier, double epsilon) {
  constexpr const char* kFn = "projected_delta";
  setting.validate(kFn);
  check_positive(kFn, "noise_multiplier", noise_multiplier);
  check_finite(kFn, "noise_multiplier", noise_multiplier);
  check_nonnegative(kFn, "epsilon", epsilon);
  check_finite(kFn, "epsilon", epsilon);
  const double steps = static_cast<double>(setting.steps), lambda = setting.correlation;
  // ‖v‖ for v = C^{−T}1 = (1 − λ, …, 1 − λ, 1).
  const double norm = std::sqrt((steps - 1) * (1 - lambda) * (1 - lambda) + 1);
  return detail::binomial_gaussian_delta(setting.steps, setting.sampling_rate,
                                         noise_multiplier * norm, epsilon);
}

projected_lower_bound correlated_noise_lower_bound(const correlated_setting& setting,
                                                   double epsilon,
                                                   double delta,
                                                   double relative_tolerance) {
  constexpr const char* kFn = "correlated_noise_lower_bound";
  check_setting_budget(kFn, setting, epsilon, delta);
  check_finite(kFn, "epsilon", epsilon);
  check_open_probability(kFn, "relative_tolerance", relative_tolerance);
  projected_lower_bound out;
  const double T = static_cast<double>(setting.steps);
  out.projection_norm = std::sqrt((T - 1) * std::pow(1 - setting.correlation, 2) + 1);
  // Work in u = ln κ: δ₁ is non-increasing in κ. The signal is ‖y‖₀ ≤ T against noise
  // κ‖v‖ ≥ κ, so δ₁ is far above any δ at κ = 1e-3/‖v‖ unless the pair is trivial.
  auto excess = [&](double u) { return projected_delta(setting, std::exp(u), epsilon) - delta; };
  double lo = std::log(1e-3 / out.projection_norm);
  int evaluations = 1;
  if (excess(lo) <= 0) {
    out.noise_multiplier = 0;
    out.noise_multiplier_upper = std::exp(lo);
    out.evaluations = evaluations;
    out.message =
        "the projected pair meets the budget at every kappa >= " + format_value(std::exp(lo)) +
        ": no lower bound from this statistic";
    return out;
  }
  double hi = lo + std::log(2.0);
  while (excess(hi) > 0) {
    ++evaluations;
    lo = hi;
    hi += std::log(2.0);
    if (hi > std::log(1e12)) {
      out.termination = termination_type::failure;
      out.message = "the projected pair exceeds delta at kappa = 1e12";
      out.noise_multiplier = std::exp(lo);
      out.evaluations = evaluations;
      return out;
    }
  }
  root_options o;
  o.absolute_tolerance = std::log1p(relative_tolerance);
  o.relative_tolerance = 0;
  const root_result r = find_root(excess, lo, hi, o);
  out.evaluations = evaluations + r.evaluations;
  out.termination = r.termination;
  out.message = r.message;
  // The bracket end where δ₁ > δ: the mechanism is not (ε, δ)-DP there.
  out.noise_multiplier = std::exp(r.lower);
  out.noise_multiplier_upper = std::exp(r.upper);
  out.projected_delta = r.f_lower + delta;
  return out;
}

correlated_noise calibrate_correlated(const correlated_setting& setting,
                                      double epsilon,
                                      double delta,
                                      correlated_method method,
                                      const correlated_options& options) {
  constexpr const char* kFn = "calibrate_correlated";
  check_setting_budget(kFn, setting, epsilon, delta);
  options.validate(kFn);
  switch (method) {
    case correlated_method::f12:
    case correlated_method::f12_proof_constant:
      return f12_route(setting, epsilon, delta, method);
    case correlated_method::f9_row_sum:
    case correlated_method::f9_exact:
    case correlated_method::f9_block:
      return f9_route(setting, epsilon, delta, method);
    case correlated_method::pld:
    case correlated_method::pld_replace_one:
      return pld_route(setting, epsilon, delta, options, method);
    case correlated_method::d9:
      return d9_route(setting, epsilon, delta, options);
    case correlated_method::d9_eq19:
      return d9_eq19_route(setting, epsilon, delta, options);
  }
  throw_domain_error(kFn, "method", "?", "a correlated_method");
}

}  // namespace dpkit::accounting

#include "dpkit/accounting/run_tradeoff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "detail/facade.hpp"
#include "dpkit/accounting/rdp_accountant.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/divergence/gaussian_tradeoff.hpp"
#include "dpkit/subsampling/subsampled_tradeoff.hpp"

namespace dpkit::accounting {
namespace {

// The two terms of the tradeoff formula at one slope, floored at 0.
double affine_terms(double one_minus_delta_at, double e_eps, double alpha) {
  return std::max({0.0, one_minus_delta_at - e_eps * alpha, (one_minus_delta_at - alpha) / e_eps});
}

// 1 − affine_terms(1 − δ, e^ε, α) = min{1, δ + e^ε α, (e^ε − 1 + δ + α)e^{−ε}}, without forming
// 1 − δ: each term a sum of nonnegative parts (e^ε − 1 given as expm1(ε)), a few roundings each.
double one_minus_affine_terms(double delta, double expm1_eps, double e_eps, double alpha) {
  return std::min({1.0, delta + e_eps * alpha, (expm1_eps + delta + alpha) / e_eps});
}

std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

}  // namespace

tradeoff_bracket tradeoff_from_profile(std::span<const double> eps,
                                       std::span<const double> delta_lower,
                                       std::span<const double> delta_upper,
                                       std::span<const double> alphas) {
  constexpr const char* kFn = "tradeoff_from_profile";
  if (eps.empty() || eps[0] != 0)
    throw_domain_error(kFn, "the first epsilon", eps.empty() ? "none" : format_value(eps[0]), "0");
  if (delta_lower.size() != eps.size() || delta_upper.size() != eps.size())
    throw_domain_error(kFn, "the profile length",
                       format_value(static_cast<long long>(delta_lower.size())),
                       "equal to the number of epsilons");
  for (std::size_t j = 1; j < eps.size(); ++j)
    if (!(eps[j] > eps[j - 1]))
      throw_domain_error(kFn, "epsilons", format_value(eps[j]), "strictly ascending");
  for (double a : alphas) check_probability(kFn, "alpha", a);
  // e^{ε_j} and e^{ε_j} − 1 once (not per α: the α loop is O(n) per α, and expm1 in it was
  // most of the time of a whole validation scenario).
  std::vector<double> e_eps(eps.size()), expm1_eps(eps.size());
  for (std::size_t j = 0; j < eps.size(); ++j) {
    e_eps[j] = std::exp(eps[j]);
    expm1_eps[j] = std::expm1(eps[j]);
  }
  // The powers' roundings: a sum or product of nonnegative parts and one division, each within
  // half an ulp; 8 machine epsilons outward covers them.
  constexpr double kOut = 8 * std::numeric_limits<double>::epsilon();
  // For each α: the largest of the affine lower bounds over the profile's ε_j (lo, up) and the
  // smallest of their complements (power_hi, power_lo). The loops run ε outer, α inner: the
  // inner loop is over contiguous arrays and vectorises (the divisions were most of a
  // validation scenario's time); each α still sees the ε_j in ascending order, as before.
  const std::size_t na = alphas.size();
  std::vector<double> lo(na, 0.0), up(na, 0.0), power_hi(na, 1.0), power_lo(na, 1.0);
  for (std::size_t j = 0; j < eps.size(); ++j) {
    const double e = e_eps[j], em1 = expm1_eps[j], du = delta_upper[j];
    // Cell [ε_j, ε_{j+1}] (the last one: [ε_n, ∞) with δ ≥ 0).
    const double d_next = j + 1 < eps.size() ? delta_lower[j + 1] : 0.0;
    const double keep_lo = 1 - du, keep_up = 1 - d_next;
    for (std::size_t i = 0; i < na; ++i) {
      const double a = alphas[i];
      lo[i] = std::max(lo[i], affine_terms(keep_lo, e, a));
      power_hi[i] = std::min(power_hi[i], one_minus_affine_terms(du, em1, e, a));
      up[i] = std::max(up[i], affine_terms(keep_up, e, a));
      power_lo[i] = std::min(power_lo[i], one_minus_affine_terms(d_next, em1, e, a));
    }
  }
  tradeoff_bracket b;
  for (std::size_t i = 0; i < na; ++i) {
    const double a = alphas[i];
    const double u = std::min(up[i], 1 - a);  // every tradeoff function is ≤ 1 − α
    const double pl = std::max(power_lo[i], a);
    b.beta_lower.push_back(std::min(lo[i], u));
    b.beta_upper.push_back(u);
    // β_lower = min(lo, up): its complement is the larger of the two powers.
    // (+ the smallest double: e^ε α at a subnormal α rounds by an absolute ulp.)
    b.power_upper.push_back(std::min(
        1.0, std::max(power_hi[i], pl) * (1 + kOut) + std::numeric_limits<double>::denorm_min()));
    b.power_lower.push_back(std::max(a, pl * (1 - kOut)));
  }
  return b;
}

run_tradeoff_result run_tradeoff(const training_run& run,
                                 std::span<const double> alphas,
                                 const pld_options& options,
                                 double delta_floor) {
  constexpr const char* kFn = "run_tradeoff";
  run.validate(kFn);
  options.validate(kFn);
  if (!(delta_floor > 0 && delta_floor <= 1e-3))
    throw_domain_error(kFn, "delta_floor", delta_floor, "in (0, 1e-3]");
  for (double a : alphas) check_probability(kFn, "alpha", a);
  run_tradeoff_result r;
  r.alpha.assign(alphas.begin(), alphas.end());

  if (run.has_epoch_sampling())
    throw_domain_error("run_tradeoff", "sampling",
                       run.has_shuffling() ? "shuffling" : "random-allocation",
                       "poisson or without-replacement (shuffled or allocated epochs have no "
                       "tradeoff accountant yet: use dpkit epsilon or delta for their certified "
                       "bracket)");
  // Closed forms first.
  std::unique_ptr<divergence::tradeoff_function> exact;
  double mu_scale = 0;  // the closed form's μ, for its rounding allowance below
  if (run.is_gaussian()) {
    mu_scale = run.gdp_mu();
    exact = std::make_unique<divergence::gaussian_tradeoff>(mu_scale);
    r.method = "G(mu) = Phi(Phi^-1(1 - alpha) - mu) (BSA24 Def 2.4, eq. (3.4)): exact";
  } else if (run.phases.size() == 1 && run.phases[0].steps == 1 && run.gaussian_mu == 0 &&
             ((run.phases[0].sampling == sampling_scheme::poisson &&
               relation(run.phases[0]) == neighbouring::add_remove) ||
              run.phases[0].sampling == sampling_scheme::without_replacement)) {
    // One subsampled step: C_q(G(μ₁)) with μ₁ = 1/σ (Poisson, add/remove) or 2/σ (without
    // replacement, replace-one): the symmetrised tradeoff of both directions (BSA24 Def 4.7,
    // §C.4.1). (Replace-one Poisson and truncated batches have other pairs: the PLD below.)
    const training_phase& p = run.phases[0];
    const double mu1 = sensitivity(p) / p.noise_multiplier;
    mu_scale = mu1;
    exact = std::make_unique<subsampling::cp_gaussian_tradeoff>(mu1, p.sampling_rate);
    r.method = "C_q(G(mu)) in closed form (BSA24 §C.4.1): exact for one step";
  }
  if (exact) {
    // 1 − β without cancellation, Φ(μ − z) with z = Φ⁻¹(1 − α), rounded outward by its own
    // rounding: d log Φ(x)/dx ≈ |x| in the tail, so errors of a few ulps in z (≈ √(2 log(1/α)))
    // and in μ (the run's, (8 + 4 per phase) machine epsilons) move it by a relative ~|x|·(|z| + μ)
    // ulps — 1e-13 at α = 1e-300 — not a few ulps; 64 ulps × (1 + (|z| + μ)²) covers it with
    // room. A subnormal power has absolute ulps: one more of the smallest double outward.
    const double eps = std::numeric_limits<double>::epsilon();
    const double phases = static_cast<double>(run.phases.size());
    for (double a : alphas) {
      r.beta_lower.push_back(exact->beta(a));
      const double power = exact->power(a);
      if (a == 0 || a == 1) {  // f(0) = 1 and f(1) = 0 exactly: power 0 and 1
        r.power_upper.push_back(a);
        r.power_lower.push_back(a);
        continue;
      }
      const double z = std::sqrt(2 * std::max(-std::log(a), -std::log1p(-a))) + 1;
      const double rel = 64 * eps * (1 + (z + mu_scale) * (z + mu_scale)) * (1 + phases);
      const double tiny = std::numeric_limits<double>::denorm_min();
      r.power_upper.push_back(std::min(1.0, power * (1 + rel) + tiny));
      r.power_lower.push_back(std::max(a, power * (1 - rel) - tiny));
    }
    r.beta_upper = r.beta_lower;
    r.exact = true;
    return r;
  }

  // The ε grid: up to where δ ≤ delta_floor is certified (RDP: an upper bound on that ε,
  // cheap).
  const divergence::rdp_epsilon_result far = rdp_epsilon(run, delta_floor);
  const double eps_max = std::clamp(std::isfinite(far.value) ? far.value : 1e4, 1e-3, 1e4);
  // Cell slack ≲ 2·spacing·(loss scale); spacing relative to ε_max when the losses are small.
  const double spacing = options.relative_accuracy / 4 * std::min(1.0, eps_max);
  const auto cells = static_cast<std::size_t>(std::min(4e6, std::ceil(eps_max / spacing)));
  std::vector<double> eps(cells + 1);
  for (std::size_t j = 0; j <= cells; ++j)
    eps[j] = eps_max * static_cast<double>(j) / static_cast<double>(cells);
  pld_profile_result profile = pld_delta_profile(run, eps, options);
  // δ(ε) ≤ the chance that the example enters a batch, at every ε (edge_values.cpp), as every
  // δ answer of the facade says.
  if (const std::optional<double> cap = detail::participation_cap(run))
    for (std::size_t j = 0; j < profile.upper.size(); ++j)
      profile.upper[j] = std::min(profile.upper[j], *cap);
  static_cast<solver_status&>(r) = profile;
  static_cast<pld_diagnostics&>(r) = profile;
  r.epsilon_points = eps.size();

  tradeoff_bracket b = tradeoff_from_profile(eps, profile.lower, profile.upper, alphas);
  r.beta_lower = std::move(b.beta_lower);
  r.beta_upper = std::move(b.beta_upper);
  r.power_upper = std::move(b.power_upper);
  r.power_lower = std::move(b.power_lower);
  // α = 0: every mechanism here adds Gaussian noise, so the output laws of neighbouring
  // datasets are mutually absolutely continuous (no loss is +∞) and f(0) = 1 exactly; the
  // profile, known only up to ε_max, cannot show this.
  for (std::size_t i = 0; i < alphas.size(); ++i)
    if (alphas[i] == 0)
      r.beta_lower[i] = r.beta_upper[i] = 1, r.power_upper[i] = r.power_lower[i] = 0;
  r.method = "PLD/FFT privacy profile at " + std::to_string(eps.size()) + " epsilons in [0, " +
             short_number(eps_max) + "], grid h = " + short_number(profile.grid_spacing) +
             ": certified lower and upper bounds";
  return r;
}

gdp_mu_result run_gdp_mu(const training_run& run,
                         double alpha_min,
                         std::size_t points,
                         const pld_options& options) {
  constexpr const char* kFn = "run_gdp_mu";
  run.validate(kFn);
  if (!(alpha_min > 0 && alpha_min < 0.5))
    throw_domain_error(kFn, "alpha_min", alpha_min, "in (0, 0.5)");
  if (points < 2 || points > 10000000)
    throw_domain_error(kFn, "points", format_value(static_cast<long long>(points)), "in [2, 1e7]");
  gdp_mu_result out;
  out.alpha_min = alpha_min;
  out.points = points;
  if (run.is_gaussian()) {
    // G(μ) itself: the term is μ at every α.
    out.mu_lower = out.mu_upper = run.gdp_mu();
    out.exact = true;
    out.alpha_at_max = alpha_min;
    out.method = "G(mu) (BSA24 eq. (3.4)): exact";
    return out;
  }
  // Grid uniform in z = Φ⁻¹(α) from Φ⁻¹(alpha_min) to 0 (α = 1/2).
  const double z0 = normal_quantile(alpha_min);
  std::vector<double> alphas(points);
  for (std::size_t i = 0; i < points; ++i)
    alphas[i] =
        i == 0 ? alpha_min
        : i + 1 == points
            ? 0.5
            : normal_cdf(z0 * (1 - static_cast<double>(i) / static_cast<double>(points - 1)));
  const run_tradeoff_result t =
      run_tradeoff(run, alphas, options, std::min(1e-12, 1e-4 * alpha_min));
  static_cast<solver_status&>(out) = t;
  // Φ⁻¹ of the grid's α and of the TPR bounds: Boost's quantile is accurate to a few ulp; an
  // outward allowance of 1e-12·(1 + |z|) per evaluation covers it.
  const auto slack = [](double v) { return 1e-12 * (1 + std::abs(v)); };
  // Φ⁻¹(1 − β): at small α, β is within 1e-11 of 1 and its last bits are the TPR's leading
  // ones, so each β (closed form or profile formula: a few operations on numbers ≤ 1) is taken
  // as uncertain by kBetaError = 2e-15 absolute (9 ulp of 1), outward for each side.
  constexpr double kBetaError = 2e-15;
  const auto z_of_beta = [](double beta) {
    if (beta <= 0) return std::numeric_limits<double>::infinity();
    if (beta >= 1) return -std::numeric_limits<double>::infinity();
    return -normal_quantile(beta);
  };
  double lo = -std::numeric_limits<double>::infinity();
  double up = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < points; ++i) {
    const double za = normal_quantile(alphas[i]);
    const double term_lo = z_of_beta(std::min(1.0, t.beta_upper[i] + kBetaError)) - za;
    if (term_lo - slack(term_lo) > lo) {
      lo = term_lo - slack(term_lo);
      out.alpha_at_max = alphas[i];
    }
    if (i + 1 < points) {
      const double term_up = z_of_beta(std::max(0.0, t.beta_lower[i + 1] - kBetaError)) - za;
      up = std::max(up, term_up + slack(term_up));
    } else {
      const double term_up = z_of_beta(std::max(0.0, t.beta_lower[i] - kBetaError)) - za;
      up = std::max(up, term_up + slack(term_up));  // the point α = 1/2
    }
  }
  out.mu_lower = std::max(0.0, lo);
  out.mu_upper = std::max(out.mu_lower, up);
  out.method = "sup over " + std::to_string(points) + " alphas (uniform in Phi^-1(alpha)) of " +
               "Phi^-1(TPR) - Phi^-1(alpha) from the certified tradeoff bracket; " + t.method;
  return out;
}

}  // namespace dpkit::accounting

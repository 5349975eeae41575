// dpkit/accounting/run_tradeoff.hpp — the tradeoff curve (f-DP guarantee) of a training run,
// certified from both sides.
//
// The tradeoff function of the mechanism is the largest f with f ≤ T(M(D), M(D')) for every
// ordered pair of neighbouring datasets: the lower convex envelope of the directions' curves,
// which in terms of the privacy profile δ(ε) (max over directions, ε ≥ 0) reads
//
//   f(α) = max(0, sup_{ε ≥ 0} max(1 − δ(ε) − e^ε α,  e^{−ε}(1 − δ(ε) − α)))
//
// (Dong, Roth & Su 2022, Prop 2.12; the second term is the ε < 0 half, by the reverse-pair
// identity δ(−ε) = 1 − e^{−ε} + e^{−ε}δ(ε) of the symmetrised profile).
//
//   exact         Gaussian runs: G(μ) (BSA24 eq. (3.4)); one subsampled step: C_q(G(μ₁)).
//   lower bound   β_lower(α): the formula at grid points ε_j with the certified δ_upper(ε_j) —
//                 the true curve lies above, so this is the f-DP guarantee.
//   upper bound   β_upper(α): δ is decreasing, so on a cell [ε_j, ε_{j+1}] the terms are at most
//                 1 − δ_lower(ε_{j+1}) − e^{ε_j}α and e^{−ε_j}(1 − δ_lower(ε_{j+1}) − α); beyond
//                 the last point δ ≥ 0. No test of the run does better than β_upper allows.
//
// The ε grid runs from 0 to where the RDP accountant certifies δ ≤ 1e-12 (cheap), with spacing
// relative_accuracy/4 · max(1, ε_max), so the cell slack is ≲ relative_accuracy/2.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "dpkit/accounting/pld_accountant.hpp"
#include "dpkit/accounting/training_run.hpp"

namespace dpkit::accounting {

struct run_tradeoff_result : solver_status, pld_diagnostics {
  std::vector<double> alpha;
  std::vector<double> beta_lower;  ///< certified: every test has type II error ≥ this
  std::vector<double> beta_upper;  ///< certified: the curve is at most this
  /// 1 − β_lower and 1 − β_upper, the largest true-positive rate of any membership test at
  /// false-positive rate α, bounded above and below — formed without the cancellation of 1 − β
  /// (at α = 1e-200 a β within 1e-187 of 1 rounds to 1, and 1 − β to 0 below the true rate).
  std::vector<double> power_upper;
  std::vector<double> power_lower;
  bool exact = false;              ///< closed form: beta_lower == beta_upper
  std::string method;              ///< how it was computed, for reports
  std::size_t epsilon_points = 0;  ///< size of the ε grid (PLD only)
};

/// The two bounds of the formulas above from certified bounds on a privacy profile at ascending
/// ε_0 = 0 < ε_1 < … < ε_n (δ_lower ≤ δ ≤ δ_upper pointwise): β_lower ≤ f ≤ β_upper at each α.
struct tradeoff_bracket {
  std::vector<double> beta_lower, beta_upper;
  /// 1 − β_lower ≥ 1 − f ≥ 1 − β_upper, each formed from its terms (δ + e^ε α and
  /// (e^ε − 1 + δ + α)e^{−ε}), rounded outward: no difference of numbers near 1.
  std::vector<double> power_upper, power_lower;
};
tradeoff_bracket tradeoff_from_profile(std::span<const double> epsilons,
                                       std::span<const double> delta_lower,
                                       std::span<const double> delta_upper,
                                       std::span<const double> alphas);

/// The tradeoff curve of `run` at each α ∈ [0, 1] (any order). The privacy profile is
/// computed up to the ε where δ ≤ delta_floor (∈ (0, 1e-3]; RDP's certified ε there): below
/// that δ the bounds on β at small α cannot resolve the TPR.
run_tradeoff_result run_tradeoff(const training_run& run,
                                 std::span<const double> alphas,
                                 const pld_options& options = {},
                                 double delta_floor = 1e-12);

/// The Gaussian-DP parameter a run is closest to, over a range of false-positive rates: the
/// smallest μ with G(μ)(α) ≤ f(α) for every α ∈ [alpha_min, 1/2], i.e.
///
///   μ* = sup_{α ∈ [alpha_min, 1/2]} Φ⁻¹(1 − f(α)) − Φ⁻¹(α)
///
/// (the quantity dp_accounting's get_gdp_parameter_estimate approximates on a grid, with FPRs
/// from 1e-12 to 1/2; f is symmetric, so α > 1/2 adds nothing). Both sides certified from the
/// tradeoff bracket on a grid uniform in z = Φ⁻¹(α): at a grid point the term is at least
/// Φ⁻¹(1 − β_upper) − Φ⁻¹(α_i), so mu_lower ≤ μ*; on a cell [α_i, α_{i+1}] it is at most
/// Φ⁻¹(1 − β_lower(α_{i+1})) − Φ⁻¹(α_i) (f decreasing), so μ* ≤ mu_upper. The cells add at most
/// the z spacing, |Φ⁻¹(alpha_min)|/(points − 1), to the width; the profile is computed down to
/// δ = 1e-4·alpha_min, so that its truncation costs ≲ 1e-4 of the TPR at alpha_min. The sup over
/// all α ∈ (0, 1/2] can be much larger (as α → 0 the composed subsampled Gaussian approaches the
/// Gaussian of a run that samples the example every step): the range is part of the answer.
struct gdp_mu_result : solver_status {
  double mu_lower = NAN;  ///< certified: the run is not μ-GDP on the range for any smaller μ
  double mu_upper = NAN;  ///< certified: the run's curve is above G(mu_upper) on the range
  double alpha_min = NAN;
  std::size_t points = 0;
  double alpha_at_max = NAN;  ///< the grid α where the lower bound is attained
  bool exact = false;         ///< Gaussian runs: μ* = μ (mu_lower = mu_upper)
  std::string method;
};

/// μ* of `run` over α ∈ [alpha_min, 1/2] (alpha_min ∈ (0, 1/2)), from `points` ≥ 2 grid points.
gdp_mu_result run_gdp_mu(const training_run& run,
                         double alpha_min = 1e-12,
                         std::size_t points = 4000,
                         const pld_options& options = {});

}  // namespace dpkit::accounting

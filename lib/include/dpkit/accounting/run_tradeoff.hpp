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
  bool exact = false;              ///< closed form: beta_lower == beta_upper
  std::string method;              ///< how it was computed, for reports
  std::size_t epsilon_points = 0;  ///< size of the ε grid (PLD only)
};

/// The two bounds of the formulas above from certified bounds on a privacy profile at ascending
/// ε_0 = 0 < ε_1 < … < ε_n (δ_lower ≤ δ ≤ δ_upper pointwise): β_lower ≤ f ≤ β_upper at each α.
struct tradeoff_bracket {
  std::vector<double> beta_lower, beta_upper;
};
tradeoff_bracket tradeoff_from_profile(std::span<const double> epsilons,
                                       std::span<const double> delta_lower,
                                       std::span<const double> delta_upper,
                                       std::span<const double> alphas);

/// The tradeoff curve of `run` at each α ∈ [0, 1] (any order).
run_tradeoff_result run_tradeoff(const training_run& run,
                                 std::span<const double> alphas,
                                 const pld_options& options = {});

}  // namespace dpkit::accounting

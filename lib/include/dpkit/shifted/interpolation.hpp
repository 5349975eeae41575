// dpkit/shifted/interpolation.hpp — the shifted-interpolation optimisation problem of BSA24.
//
// BSA24 Thm C.3 (the meta-theorem behind every deterministic-batch bound): two contractive
// noisy iterations (CNI) with c-Lipschitz updates φ_k, φ′_k, ‖φ_k(x) − φ′_k(x)‖ ≤ s_k, and noise
// N(0, σ²I) per step, whose iterates at time τ satisfy ‖X_τ − X′_τ‖ ≤ z_τ, have
//
//   T(X_t, X′_t) ≥ G( (1/σ) √(Σ_{k=τ+1}^{t} a_k²) )
//
// for every choice of shifts λ_k ∈ [0, 1] (λ_t = 1), where a_{k+1} = λ_{k+1}(c z_k + s_{k+1}) and
// z_{k+1} = (1 − λ_{k+1})(c z_k + s_{k+1}). The best bound solves (BSA24 Lemmas C.6–C.11, as one
// problem)
//
//   minimise Σ a_k²  subject to  a_k ≥ 0, z_k ≥ 0 (τ < k < t), z_t = 0,
//   z_{k+1} = c z_k + s_{k+1} − a_{k+1},
//
// a convex quadratic programme after eliminating λ_k = a_k / (a_k + z_k).
//
// Exact solution (our derivation; the paper solves special cases by Cauchy–Schwarz). With
// n = t − τ steps numbered j = 1..n, substitute w_j = c^{n−j} a_j. The constraints z_j ≥ 0 read
// W_j := Σ_{i≤j} w_i ≤ Ĉ_j := c^n z_τ + Σ_{i≤j} c^{n−i} s_i (j < n), with equality at j = n, and
// the cost is Σ w_j²/ρ_j with ρ_j = c^{2(n−j)}. In "ρ-time" R_j = Σ_{i≤j} ρ_i, the KKT conditions
// say the optimal cumulative sum W is convex and piecewise linear in R (its slopes w_j/ρ_j are
// non-decreasing; they change only where a constraint is active), lies below the points
// (R_j, Ĉ_j) and ends at (R_n, Ĉ_n): it is the lower convex hull of (0, 0), (R_1, Ĉ_1), …,
// (R_n, Ĉ_n). The hull (monotone chain) gives the optimum in O(n), exactly up to rounding; the
// hull's slopes are ≥ 0 because every Ĉ_j ≥ 0, so a ≥ 0 holds automatically. The unit tests
// check it against brute-force KKT enumeration at 50 digits (data/reference/shifted_qp.csv)
// and against every closed form BSA24 gives for it (Lemmas C.6, C.8, C.10, C.11).
#pragma once
#include <cmath>
#include <span>
#include <utility>
#include <vector>

#include "dpkit/core/result.hpp"

namespace dpkit::shifted {

/// One window τ..t of the optimisation problem.
struct interpolation_problem {
  interpolation_problem() = default;
  /// The constant-contraction, unit-noise problem {c, s, z_τ}.
  interpolation_problem(double c, std::vector<double> s, double z0 = 0)
      : contraction(c), sensitivities(std::move(s)), initial_shift(z0) {}

  /// c ∈ (0, 1]: the Lipschitz constant of the update maps (BSA24 Lemma 2.8).
  double contraction = 1;
  /// s_{τ+1}, …, s_t ≥ 0, finite; at least one entry.
  std::vector<double> sensitivities;
  /// z_τ ≥ 0: a bound on ‖X_τ − X′_τ‖ (0 when τ = 0 and X_0 = X′_0; the diameter D of the
  /// constraint set at any τ).
  double initial_shift = 0;
  /// Optional per-step contractions c_{τ+1}, …, c_t ∈ (0, 1] (time-varying step sizes: the
  /// recursion becomes z_k = c_k z_{k−1} + s_k − a_k); empty: `contraction` for every step.
  std::vector<double> contractions;
  /// Optional per-step noise scales σ_{τ+1}, …, σ_t > 0: the bound of Thm C.3 with noise
  /// N(0, σ_k² I) in step k is G(√(Σ a_k²/σ_k²)), and that weighted sum is minimised (the
  /// derivation of the file comment carries over with ρ_j = Q_j² σ_j², Q_j = Π_{i>j} c_i).
  /// Empty: σ_k = 1, so `value` is Σ a_k².
  std::vector<double> noise;
};

/// The optimum. Vectors are indexed by j = 0..n−1 for steps τ+1..t (z by j = 0..n for z_τ..z_t).
struct interpolation_solution : solver_status {
  double value = NAN;          ///< Σ a_k²/σ_k² (Σ a_k² without `noise`): the optimal μ²
  std::vector<double> a;       ///< a_{τ+1}, …, a_t
  std::vector<double> z;       ///< z_τ, …, z_t (z_t = 0)
  std::vector<double> lambda;  ///< λ_{τ+1}, …, λ_t ∈ [0, 1], λ_t = 1
};

/// Solves the window exactly (see the file comment). Throws std::domain_error on bad input.
interpolation_solution solve_interpolation(const interpolation_problem& problem);

/// The best window over the starting time τ for a run of t = s.size() steps with
/// sensitivities s_1..s_t: τ = 0 with z_0 = `initial_shift` (0 when both runs start at the same
/// point), and, when `diameter` is finite, every τ ∈ {0, …, t − 1} with z_τ = D — O(t²) work.
/// Above `exhaustive_limit` steps the windows with z_τ = D are searched by golden section on τ
/// (then every τ of the final bracket), which assumes the optimum is unimodal in τ; the result
/// is a valid bound either way (every τ is one), only possibly not the best.
struct interpolation_scan : interpolation_solution {
  long long tau = 0;       ///< the optimal τ
  double start_shift = 0;  ///< z_τ used at the optimum
  bool exhaustive = true;  ///< every τ was evaluated
};
interpolation_scan best_interpolation(double contraction,
                                      std::span<const double> sensitivities,
                                      double diameter = INFINITY,
                                      double initial_shift = 0,
                                      long long exhaustive_limit = 4000);

/// The same for a problem with per-step contractions and noise scales (its sensitivities span
/// the whole run 1..t; its initial_shift is z_0).
interpolation_scan best_interpolation(const interpolation_problem& problem,
                                      double diameter = INFINITY,
                                      long long exhaustive_limit = 4000);

}  // namespace dpkit::shifted

// dpkit/shifted/noisy_sgd.hpp — BSA24's NoisySGD bounds (uniformly random batches of size b
// from n examples, replace-one neighbours) as certified (ε, δ) through the PLD accountant.
//
// Each bound is a composition of Gaussian and subsampled-Gaussian tradeoff functions, p = b/n:
//
//   Thm 4.8  (composition)        C_p(G(L/(bσ)))^{⊗t}
//   Thm 4.9  (strongly convex)    G(α·(2L/(bσ))·(c^{k+1} − c^t)/(1 − c)) ⊗ C_p(G(β·2L/(bσ)))
//                                  ⊗ C_p(G(2L/(bσ)))^{⊗k},        k = t − τ, τ ∈ {1, …, t − 1}
//   Thm 4.10 (constrained convex) G(α·D/(ησ k)·√k) ⊗ C_p(G(β·2L/(bσ)))^{⊗k},   τ ∈ {0, …, t − 1}
//
// with α = β = √2 in the theorems, and any 1/α² + 1/β² = 1 by footnotes 10/11 (the split of the
// last step's noise). Thm 4.9 at τ = 0 has a negative argument in the paper (docs/shifted.md);
// τ ≥ 1 is used. Each factor maps onto a training_run of the accounting module: G(μ₀) is its
// Gaussian factor and C_p(G(μ)) a without-replacement phase with q = p and noise multiplier 2/μ
// (one such phase is exactly C_q(G(2/σ)), accounting/training_run.hpp). The PLD accountant then
// certifies ε from both sides; every τ is a valid bound, so the smallest certified ε over τ is.
#pragma once
#include <cmath>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/accounting/training_run.hpp"
#include "dpkit/shifted/bounds.hpp"

namespace dpkit::shifted {

/// Thm 4.8: C_{b/n}(G(L/(bσ)))^{⊗t}. Needs L, n, b ≤ n, σ, t.
accounting::training_run noisy_sgd_composition_run(const noisy_gradient_setting& s);

/// Thm 4.9 at τ ∈ {1, …, t − 1} with the noise split α (β = α/√(α² − 1); α = √2 is the
/// theorem). Needs c ∈ (0, 1) and η.
accounting::training_run noisy_sgd_strongly_convex_run(const noisy_gradient_setting& s,
                                                       long long tau,
                                                       double alpha = std::sqrt(2.0));

/// Thm 4.10 at τ ∈ {0, …, t − 1} with the noise split α. Needs the diameter D and η.
accounting::training_run noisy_sgd_constrained_convex_run(const noisy_gradient_setting& s,
                                                          long long tau,
                                                          double alpha = std::sqrt(2.0));

/// Thm C.13 in general (strongly convex NoisySGD): for shifts a_1, …, a_{t−1} with
/// 0 ≤ a_k ≤ ηL/b and z_{t−1} = ((1 − c^{t−1})/(1 − c))·ηL/b − Σ_{k=1}^{t−1} c^{t−k−1} a_k ≥ 0
/// (with z_{k+1} = c z_k + ηL/b − a_{k+1} ≥ 0 along the way),
///   f = G(2α c z_{t−1}/(ησ)) ⊗ C_p(G(2βL/(bσ))) ⊗ ⊗_{k=1}^{t−1} C_p(G(2a_k/(ησ))),
/// p = b/n, 1/α² + 1/β² = 1 (footnote 10; α = β = √2 is the theorem, where a_0 = √2 ηL/b).
/// Runs of equal a_k become one phase. Thm 4.9 is a_k = 0 for k < τ and ηL/b after.
/// Throws std::domain_error when the shifts break the constraints.
accounting::training_run noisy_sgd_general_run(const noisy_gradient_setting& s,
                                               std::span<const double> shifts,
                                               double alpha = std::sqrt(2.0));

/// A certified (ε, δ) bound of NoisySGD and where it was found.
struct sgd_bound {
  accounting::privacy_estimate estimate;  ///< PLD: ε upper bound (value) and lower end
  long long tau = -1;                     ///< the optimal τ (−1 for Thm 4.8)
  double alpha = NAN;                     ///< the noise split used
  int evaluations = 0;                    ///< PLD evaluations spent in the search
  std::string source;
  accounting::training_run run;  ///< the composition at the optimum
};

struct sgd_search_options {
  accounting::pld_options pld;  ///< accuracy of each PLD evaluation
  /// Every τ is evaluated when t ≤ exhaustive_limit; above it, a golden-section search on the
  /// integers k = t − τ, which assumes ε is unimodal in k (the unit tests compare it with the
  /// exhaustive scan), then every integer of the final bracket. Either way the result is a
  /// valid bound — only possibly not the best τ. Default 64.
  long long exhaustive_limit = 64;
  /// Called after each PLD evaluation of an exhaustive scan with (done, total) — for a
  /// progress display on long scans. Optional.
  std::function<void(long long, long long)> progress;
  /// Also optimise the noise split α over a small grid (footnotes 10/11). Default false.
  bool optimise_split = false;
};

/// Thm 4.8 as certified ε at δ.
sgd_bound noisy_sgd_composition(const noisy_gradient_setting& s,
                                double delta,
                                const sgd_search_options& options = {});

/// Thm 4.9, the smallest certified ε at δ over τ (and α if asked).
sgd_bound noisy_sgd_strongly_convex(const noisy_gradient_setting& s,
                                    double delta,
                                    const sgd_search_options& options = {});

/// Thm 4.10, the smallest certified ε at δ over τ (and α if asked).
sgd_bound noisy_sgd_constrained_convex(const noisy_gradient_setting& s,
                                       double delta,
                                       const sgd_search_options& options = {});

}  // namespace dpkit::shifted

// dpkit/accounting/clt.hpp — the Gaussian-DP central limit approximation of a training run.
//
// For many steps of small sampling rate, compositions of subsampled Gaussians approach a
// Gaussian tradeoff G(μ_CLT) (DRS22 Thm 3.5, Cor 4):
//   Poisson phase (Bu et al. 2020):          μ = q·√(T(e^{1/σ²} − 1))
//   without replacement (BSA24 Lemma A.5): μ = √2·q·√T·√(e^{μ₁²}Φ(1.5μ₁) + 3Φ(−μ₁/2) − 2),
//                                             μ₁ = 2/σ (replace-one, C_q(G(μ₁)))
//   full-batch phase:                        μ = √T·μ₁ (exact)
//   G(μ₀) factor:                            μ₀ (exact)
// combined as √(Σ μᵢ²). The ε and δ it gives are APPROXIMATIONS, not bounds in either
// direction (BSA24 §D.5; Opacus warns the same): kind = approximation. When every phase is
// full-batch the result is exact, and labelled so (upper_bound, tight).
#pragma once

#include "dpkit/accounting/training_run.hpp"
#include "dpkit/divergence/result.hpp"

namespace dpkit::accounting {

/// μ_CLT of the run (validated).
double clt_mu(const training_run& run);

/// ε at δ ∈ (0, 1) of G(μ_CLT): kind approximation (exact upper_bound for Gaussian runs).
divergence::epsilon_result clt_epsilon(const training_run& run, double delta);

/// δ at ε ≥ 0 of G(μ_CLT), with the same labelling.
divergence::delta_result clt_delta(const training_run& run, double epsilon);

}  // namespace dpkit::accounting

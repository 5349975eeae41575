// dpkit/divergence/gaussian_renyi.hpp — Rényi divergences between Gaussians.
//
//   D_α(P ‖ Q) = 1/(α − 1) · log ∫ p^α q^{1−α},   α ∈ (0, 1) ∪ (1, ∞);  D_1 = KL(P ‖ Q).
//
// For P = N(m₁, V₁), Q = N(m₂, V₂), with M = α V₂ + (1 − α) V₁ and Δ = m₁ − m₂
// (Gil, Alajaji & Linder 2013 (GAL13)):
//
//   D_α(P ‖ Q) = (α/2) Δᵀ M⁻¹ Δ − 1/(2(α − 1)) · log( det M / (det V₁^{1−α} det V₂^α) ),
//
// finite iff M is positive definite (always for α < 1). NOTE the argument order: LKSP25
// Lemma C.2 prints M = αV₁ + (1 − α)V₂ for D_α(P ‖ Q), which is D_α(Q ‖ P) (docs/findings.md;
// checked here against 50-digit quadrature in data/reference/gaussian_renyi_*.csv).
//
// α = 1 gives the Kullback–Leibler divergence ½[tr(V₂⁻¹V₁) + Δᵀ V₂⁻¹ Δ − d + log det V₂/det V₁].
#pragma once

#include <Eigen/Dense>

namespace dpkit::divergence {

struct univariate_normal {
  double mean = 0.0;
  double variance = 1.0;
};

struct multivariate_normal {
  Eigen::VectorXd mean;
  Eigen::MatrixXd covariance;  ///< symmetric positive definite
};

/// D_α(p ‖ q). α > 0 finite (α = 1: KL). Variances > 0. Throws std::domain_error when
/// α > 1 and α·q.variance + (1 − α)·p.variance ≤ 0 (then D_α = +∞).
double renyi_divergence(const univariate_normal& p, const univariate_normal& q, double alpha);

/// D_α(p ‖ q) for d-dimensional Gaussians with dense SPD covariances (Eigen LDLT,
/// log-determinants from the pivots; O(d³)). Throws std::domain_error on mismatched
/// dimensions, non-SPD covariances, or when α > 1 and α V₂ + (1 − α) V₁ is not positive
/// definite (then D_α = +∞); the message names the smallest pivot.
double renyi_divergence(const multivariate_normal& p, const multivariate_normal& q, double alpha);

}  // namespace dpkit::divergence

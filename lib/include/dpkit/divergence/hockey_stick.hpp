// dpkit/divergence/hockey_stick.hpp — hockey-stick divergence of Gaussians.
//
//   H_{e^ε}(P ‖ Q) = sup_E { P(E) − e^ε Q(E) } = ∫ (p − e^ε q)₊
//
// A mechanism is (ε, δ)-DP iff H_{e^ε}(M(S) ‖ M(S′)) ≤ δ for all neighbours. For Gaussians
// with a common covariance Σ it depends only on the Mahalanobis distance
// μ = ‖Σ^{−1/2}(m₁ − m₂)‖ and equals the μ-GDP profile (Balle & Wang 2018 Thm 8, "the
// analytic Gaussian mechanism"): H_{e^ε} = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2).
#pragma once

#include "dpkit/divergence/gaussian_renyi.hpp"

namespace dpkit::divergence {

/// H_{e^ε}(p ‖ q) for univariate Gaussians with equal variances (std::domain_error otherwise).
double hockey_stick_divergence(const univariate_normal& p,
                               const univariate_normal& q,
                               double epsilon);

/// H_{e^ε}(p ‖ q) for multivariate Gaussians with the same SPD covariance (checked to
/// relative 1e-12 entrywise; std::domain_error otherwise).
double hockey_stick_divergence(const multivariate_normal& p,
                               const multivariate_normal& q,
                               double epsilon);

}  // namespace dpkit::divergence

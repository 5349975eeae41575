// Internal: the one-dimensional pair a lower bound on a correlated-noise mechanism projects to
// (correlated.cpp: DP-λCGD's projected_lower_bound; matrix_mechanism.cpp: the unamplified route's
// lower end). A statistic ⟨v, x⟩ of the release with Cᵀv = 1_S turns the example's Poisson
// participations in the steps S into their count, Bin(n, q), plus Gaussian noise of standard
// deviation s = σ‖v‖; by data processing the mechanism's δ(ε) is at least the pair's.
#pragma once

namespace dpkit::accounting::detail {

/// δ₁(ε) = max{H_{e^ε}(P₁‖Q₁), H_{e^ε}(Q₁‖P₁)} for P₁ = Σ_k Bin(n, q)(k)·N(k, s²) and
/// Q₁ = N(0, s²) (n ≥ 1, q ∈ (0, 1], s > 0, ε ≥ 0). The binomial weights are summed over mean
/// ± 40 sd; the mass left out is taken as it lowers δ₁ (so δ₁ stays a lower bound).
double binomial_gaussian_delta(long long n, double q, double s, double epsilon);

}  // namespace dpkit::accounting::detail
